import { apartFromCommitRecords } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../context.ts'

/** The only SQL for `rate_limit_windows`. */

/**
 * Counts one hit in `bucket`'s fixed window, atomically on both engines: the window restarts at the
 * first hit after the previous one ended. Returns the window's start and its hits including this one.
 * A hit counted is none of the request's changes: a request failing after it still saved nothing.
 */
export async function countHit(ctx: ServiceContext, bucket: string, nowMs: number, windowMs: number) {
  const expired = sql<boolean>`rate_limit_windows.window_start_ms + ${windowMs} <= ${nowMs}`
  return apartFromCommitRecords(() =>
    ctx.db
      .insertInto('rate_limit_windows')
      .values({ bucket, window_start_ms: nowMs, hits: 1 })
      .onConflict((oc) =>
        oc.column('bucket').doUpdateSet({
          window_start_ms: sql`CASE WHEN ${expired} THEN ${nowMs} ELSE rate_limit_windows.window_start_ms END`,
          hits: sql`CASE WHEN ${expired} THEN 1 ELSE rate_limit_windows.hits + 1 END`,
        }),
      )
      .returning(['window_start_ms', 'hits'])
      .executeTakeFirstOrThrow(),
  )
}

/** Windows that started before `beforeMs` (ended long since) go; answers how many. */
export async function deleteWindowsStartedBefore(ctx: ServiceContext, beforeMs: number): Promise<number> {
  const deleted = await ctx.db
    .deleteFrom('rate_limit_windows')
    .where('window_start_ms', '<', beforeMs)
    .executeTakeFirst()
  return Number(deleted.numDeletedRows)
}

/** `bucket`'s window as it stands, without counting a hit; undefined when it was never hit (or pruned). */
export async function findWindow(ctx: ServiceContext, bucket: string) {
  return ctx.db
    .selectFrom('rate_limit_windows')
    .select(['window_start_ms', 'hits'])
    .where('bucket', '=', bucket)
    .executeTakeFirst()
}

/** Hits so far in `bucket`'s window, and when it started; undefined when it has none or it ended. */
export async function readWindow(ctx: ServiceContext, bucket: string, nowMs: number, windowMs: number) {
  const row = await findWindow(ctx, bucket)
  if (!row || Number(row.window_start_ms) + windowMs <= nowMs) return undefined
  return { startMs: Number(row.window_start_ms), hits: Number(row.hits) }
}
