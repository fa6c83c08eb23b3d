import type { ChildProcess } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { mkdir, realpath } from 'node:fs/promises'
import { findPackageJSON } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import {
  BROWSER_HOST_SCRIPT,
  type BrowserHost,
  browserHostArgs,
  startBrowserHost,
  stopBrowserHost,
} from './browser-host.ts'
import { CompileCaches } from './compile-caches.ts'
import {
  hiddenPathProblem,
  keptPathsOf,
  privateTempDirsOf,
  probeSandbox,
  type SandboxSpec,
  type ScriptSandboxMode,
  type ScriptSandboxStatus,
  SHARED_TEMP_DIRS,
  sandboxed,
  sandboxRefusal,
} from './sandbox.ts'
import { removeLeftoverWorkDirs } from './work-dirs.ts'

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium'

export interface PlaywrightPoolOptions {
  /** Debian's Chromium (SVC_CHROMIUM_PATH). */
  chromiumPath?: string
  /** Script runs at once (SVC_BROWSER_CONCURRENCY); more wait their turn. */
  concurrency?: number
  /** Resident memory of one run's processes (Node and test workers) before it is killed. */
  memoryLimitMb?: number
  /** V8 heap of one run's Node processes. */
  heapLimitMb?: number
  /** Pages one run may have open at once. */
  maxPages?: number
  /** Where runs get their temporary working directories. */
  workRoot?: string
  /** Stored screenshots and traces of one run; what doesn't fit is left out (default 150 MB). */
  artifactLimitBytes?: number
  /** SVC_SCRIPT_SANDBOX (default `auto`): run scripts and the shared Chromium in Linux namespaces. */
  sandbox?: ScriptSandboxMode
  /** Directories and files of the server's own that scripts must not read (its data directory). */
  hiddenPaths?: string[]
  /** Told once when `auto` finds no working sandbox (default: a process warning on stderr). */
  onWarning?: (message: string) => void
  /**
   * Chromiums running at once, one per account (default: `concurrency`, so a run never waits for
   * one). When all are in use, a run of another account waits until one is idle or gone.
   */
  maxBrowsers?: number
  /** An account's Chromium is closed after it has had no run for this long (default 60 s). */
  browserIdleMs?: number
  /** Calls `close` after `ms` unless the function it returns is called first (tests fire it themselves). */
  scheduleIdleClose?: (close: () => void, ms: number) => () => void
}

const DEFAULT_BROWSER_IDLE_MS = 60_000
let pools = 0

export function chromiumAvailable(path = DEFAULT_CHROMIUM_PATH): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

const RUNTIME_DIR = dirname(dirname(findPackageJSON('playwright-core', import.meta.url) as string))
/** Where svc is installed (its node_modules and packages): kept visible should it lie in /tmp. */
const INSTALL_DIR = dirname(RUNTIME_DIR)

/** Waits until `queue` calls this waiter; when `signal` aborts first, leaves the queue and rejects. */
function waitInQueue(queue: (() => void)[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const wake = () => {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    const abort = () => {
      const at = queue.indexOf(wake)
      if (at >= 0) queue.splice(at, 1)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', abort, { once: true })
    queue.push(wake)
  })
}

/** One account's Chromium: its runs connect to it, each with its own context. */
interface AccountBrowser {
  accountId: string
  /** Names its working directory. */
  number: number
  host: Promise<BrowserHost>
  process: ChildProcess | null
  /** Runs using it now. */
  runs: number
  /** When it was last let go, in release order (the least recently used idle one makes room). */
  lastUsed: number
  cancelIdle: (() => void) | null
}

/** A run's use of its account's Chromium; `release` when the run is over. */
export interface BrowserLease {
  wsEndpoint: string
  release: () => void
}

function scheduleWithTimer(close: () => void, ms: number): () => void {
  const timer = setTimeout(close, ms)
  timer.unref()
  return () => clearTimeout(timer)
}

/**
 * What script runs of one runner share: a limit on runs at once and a Chromium per account that the
 * account's runs connect to, each with its own context (started on first use, restarted if it dies,
 * closed when idle). Runs of different accounts never share a browser: anyone connected to one can
 * reach all of its pages through its CDP session.
 */
export class PlaywrightPool {
  readonly chromiumPath: string
  readonly concurrency: number
  readonly memoryLimitMb: number
  readonly heapLimitMb: number
  readonly maxPages: number
  readonly workRoot: string
  /** Caches of runs, one per account (compiled code); safe to delete between runs. */
  readonly cacheDir: string
  readonly artifactLimitBytes: number
  readonly sandbox: ScriptSandboxMode
  readonly hiddenPaths: string[]
  /** Unique among the pools of this process (names working directories). */
  readonly id = ++pools
  #running = 0
  readonly #waiting: (() => void)[] = []
  #freeSlots: number[] = []
  readonly maxBrowsers: number
  readonly browserIdleMs: number
  #scheduleIdleClose: (close: () => void, ms: number) => () => void
  #browsers = new Map<string, AccountBrowser>()
  #browsersLaunched = 0
  #browserReleases = 0
  readonly #waitingForBrowser: (() => void)[] = []
  #started: Promise<ScriptSandboxStatus> | null = null
  /** The sandbox's view: the work root's real path, the temporary directories made private, what every process keeps of them. */
  #workRoot = ''
  #privateTempDirs: string[] = []
  #sharedKept: string[] = []
  readonly #caches: CompileCaches
  #onWarning: (message: string) => void
  #closed = false

  constructor(options: PlaywrightPoolOptions = {}) {
    this.chromiumPath = options.chromiumPath ?? DEFAULT_CHROMIUM_PATH
    this.concurrency = Math.max(1, options.concurrency ?? 2)
    this.#freeSlots = Array.from({ length: this.concurrency }, (_, slot) => slot)
    this.memoryLimitMb = options.memoryLimitMb ?? 1536
    this.heapLimitMb = options.heapLimitMb ?? 768
    this.maxPages = options.maxPages ?? 20
    this.workRoot = options.workRoot ?? tmpdir()
    this.cacheDir = join(this.workRoot, 'svc-playwright-cache')
    this.#caches = new CompileCaches(this.cacheDir)
    this.artifactLimitBytes = options.artifactLimitBytes ?? 150 * 1024 * 1024
    this.sandbox = options.sandbox ?? 'auto'
    this.hiddenPaths = options.hiddenPaths ?? []
    this.#onWarning = options.onWarning ?? ((message) => process.emitWarning(message, 'SvcScriptSandbox'))
    this.maxBrowsers = Math.max(1, options.maxBrowsers ?? this.concurrency)
    this.browserIdleMs = options.browserIdleMs ?? DEFAULT_BROWSER_IDLE_MS
    this.#scheduleIdleClose = options.scheduleIdleClose ?? scheduleWithTimer
  }

  /**
   * Once per pool (later calls answer the same): removes the working directories that processes no
   * longer running left behind, and finds out whether the sandbox works.
   */
  start(): Promise<ScriptSandboxStatus> {
    this.#started ??= (async () => {
      await removeLeftoverWorkDirs(this.workRoot)
      await this.#caches.removeUnused()
      await mkdir(this.workRoot, { recursive: true })
      this.#workRoot = await realpath(this.workRoot)
      this.#privateTempDirs = privateTempDirsOf(this.#workRoot, [tmpdir(), ...SHARED_TEMP_DIRS])
      const chromiumDir = await realpath(this.chromiumPath).then(dirname, () => null)
      this.#sharedKept = [INSTALL_DIR, dirname(process.execPath)]
      if (chromiumDir) this.#sharedKept.push(chromiumDir)
      const status = await this.#probe()
      if (status.problem && status.mode === 'auto') {
        this.#onWarning(
          `Script checks run WITHOUT a sandbox: scripts can read this process's environment and data directory (${status.problem}). Set SVC_SCRIPT_SANDBOX=off to accept this, or fix the cause.`,
        )
      }
      return status
    })()
    return this.#started
  }

  /**
   * Where `accountId`'s runs keep compiled code for the next ones (NODE_COMPILE_CACHE), made when
   * missing. In the sandbox it is read only and only the account's warm-up fills it: what a run
   * compiled (its script, its config with the proxy's password) would be readable by the runs after
   * it, and a planted entry would run in them.
   */
  async compileCacheOf(accountId: string): Promise<string> {
    const status = await this.start()
    return this.#caches.cacheOf(accountId, status.sandboxed)
  }

  /**
   * Once per account (and process), when runs are sandboxed: `warmUp` (a run of svc's own script, with
   * the compile cache writable) fills the account's compile cache before its first run. Its failure
   * only leaves it cold.
   */
  async warmUp(accountId: string, warmUp: () => Promise<unknown>): Promise<void> {
    const status = await this.start()
    if (!status.sandboxed) return
    return this.#caches.warmUp(await this.compileCacheOf(accountId), warmUp)
  }

  /**
   * `command args` as this pool starts a run's processes: in the sandbox when it works, where of
   * `workRoot` and the shared temporary directories it sees only the directories it keeps (and what
   * every run needs), `readOnly` ones read only. Throws when the sandbox is required (`on`) and can't
   * be made.
   */
  async commandOf(
    command: string,
    args: string[],
    keep: string[] = [],
    readOnly: string[] = [],
  ): Promise<[string, string[]]> {
    const status = await this.start()
    if (status.sandboxed) return sandboxed(this.#sandboxSpec(keep, readOnly), command, args)
    if (status.mode === 'on') throw new Error(sandboxRefusal(status.problem as string))
    return [command, args]
  }

  #sandboxSpec(keep: string[], readOnly: string[]): SandboxSpec {
    const privateTempDirs = this.#privateTempDirs
    const kept = keptPathsOf([this.#workRoot, ...privateTempDirs], [...keep, ...this.#sharedKept])
    return {
      hiddenPaths: this.hiddenPaths,
      privateRoot: { dir: this.#workRoot, keep: kept },
      privateTempDirs,
      readOnlyPaths: readOnly,
    }
  }

  /** Compiled code of one account's runs (it holds its scripts' text). */
  cacheDirOf(accountId: string): string {
    return this.#caches.dirOf(accountId)
  }

  async #probe(): Promise<ScriptSandboxStatus> {
    if (this.sandbox === 'off') return { mode: 'off', sandboxed: false, problem: null }
    const needed = {
      'Node.js': process.execPath,
      'the Playwright runtime': RUNTIME_DIR,
      'the runner': dirname(BROWSER_HOST_SCRIPT),
      Chromium: this.chromiumPath,
    }
    await mkdir(this.cacheDir, { recursive: true })
    const problem =
      (process.platform === 'linux' ? null : `namespaces need Linux, not ${process.platform}`) ??
      hiddenPathProblem(this.hiddenPaths, { 'the run directories': this.workRoot, ...needed }) ??
      // Each run sees only its own directories of the work root, and what every run keeps (svc's install
      // in /tmp, the default work root, when it was checked out there).
      hiddenPathProblem([this.workRoot], needed, this.#sharedKept) ??
      (await probeSandbox(this.#sandboxSpec([this.cacheDir], [this.cacheDir]), process.execPath))
    return { mode: this.sandbox, sandboxed: problem === null, problem }
  }

  get running(): number {
    return this.#running
  }

  /**
   * Waits for a free slot (0 … concurrency-1); call `release` when the run is over. A slot is used by
   * one run at a time, so a run may keep per-slot state (its working directory) at a stable path.
   * Throws, taking no slot, when `signal` aborts the wait.
   */
  async acquire(signal?: AbortSignal): Promise<{ slot: number; release: () => void }> {
    signal?.throwIfAborted()
    if (this.#running >= this.concurrency) {
      await waitInQueue(this.#waiting, signal)
    } else {
      this.#running++
    }
    const slot = this.#freeSlots.shift() ?? this.#running - 1
    let released = false
    const release = () => {
      if (released) return
      released = true
      this.#freeSlots.push(slot)
      this.#freeSlots.sort((a, b) => a - b)
      const next = this.#waiting.shift()
      if (next) next()
      else this.#running--
    }
    return { slot, release }
  }

  /** The Chromiums running now: whose, their host process and how many runs use them. */
  get browsers(): { accountId: string; pid: number | null; runs: number }[] {
    return [...this.#browsers.values()].map((browser) => ({
      accountId: browser.accountId,
      pid: browser.process?.pid ?? null,
      runs: browser.runs,
    }))
  }

  /** Runs waiting for a Chromium because `maxBrowsers` are in use by other accounts. */
  get waitingForBrowser(): number {
    return this.#waitingForBrowser.length
  }

  /**
   * The endpoint of `accountId`'s Chromium, started when it has none (after waiting for room when
   * `maxBrowsers` are in use); throws when Chromium can't start, or `signal` aborts the wait.
   */
  async useBrowser(accountId: string, signal?: AbortSignal): Promise<BrowserLease> {
    if (!chromiumAvailable(this.chromiumPath)) {
      throw new Error(`Chromium not found at ${this.chromiumPath} (set SVC_CHROMIUM_PATH)`)
    }
    for (;;) {
      if (this.#closed) throw new Error('the Playwright pool is closed')
      signal?.throwIfAborted()
      const browser = this.#browserOf(accountId)
      if (browser) return this.#lease(browser)
      await waitInQueue(this.#waitingForBrowser, signal)
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const wake of this.#waitingForBrowser.splice(0)) wake()
    await Promise.all([...this.#browsers.values()].map((browser) => this.#stop(browser)))
  }

  /** The account's Chromium, else a new one if there is room (made by closing the least recently used idle one). */
  #browserOf(accountId: string): AccountBrowser | null {
    const running = this.#browsers.get(accountId)
    if (running) return running
    if (this.#browsers.size >= this.maxBrowsers) {
      const idle = [...this.#browsers.values()]
        .filter((browser) => browser.runs === 0)
        .sort((a, b) => a.lastUsed - b.lastUsed)[0]
      if (!idle) return null
      void this.#stop(idle)
    }
    const number = ++this.#browsersLaunched
    const browserDir = join(this.workRoot, `svc-browser-${process.pid}-${this.id}-${number}`)
    const host = Promise.withResolvers<BrowserHost>()
    const browser: AccountBrowser = {
      accountId,
      number,
      host: host.promise,
      process: null,
      runs: 0,
      lastUsed: 0,
      cancelIdle: null,
    }
    // Chromium sees none of the runs' directories: a run's files reach it through Playwright's
    // connection (uploads), and what it makes (downloads, traces, videos) is streamed back to the run.
    mkdir(browserDir, { recursive: true })
      .then(() => this.commandOf(process.execPath, browserHostArgs(this.chromiumPath), [browserDir]))
      .then((command) => {
        // A browser that died is forgotten: the account's next run starts a new one.
        const started = startBrowserHost(command, browserDir, () => this.#forget(browser))
        browser.process = started.process
        return started.host
      })
      .then(host.resolve, host.reject)
    // One that didn't start is forgotten: the next run tries again.
    browser.host.catch(() => this.#forget(browser))
    this.#browsers.set(accountId, browser)
    return browser
  }

  async #lease(browser: AccountBrowser): Promise<BrowserLease> {
    browser.runs++
    browser.cancelIdle?.()
    browser.cancelIdle = null
    let released = false
    const release = () => {
      if (released) return
      released = true
      browser.runs--
      browser.lastUsed = ++this.#browserReleases
      if (browser.runs > 0 || this.#browsers.get(browser.accountId) !== browser) return
      browser.cancelIdle = this.#scheduleIdleClose(() => {
        if (browser.runs === 0) void this.#stop(browser)
      }, this.browserIdleMs)
      // An idle browser can make room for a run of another account.
      this.#wakeOneWaiting()
    }
    try {
      return { wsEndpoint: (await browser.host).wsEndpoint, release }
    } catch (error) {
      release()
      throw error
    }
  }

  #forget(browser: AccountBrowser): void {
    browser.cancelIdle?.()
    browser.cancelIdle = null
    if (this.#browsers.get(browser.accountId) !== browser) return
    this.#browsers.delete(browser.accountId)
    this.#wakeOneWaiting()
  }

  #wakeOneWaiting(): void {
    this.#waitingForBrowser.shift()?.()
  }

  /** Closes an account's Chromium (its host closes the browser when its stdin ends). */
  async #stop(browser: AccountBrowser): Promise<void> {
    this.#forget(browser)
    const host = await browser.host.catch(() => null)
    if (host) await stopBrowserHost(host)
  }
}
