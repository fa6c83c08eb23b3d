import { createHash } from 'node:crypto'
import { mkdir, readdir, rm, stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'

const DAY_MS = 86_400_000
/**
 * An account's compile cache that no run used for this long goes (pools look when they start and then
 * daily): accounts deleted, or whose script checks stopped, leave ~2–5 MB each behind otherwise.
 * Exported for tests: the pool tests age caches past it.
 */
export const UNUSED_CACHE_DAYS = 30
/**
 * Compile caches (by directory) whose warm-up this process ran or is running: another pool of the
 * process on the same work root (tests make many) needn't fill an account's cache again.
 */
const warmedUpCaches = new Map<string, Promise<void>>()

/**
 * The compile caches (NODE_COMPILE_CACHE) of script runs under one directory, one per account: made
 * on first use, warmed up once per account and process, and removed when no run used them for
 * UNUSED_CACHE_DAYS.
 */
export class CompileCaches {
  /** Caches of runs, one per account (compiled code); safe to delete between runs. */
  readonly dir: string
  /** When this process last marked each account's cache used, and last removed unused caches. */
  #usedMs = new Map<string, number>()
  #prunedMs = 0

  constructor(dir: string) {
    this.dir = dir
  }

  /** Compiled code of one account's runs (it holds its scripts' text). */
  dirOf(accountId: string): string {
    return join(this.dir, createHash('sha256').update(accountId).digest('hex').slice(0, 16))
  }

  /** The account's cache for sandboxed runs or the others, made when missing, and marked used. */
  async cacheOf(accountId: string, sandboxed: boolean): Promise<string> {
    const dir = join(this.dirOf(accountId), sandboxed ? 'node-sandboxed' : 'node')
    // A tmp cleaner or --refresh-cache may have removed it: the account's next run warms it up again.
    if (await mkdir(dir, { recursive: true })) warmedUpCaches.delete(dir)
    this.#markUsed(accountId)
    return dir
  }

  /** Runs `warmUp` for the cache `dir` once per process; its failure only leaves the cache cold. */
  warmUp(dir: string, warmUp: () => Promise<unknown>): Promise<void> {
    let warmedUp = warmedUpCaches.get(dir)
    if (!warmedUp) {
      warmedUp = warmUp().then(
        () => {},
        () => {},
      )
      warmedUpCaches.set(dir, warmedUp)
    }
    return warmedUp
  }

  async removeUnused(): Promise<void> {
    const nowMs = Date.now()
    this.#prunedMs = nowMs
    const names = await readdir(this.dir).catch(() => [] as string[])
    await Promise.all(
      names.map(async (name) => {
        const dir = join(this.dir, name)
        const info = await stat(dir).catch(() => undefined)
        if (!info?.isDirectory() || info.mtimeMs >= nowMs - UNUSED_CACHE_DAYS * DAY_MS) return
        await rm(dir, { recursive: true, force: true }).catch(() => {})
      }),
    )
  }

  /**
   * Runs only read the cache (in the sandbox it is read only), which leaves its times alone: its
   * directory's modification time is set instead, at most daily, and tells the pools what is unused.
   */
  #markUsed(accountId: string): void {
    const nowMs = Date.now()
    if (nowMs - (this.#usedMs.get(accountId) ?? 0) >= DAY_MS) {
      this.#usedMs.set(accountId, nowMs)
      const now = new Date(nowMs)
      // Not awaited: the run needn't wait for it, nor fall behind runs that came after it.
      void utimes(this.dirOf(accountId), now, now).catch(() => {})
    }
    if (nowMs - this.#prunedMs >= DAY_MS) void this.removeUnused()
  }
}
