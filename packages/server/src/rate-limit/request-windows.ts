import type { ServiceContext } from '../context.ts'
import { countHit, deleteWindowsStartedBefore } from './rate-limit.repo.ts'

/**
 * Where the request counters are kept: the API's (per key, account and route) and the open routes' (per
 * client address). On PostgreSQL in the store, so that every node shares them. On SQLite in this
 * process: a SQLite store has one server process, so the count is the same, and a request no longer
 * writes to the store before its handler runs (a write that queued behind any open transaction, a
 * deploy's included). The failed sign-in throttles stay in the store on both engines: they must outlive
 * a restart.
 */

interface Window {
  startMs: number
  hits: number
}

/**
 * One map per app. Its secret box stands for it, as for the fold-reads cache: every context of an app
 * carries the same one, in a transaction or not, and two apps never share one.
 */
const inMemory = new WeakMap<object, Map<string, Window>>()

/** Counts one hit in `bucket`'s fixed window, which restarts at the first hit after the previous one ended. */
export async function countRequest(
  ctx: ServiceContext,
  bucket: string,
  nowMs: number,
  windowMs: number,
): Promise<Window> {
  if (ctx.engine !== 'sqlite') {
    const row = await countHit(ctx, bucket, nowMs, windowMs)
    return { startMs: Number(row.window_start_ms), hits: Number(row.hits) }
  }
  const windows = windowsOf(ctx)
  const window = windows.get(bucket)
  if (window && window.startMs + windowMs > nowMs) {
    window.hits++
    return { ...window }
  }
  windows.set(bucket, { startMs: nowMs, hits: 1 })
  return { startMs: nowMs, hits: 1 }
}

/** Drops the windows that started before `beforeMs`, in memory and in the store; answers how many. */
export async function dropWindowsStartedBefore(ctx: ServiceContext, beforeMs: number): Promise<number> {
  let dropped = 0
  const windows = windowsOf(ctx)
  for (const [bucket, window] of windows) {
    if (window.startMs >= beforeMs) continue
    windows.delete(bucket)
    dropped++
  }
  return dropped + (await deleteWindowsStartedBefore(ctx, beforeMs))
}

function windowsOf(ctx: ServiceContext): Map<string, Window> {
  let windows = inMemory.get(ctx.secretBox)
  if (!windows) {
    windows = new Map()
    inMemory.set(ctx.secretBox, windows)
  }
  return windows
}
