import type { CheckResultsTable } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { idOfStored, readableDetailOf } from './result-rows.ts'
import {
  copiedDetail,
  isCompact,
  KEPT_WITHIN_MS,
  signatureOfCompact,
  signatureOfFull,
  withReadableDetail,
} from './stored-detail.ts'

/** Reads of stored results for check-results.repo.ts: the results kept in full that compact ones repeat. */

/**
 * `rows` with each compact detail completed from the result kept in full it repeats (the latest of its
 * check and location before it, within the hour, with the same hash); one statement per check and
 * location. A row whose kept one is gone (retention) shows its timings only.
 */
export async function withCopiedDetails<Row extends CheckResultsTable>(
  ctx: ServiceContext,
  rows: Row[],
): Promise<Row[]> {
  const spans = new Map<string, { checkId: string; location: string; from: string; to: string }>()
  for (const row of rows) {
    if (!isCompact(row)) continue
    const key = `${row.check_id}|${row.run_location}`
    const span = spans.get(key)
    if (!span)
      spans.set(key, {
        checkId: row.check_id,
        location: row.run_location,
        from: row.started_at,
        to: row.started_at,
      })
    else {
      if (row.started_at < span.from) span.from = row.started_at
      if (row.started_at > span.to) span.to = row.started_at
    }
  }
  const keptOf = new Map<string, Pick<CheckResultsTable, 'id' | 'detail' | 'check_type' | 'started_at'>[]>()
  for (const [key, span] of spans) {
    const kept = await ctx.db
      .selectFrom('results as r')
      .innerJoin('result_checks as rc', 'rc.key', 'r.check_key')
      .select(['r.id', 'r.detail', 'r.check_type', 'r.started_ms'])
      .where('rc.check_id', '=', span.checkId)
      .where('r.run_location', '=', span.location)
      .where('r.started_ms', '>=', Date.parse(span.from) - KEPT_WITHIN_MS)
      .where('r.started_ms', '<=', Date.parse(span.to))
      // Kept in full: not compact (a JSON array, or bytes on SQLite).
      .where('r.detail', 'not like', '[%')
      .$if(ctx.engine === 'sqlite', (q) => q.where(sql`typeof(r.detail)`, '=', 'text'))
      .orderBy('r.started_ms', 'desc')
      .execute()
    keptOf.set(
      key,
      kept.map((row) => ({
        id: idOfStored(row.id),
        detail: readableDetailOf(row.detail),
        check_type: row.check_type,
        started_at: new Date(Number(row.started_ms)).toISOString(),
      })),
    )
  }
  return rows.map((row) => {
    const signature = signatureOfCompact(row)
    if (signature === undefined) return withReadableDetail(row)
    const kept = (keptOf.get(`${row.check_id}|${row.run_location}`) ?? []).find(
      (candidate) => candidate.started_at <= row.started_at && signatureOfFull(candidate) === signature,
    )
    return kept ? copiedDetail(row, kept) : withReadableDetail(row)
  })
}
