import type { ServiceContext } from './context.ts'
import { onWakeup, raiseWakeup } from './wakeups.ts'

/**
 * What a result's fold reads and rarely changes (an account's settings, a check group, an account's
 * maintenance windows, the zone a check's day rollups follow), kept in memory per app so that a stream of failing results doesn't read them
 * again for each one. A write of any of them (their repos call `foldReadsChanged`) drops every entry:
 * at once in this process, and on PostgreSQL on every node once the write commits (a `fold-reads`
 * wake-up, a NOTIFY). Entries also expire after FOLD_READS_TTL_MS, which bounds what a missed
 * notification, a SQLite store written by another process, or a read racing a write before its
 * commit can leave stale.
 */
export const FOLD_READS_TTL_MS = 5000
/** Past this many entries an app's cache starts over. */
const MAX_ENTRIES = 10_000

/** Bumped by every write of what the caches hold: an entry read under an older version is stale. */
let version = 0
let listening = false

interface Entry {
  value: unknown
  version: number
  readAtMs: number
}

/**
 * One cache per app. Its secret box stands for it: every context of an app carries the same one, in a
 * transaction or not (the store handle differs per transaction), and two apps never share one.
 */
const caches = new WeakMap<object, Map<string, Entry>>()

/** `load()`'s answer, from memory when read since the last write and within the TTL; misses aren't kept. */
export async function cachedFoldRead<T>(
  ctx: ServiceContext,
  key: string,
  load: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const found = await cachedFoldReads<T>(ctx, [key], async () => {
    const value = await load()
    return new Map(value === undefined ? [] : [[key, value]])
  })
  return found.get(key)
}

/**
 * `cachedFoldRead` for many keys at once: `loadMissing` reads those not in memory (in one statement,
 * say) and answers what it found of them. `ttlMs`: for what only a write dropping the cache changes.
 */
export async function cachedFoldReads<T>(
  ctx: ServiceContext,
  keys: string[],
  loadMissing: (keys: string[]) => Promise<Map<string, T>>,
  ttlMs = FOLD_READS_TTL_MS,
): Promise<Map<string, T>> {
  const cache = cacheOf(ctx)
  const nowMs = performance.now()
  const found = new Map<string, T>()
  const missing: string[] = []
  for (const key of keys) {
    const entry = cache.get(key)
    if (entry && entry.version === version && nowMs - entry.readAtMs < ttlMs) {
      found.set(key, entry.value as T)
    } else missing.push(key)
  }
  if (missing.length === 0) return found
  // The version before the read: a write during it leaves the entries stale, not the old values current.
  const readVersion = version
  const loaded = await loadMissing(missing)
  if (cache.size + loaded.size > MAX_ENTRIES) cache.clear()
  for (const [key, value] of loaded) {
    cache.set(key, { value, version: readVersion, readAtMs: nowMs })
    found.set(key, value)
  }
  return found
}

/** Drops `keys` from this app's cache: a fold changed what they hold, in a transaction not yet committed. */
export function forgetFoldReads(ctx: ServiceContext, keys: string[]): void {
  const cache = cacheOf(ctx)
  for (const key of keys) cache.delete(key)
}

function cacheOf(ctx: ServiceContext): Map<string, Entry> {
  if (!listening) {
    listening = true
    onWakeup('fold-reads', () => {
      version++
    })
  }
  let cache = caches.get(ctx.secretBox)
  if (!cache) {
    cache = new Map()
    caches.set(ctx.secretBox, cache)
  }
  return cache
}

/** Drops every cached fold read, here at once and on every node once the caller's transaction commits. */
export async function foldReadsChanged(ctx: Pick<ServiceContext, 'db' | 'engine'>): Promise<void> {
  version++
  await raiseWakeup(ctx, 'fold-reads')
}
