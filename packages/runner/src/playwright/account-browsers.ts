// The Chromiums of a pool, one per account: started on first use, restarted if they die, closed when idle.
import type { ChildProcess } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type BrowserHost, browserHostArgs, startBrowserHost, stopBrowserHost } from './browser-host.ts'
import { waitInQueue } from './wait-in-queue.ts'

export const DEFAULT_BROWSER_IDLE_MS = 60_000

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

export interface AccountBrowsersOptions {
  chromiumPath: string
  workRoot: string
  /** Names the browsers' working directories, with the process id. */
  poolId: number
  maxBrowsers: number
  idleMs: number
  scheduleIdleClose: ((close: () => void, ms: number) => () => void) | undefined
  /** How the pool starts a process (in its sandbox when it has one), seeing `keep` of its directories. */
  commandOf: (command: string, args: string[], keep: string[]) => Promise<[string, string[]]>
}

/**
 * One Chromium per account, at most `maxBrowsers` at once: runs of different accounts never share a
 * browser, since anyone connected to one can reach all of its pages through its CDP session.
 */
export class AccountBrowsers {
  readonly #options: AccountBrowsersOptions
  readonly #scheduleIdleClose: (close: () => void, ms: number) => () => void
  #browsers = new Map<string, AccountBrowser>()
  #launched = 0
  #releases = 0
  readonly #waiting: (() => void)[] = []
  #closed = false

  constructor(options: AccountBrowsersOptions) {
    this.#options = options
    this.#scheduleIdleClose = options.scheduleIdleClose ?? scheduleWithTimer
  }

  list(): { accountId: string; pid: number | null; runs: number }[] {
    return [...this.#browsers.values()].map((browser) => ({
      accountId: browser.accountId,
      pid: browser.process?.pid ?? null,
      runs: browser.runs,
    }))
  }

  get waiting(): number {
    return this.#waiting.length
  }

  /** A lease on the account's Chromium, after waiting for room; throws when it can't start or `signal` aborts. */
  async use(accountId: string, signal?: AbortSignal): Promise<BrowserLease> {
    for (;;) {
      if (this.#closed) throw new Error('the Playwright pool is closed')
      signal?.throwIfAborted()
      const browser = this.#browserOf(accountId)
      if (browser) return this.#lease(browser)
      await waitInQueue(this.#waiting, signal)
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const wake of this.#waiting.splice(0)) wake()
    await Promise.all([...this.#browsers.values()].map((browser) => this.#stop(browser)))
  }

  /** The account's Chromium, else a new one if there is room (made by closing the least recently used idle one). */
  #browserOf(accountId: string): AccountBrowser | null {
    const running = this.#browsers.get(accountId)
    if (running) return running
    if (this.#browsers.size >= this.#options.maxBrowsers) {
      const idle = [...this.#browsers.values()]
        .filter((browser) => browser.runs === 0)
        .sort((a, b) => a.lastUsed - b.lastUsed)[0]
      if (!idle) return null
      void this.#stop(idle)
    }
    const number = ++this.#launched
    const browserDir = join(
      this.#options.workRoot,
      `svc-browser-${process.pid}-${this.#options.poolId}-${number}`,
    )
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
      .then(() =>
        this.#options.commandOf(process.execPath, browserHostArgs(this.#options.chromiumPath), [browserDir]),
      )
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
      browser.lastUsed = ++this.#releases
      if (browser.runs > 0 || this.#browsers.get(browser.accountId) !== browser) return
      browser.cancelIdle = this.#scheduleIdleClose(() => {
        if (browser.runs === 0) void this.#stop(browser)
      }, this.#options.idleMs)
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
    this.#waiting.shift()?.()
  }

  /** Closes an account's Chromium (its host closes the browser when its stdin ends). */
  async #stop(browser: AccountBrowser): Promise<void> {
    this.#forget(browser)
    const host = await browser.host.catch(() => null)
    if (host) await stopBrowserHost(host)
  }
}
