import { type ChildProcess, spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

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
}

/** Flags for a headless Chromium on a server without internet, GPU or a user sandbox. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--metrics-recording-only',
  '--mute-audio',
  '--js-flags=--max-old-space-size=512',
]

const BROWSER_START_TIMEOUT_MS = 30_000
let pools = 0

export function chromiumAvailable(path = DEFAULT_CHROMIUM_PATH): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

interface BrowserHost {
  process: ChildProcess
  wsEndpoint: string
}

/**
 * What script runs of one runner share: a limit on runs at once and one Chromium that every run
 * connects to with its own context (started on first use, restarted if it dies).
 */
export class PlaywrightPool {
  readonly chromiumPath: string
  readonly concurrency: number
  readonly memoryLimitMb: number
  readonly heapLimitMb: number
  readonly maxPages: number
  readonly workRoot: string
  /** Caches shared by runs (compiled code, transformed scripts); safe to delete between runs. */
  readonly cacheDir: string
  readonly artifactLimitBytes: number
  /** Unique among the pools of this process (names working directories). */
  readonly id = ++pools
  #running = 0
  #waiting: (() => void)[] = []
  #freeSlots: number[] = []
  #host: Promise<BrowserHost> | null = null
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
    this.artifactLimitBytes = options.artifactLimitBytes ?? 150 * 1024 * 1024
  }

  get running(): number {
    return this.#running
  }

  /**
   * Waits for a free slot (0 … concurrency-1); call `release` when the run is over. A slot is used by
   * one run at a time, so a run may keep per-slot state (its working directory) at a stable path.
   */
  async acquire(): Promise<{ slot: number; release: () => void }> {
    if (this.#running >= this.concurrency) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
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

  /** The shared browser's endpoint, starting it when needed; throws when Chromium can't start. */
  async browserEndpoint(): Promise<string> {
    if (this.#closed) throw new Error('the Playwright pool is closed')
    if (!chromiumAvailable(this.chromiumPath)) {
      throw new Error(`Chromium not found at ${this.chromiumPath} (set SVC_CHROMIUM_PATH)`)
    }
    this.#host ??= this.#startHost()
    try {
      return (await this.#host).wsEndpoint
    } catch (error) {
      this.#host = null
      throw error
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    const host = await this.#host?.catch(() => null)
    this.#host = null
    if (!host || host.process.exitCode !== null) return
    const exited = new Promise((resolve) => host.process.once('exit', resolve))
    host.process.stdin?.end()
    const timer = setTimeout(() => host.process.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
  }

  #startHost(): Promise<BrowserHost> {
    const script = fileURLToPath(new URL('./child/browser-host.cjs', import.meta.url))
    const options = JSON.stringify({ executablePath: this.chromiumPath, args: CHROMIUM_ARGS })
    const child = spawn(process.execPath, [script, options], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-4000)
    })
    const host = new Promise<BrowserHost>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error('Chromium did not start within 30 s'))
      }, BROWSER_START_TIMEOUT_MS)
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
      lines.once('line', (line) => {
        clearTimeout(timer)
        try {
          resolve({ process: child, wsEndpoint: JSON.parse(line).wsEndpoint })
        } catch {
          reject(new Error(`Chromium did not start: ${line}`))
        }
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`Chromium did not start (exit ${code}): ${stderr.trim()}`))
      })
    })
    child.once('exit', () => {
      if (this.#host === host) this.#host = null
    })
    // The host must not keep the server alive; it stops by itself when our stdin pipe closes.
    child.unref()
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      ;(stream as unknown as { unref?: () => void } | null)?.unref?.()
    }
    return host
  }
}
