import type { CheckResultsTable, Database, ResultChecksTable, ResultsTable } from '@svc/db'
import { fetchPage } from '@svc/db'
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { withCopiedDetails } from './kept-details.repo.ts'
import {
  DAY_OF_START,
  finalResults,
  isoDayOf,
  msOfIso,
  READABLE_COLUMNS,
  readableResults,
  readableRow,
} from './result-rows.ts'
import { withReadableDetail } from './stored-detail.ts'

/** Final results over a time range: daily counts (status pages), pages of them (analytics), those around a time (RCA). */

/** Final results per check and UTC day (`YYYY-MM-DD`) since `sinceIso`, and how many of them failed. */
export async function dailyFinalCounts(ctx: ServiceContext, checkIds: string[], sinceIso: string) {
  return dailyFinalCountsWhere(ctx, checkIds, (eb) => eb('r.started_ms', '>=', msOfIso(sinceIso)))
}

/**
 * `dailyFinalCounts` of the runs of `checkIds` that started within one of `intervals` ([from, to) ISO
 * pairs): the runs during maintenance windows, for the status page.
 */
export async function dailyFinalCountsWithin(
  ctx: ServiceContext,
  checkIds: string[],
  intervals: [string, string][],
) {
  if (intervals.length === 0) return []
  return dailyFinalCountsWhere(ctx, checkIds, (eb) =>
    eb.or(
      intervals.map(([from, to]) =>
        eb.and([eb('r.started_ms', '>=', msOfIso(from)), eb('r.started_ms', '<', msOfIso(to))]),
      ),
    ),
  )
}

type ResultsOfChecks = Database & { r: ResultsTable; rc: ResultChecksTable }

async function dailyFinalCountsWhere(
  ctx: ServiceContext,
  checkIds: string[],
  started: (eb: ExpressionBuilder<ResultsOfChecks, 'r' | 'rc'>) => Expression<SqlBool>,
) {
  if (checkIds.length === 0) return []
  const rows = await finalResults(ctx)
    .select([
      'rc.check_id',
      DAY_OF_START.as('day'),
      sql<number>`count(*)`.as('total'),
      sql<number>`sum(case when r.has_failures then 1 else 0 end)`.as('failed'),
    ])
    .where('rc.check_id', 'in', checkIds)
    .where(started)
    .groupBy(['rc.check_id', DAY_OF_START])
    .execute()
  return rows.map((r) => ({
    checkId: r.check_id,
    day: isoDayOf(r.day),
    total: Number(r.total),
    failed: Number(r.failed),
  }))
}
/**
 * One page of a check's final results started in [fromIso, toIso), oldest first: the raw points of
 * analytics queries for bare metric names.
 */
export async function finalResultsPage(
  ctx: ServiceContext,
  checkId: string,
  filter: { fromIso: string; toIso: string; hasFailures?: boolean },
  page: { limit: number; offset: number },
) {
  let query = readableResults(ctx)
    .where('rc.check_id', '=', checkId)
    .where('r.result_type', '=', 'FINAL')
    .where('r.is_cancelled', '=', false)
    .where('r.started_ms', '>=', msOfIso(filter.fromIso))
    .where('r.started_ms', '<', msOfIso(filter.toIso))
  if (filter.hasFailures !== undefined) query = query.where('r.has_failures', '=', filter.hasFailures)
  const { rows, total } = await fetchPage(
    query,
    (q) => q.select(READABLE_COLUMNS).orderBy('r.started_ms').orderBy('r.id'),
    page,
  )
  return { rows: rows.map((row) => withReadableDetail(readableRow(row))), total }
}

/** Up to `limit` final results of a check on one side of `atIso` (RCA evidence), nearest first. */
export async function finalResultsAround(
  ctx: ServiceContext,
  checkId: string,
  atIso: string,
  side: 'before' | 'from',
  limit: number,
  location?: string,
) {
  let query = readableResults(ctx)
    .select(READABLE_COLUMNS)
    .where('rc.check_id', '=', checkId)
    .where('r.result_type', '=', 'FINAL')
    .where('r.is_cancelled', '=', false)
    .where('r.started_ms', side === 'before' ? '<' : '>=', msOfIso(atIso))
  if (location) query = query.where('r.run_location', '=', location)
  const rows = await query
    .orderBy('r.started_ms', side === 'before' ? 'desc' : 'asc')
    .limit(limit)
    .execute()
  return withCopiedDetails(ctx, rows.map(readableRow))
}

/**
 * A check's results that analytics folds (final, not cancelled) started in [fromMs, toMs), other than of
 * `exceptType`, oldest first, compact details expanded: analytics answers minute buckets from them.
 */
export async function foldedResultsBetween(
  ctx: ServiceContext,
  checkId: string,
  range: { fromMs: number; toMs: number },
  exceptType: string,
): Promise<CheckResultsTable[]> {
  const rows = await readableResults(ctx)
    .select(READABLE_COLUMNS)
    .where('rc.check_id', '=', checkId)
    .where('r.started_ms', '>=', range.fromMs)
    .where('r.started_ms', '<', range.toMs)
    .where('r.result_type', '=', 'FINAL')
    .where('r.is_cancelled', '=', false)
    .where('r.check_type', '<>', exceptType)
    .orderBy('r.started_ms')
    .orderBy('r.key')
    .execute()
  return rows.map((row) => withReadableDetail(readableRow(row)))
}
