import { accessSync, constants } from 'node:fs'
import { mkdir, realpath } from 'node:fs/promises'
import { findPackageJSON } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { AccountBrowsers, type BrowserLease, DEFAULT_BROWSER_IDLE_MS } from './account-browsers.ts'
import { BROWSER_HOST_SCRIPT } from './browser-host.ts'
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
import { waitInQueue } from './wait-in-queue.ts'
import { removeLeftoverWorkDirs } from './work-dirs.ts'

export type { BrowserLease } from './account-browsers.ts'

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
  readonly #browsers: AccountBrowsers
  #started: Promise<ScriptSandboxStatus> | null = null
  /** The sandbox's view: the work root's real path, the temporary directories made private, what every process keeps of them. */
  #workRoot = ''
  #privateTempDirs: string[] = []
  #sharedKept: string[] = []
  readonly #caches: CompileCaches
  #onWarning: (message: string) => void

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
    this.#browsers = new AccountBrowsers({
      chromiumPath: this.chromiumPath,
      workRoot: this.workRoot,
      poolId: this.id,
      maxBrowsers: this.maxBrowsers,
      idleMs: this.browserIdleMs,
      scheduleIdleClose: options.scheduleIdleClose,
      commandOf: (command, args, keep) => this.commandOf(command, args, keep),
    })
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
    return this.#browsers.list()
  }

  /** Runs waiting for a Chromium because `maxBrowsers` are in use by other accounts. */
  get waitingForBrowser(): number {
    return this.#browsers.waiting
  }

  /**
   * The endpoint of `accountId`'s Chromium, started when it has none (after waiting for room when
   * `maxBrowsers` are in use); throws when Chromium can't start, or `signal` aborts the wait.
   */
  async useBrowser(accountId: string, signal?: AbortSignal): Promise<BrowserLease> {
    if (!chromiumAvailable(this.chromiumPath)) {
      throw new Error(`Chromium not found at ${this.chromiumPath} (set SVC_CHROMIUM_PATH)`)
    }
    return this.#browsers.use(accountId, signal)
  }

  close(): Promise<void> {
    return this.#browsers.close()
  }
}
