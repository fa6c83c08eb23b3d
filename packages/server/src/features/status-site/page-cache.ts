import type { StatusPagesTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'

/**
 * Rendered public pages, per server process. A page's row (slug, domain, privacy, content version) is
 * re-read at most once a second, so a change made on another node shows within a second; a change made
 * here is dropped at once. Check results move services and uptime bars without touching the page, so a
 * rendering also expires after RENDER_TTL_MS.
 * Exported because the tests move the clock past it.
 */
export const ROW_RECHECK_MS = 1000
/** Exported because the tests move the clock past it. */
export const RENDER_TTL_MS = 30_000

interface CachedRow {
  row: StatusPagesTable | undefined
  checkedAtMs: number
}

export interface Rendered {
  /** UTF-8, encoded once rather than on every request. */
  body: Buffer
  /** The body gzipped once, for the many clients that accept it. */
  gzipped: Buffer
  etag: string
  headers: Record<string, string>
}

interface CachedRendering {
  value: Rendered
  contentVersion: number
  builtAtMs: number
}

class PublicPageCache {
  readonly rows = new Map<string, CachedRow>()
  readonly renderings = new Map<string, CachedRendering>()
  readonly building = new Map<string, Promise<Rendered>>()

  forget(pageId: string) {
    // Unknown addresses go too: the change may have given one of them to this page.
    for (const [key, cached] of this.rows) if (!cached.row || cached.row.id === pageId) this.rows.delete(key)
    for (const key of this.renderings.keys()) if (key.startsWith(`${pageId}|`)) this.renderings.delete(key)
  }
}

const caches = new WeakMap<object, PublicPageCache>()

function cacheOf(ctx: ServiceContext): PublicPageCache {
  let cache = caches.get(ctx.db)
  if (!cache) {
    cache = new PublicPageCache()
    caches.set(ctx.db, cache)
  }
  return cache
}

/** The page row behind `key` (`slug:x` or `domain:x`), from memory when read within the last second. */
export async function cachedPageRow(
  ctx: ServiceContext,
  key: string,
  load: () => Promise<StatusPagesTable | undefined>,
): Promise<StatusPagesTable | undefined> {
  const cache = cacheOf(ctx)
  const nowMs = ctx.clock.now().getTime()
  const cached = cache.rows.get(key)
  if (cached && nowMs - cached.checkedAtMs < ROW_RECHECK_MS) return cached.row
  const row = await load()
  if (cache.rows.size > 10_000) cache.rows.clear()
  cache.rows.set(key, { row, checkedAtMs: nowMs })
  return row
}

/** A rendering of `page` (one per kind and address), built once however many requests wait for it. */
export async function cachedRendering(
  ctx: ServiceContext,
  page: StatusPagesTable,
  variant: string,
  build: () => Promise<Rendered>,
): Promise<Rendered> {
  const cache = cacheOf(ctx)
  const key = `${page.id}|${variant}`
  const nowMs = ctx.clock.now().getTime()
  const version = Number(page.content_version)
  const cached = cache.renderings.get(key)
  if (cached && cached.contentVersion === version && nowMs - cached.builtAtMs < RENDER_TTL_MS) {
    return cached.value
  }
  const buildKey = `${key}|${version}`
  const pending = cache.building.get(buildKey)
  if (pending) return pending
  const promise = build()
    .then((value) => {
      cache.renderings.set(key, { value, contentVersion: version, builtAtMs: nowMs })
      return value
    })
    .finally(() => cache.building.delete(buildKey))
  cache.building.set(buildKey, promise)
  return promise
}

/** Drops everything cached for the page on this node (others notice its content version within a second). */
export function forgetPublicPage(ctx: ServiceContext, pageId: string): void {
  cacheOf(ctx).forget(pageId)
}
