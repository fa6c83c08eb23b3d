import type { ServiceContext } from '../../context.ts'

/**
 * The checks part of public dashboard pages, per server process. Building it resolves every check of the
 * account and reads their latest results and 24-hour figures, so an anonymous visitor reloading a page
 * would otherwise cost that much each time. A part is reused for CHECKS_PART_TTL_MS (the page's own
 * `max-age`), and built once however many requests wait for it. The key carries the dashboard's
 * `updated_at`, so an edit shows at once.
 * Exported because the tests move the clock past it.
 */
export const CHECKS_PART_TTL_MS = 10_000
/** Past this many parts the cache starts over: a bound against many dashboards times many pages. */
const MAX_PARTS = 1000

interface Cached<T> {
  value: T
  builtAtMs: number
}

interface PartCache {
  parts: Map<string, Cached<unknown>>
  building: Map<string, Promise<unknown>>
}

const caches = new WeakMap<object, PartCache>()

function cacheOf(ctx: ServiceContext): PartCache {
  let cache = caches.get(ctx.db)
  if (!cache) {
    cache = { parts: new Map(), building: new Map() }
    caches.set(ctx.db, cache)
  }
  return cache
}

/** The part under `key`, from memory when built within the TTL, else from `build` (one build per key). */
export async function cachedChecksPart<T>(
  ctx: ServiceContext,
  key: string,
  build: () => Promise<T>,
): Promise<T> {
  const cache = cacheOf(ctx)
  const nowMs = ctx.clock.now().getTime()
  const cached = cache.parts.get(key)
  if (cached && nowMs - cached.builtAtMs < CHECKS_PART_TTL_MS) return cached.value as T
  const pending = cache.building.get(key)
  if (pending) return pending as Promise<T>
  const promise = build()
    .then((value) => {
      if (cache.parts.size >= MAX_PARTS) cache.parts.clear()
      cache.parts.set(key, { value, builtAtMs: nowMs })
      return value
    })
    .finally(() => cache.building.delete(key))
  cache.building.set(key, promise)
  return promise
}
