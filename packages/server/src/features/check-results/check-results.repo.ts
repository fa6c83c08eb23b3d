import {
  type CheckResultsTable,
  type Database,
  fetchPage,
  type ResultChecksTable,
  type ResultsTable,
} from '@svc/db'
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { withCopiedDetails } from './kept-details.repo.ts'
import {
  checkKeysOf,
  DAY_OF_START,
  idOfStored,
  isoDayOf,
  jobIdOfStored,
  msOfIso,
  READABLE_COLUMNS,
  readableResults,
  readableRow,
  storedIdOf,
  storedJobsOf,
  storedRowOf,
} from './result-rows.ts'
import { storedDetailOf, withReadableDetail } from './stored-detail.ts'

/**
 * The only SQL for stored results (`results`, see result-rows.ts). Results are written through runs/store.ts, which folds them. A
 * passing result's detail may be stored compact (stored-detail.ts): every read here expands it, and the
 * reads that show a result's request and response copy them from the result kept in full it repeats.
 */

/** Inserts `rows` in one statement, skipping any whose job id has a result already; answers the ids inserted. */
export async function insertResults(ctx: ServiceContext, rows: CheckResultsTable[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set()
  const keys = await checkKeysOf(
    ctx,
    rows.map((row) => row.check_id),
  )
  const inserted = await ctx.db
    .insertInto('results')
    .values(
      rows.map((row) => storedRowOf(ctx.engine, row, keys.get(row.check_id) as number, storedDetailOf(row))),
    )
    // No conflict target: a result posted twice at once has the same id as well as the same job id, and
    // PostgreSQL only waits out concurrent inserts on the indexes a target names (the id's raised 23505).
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .execute()
  return new Set(inserted.map((row) => idOfStored(row.id)))
}

export interface ResultFilter {
  fromIso?: string
  toIso?: string
  location?: string
  hasFailures?: boolean
  resultType?: string
}

export async function listResults(
  ctx: ServiceContext,
  checkId: string,
  filter: ResultFilter,
  page: { limit: number; offset: number },
) {
  let query = readableResults(ctx).where('rc.check_id', '=', checkId)
  if (filter.fromIso) query = query.where('r.started_ms', '>=', msOfIso(filter.fromIso))
  if (filter.toIso) query = query.where('r.started_ms', '<=', msOfIso(filter.toIso))
  if (filter.location) query = query.where('r.run_location', '=', filter.location)
  if (filter.hasFailures !== undefined) query = query.where('r.has_failures', '=', filter.hasFailures)
  if (filter.resultType) query = query.where('r.result_type', '=', filter.resultType)
  const { rows, total } = await fetchPage(
    query,
    (q) =>
      q
        .select(READABLE_COLUMNS)
        .orderBy('r.started_ms', 'desc')
        .orderBy(MISSED_DEADLINE_LAST)
        .orderBy('r.id'),
    page,
  )
  return { rows: await withCopiedDetails(ctx, rows.map(readableRow)), total }
}

export async function findResultByJobId(ctx: ServiceContext, jobId: string) {
  const [row] = await findResultsByJobIds(ctx, [jobId])
  return row && { id: row.id }
}

/** The stored results of `jobIds`: which check each is of and where it ran. */
export async function findResultsByJobIds(ctx: ServiceContext, jobIds: string[]) {
  if (jobIds.length === 0) return []
  const forms = jobIds.flatMap(storedJobsOf)
  const rows = await ctx.db
    .selectFrom('results as r')
    .innerJoin('result_checks as rc', 'rc.key', 'r.check_key')
    .select(['r.id', 'r.job', 'rc.check_id', 'r.run_location'])
    .where((eb) =>
      eb.or(
        forms.map(({ job, checkId }) =>
          checkId === undefined
            ? eb('r.job', '=', job)
            : eb.and([eb('r.job', '=', job), eb('rc.check_id', '=', checkId)]),
        ),
      ),
    )
    .execute()
  return rows.map((row) => ({
    id: idOfStored(row.id),
    job_id: jobIdOfStored(row.job, row.check_id),
    check_id: row.check_id,
    run_location: row.run_location,
  }))
}

/** The stored results of `ids`: which job each is of. */
export async function findResultsByIds(ctx: ServiceContext, ids: string[]) {
  if (ids.length === 0) return []
  const rows = await ctx.db
    .selectFrom('results as r')
    .innerJoin('result_checks as rc', 'rc.key', 'r.check_key')
    .select(['r.id', 'r.job', 'rc.check_id'])
    .where(
      'r.id',
      'in',
      ids.map((id) => storedIdOf(ctx.engine, id)),
    )
    .execute()
  return rows.map((row) => ({ id: idOfStored(row.id), job_id: jobIdOfStored(row.job, row.check_id) }))
}

/** Whether a result with this id is stored, whatever its check. */
export async function isResultStored(ctx: ServiceContext, resultId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('results')
    .select('key')
    .where('id', '=', storedIdOf(ctx.engine, resultId))
    .executeTakeFirst()
  return row !== undefined
}

export async function findResult(ctx: ServiceContext, checkId: string, resultId: string) {
  const row = await readableResults(ctx)
    .select(READABLE_COLUMNS)
    .where('rc.check_id', '=', checkId)
    .where('r.id', '=', storedIdOf(ctx.engine, resultId))
    .executeTakeFirst()
  return row && (await withCopiedDetails(ctx, [readableRow(row)]))[0]
}

const STATUS_OF_ROW = sql<string>`case when r.has_failures then 'failing' when r.is_degraded then 'degraded' else 'passing' end`

/**
 * Orders results of one millisecond: a heartbeat's missed deadline (dated at the deadline) after a ping
 * of that millisecond, which arrived by the deadline, so the ping is the later result and the check's
 * status. Else the result ids' order (time-ordered), for a deterministic answer.
 */
const MISSED_DEADLINE_LAST = sql<number>`case when r.check_type = 'HEARTBEAT' and r.error_type = 'TIMEOUT' then 1 else 0 end`

/** Final results of the checks: the reads below count no cancelled run. */
function finalResults(ctx: ServiceContext) {
  return ctx.db
    .selectFrom('results as r')
    .innerJoin('result_checks as rc', 'rc.key', 'r.check_key')
    .where('r.result_type', '=', 'FINAL')
    .where('r.is_cancelled', '=', false)
}

/** The latest final result of each of `checkIds`, one each. */
export async function latestResults(ctx: ServiceContext, checkIds: string[]) {
  if (checkIds.length === 0) return []
  const rows = await readableResults(ctx)
    .innerJoin(
      (eb) =>
        eb
          .selectFrom('results')
          .select(['check_key', (e) => e.fn.max('started_ms').as('latest')])
          .where('check_key', 'in', (e) =>
            e.selectFrom('result_checks').select('key').where('check_id', 'in', checkIds),
          )
          .where('result_type', '=', 'FINAL')
          .where('is_cancelled', '=', false)
          .groupBy('check_key')
          .as('l'),
      (join) => join.onRef('l.check_key', '=', 'r.check_key').onRef('l.latest', '=', 'r.started_ms'),
    )
    .select(READABLE_COLUMNS)
    .where('r.result_type', '=', 'FINAL')
    .where('r.is_cancelled', '=', false)
    // Results of the latest millisecond in the order `listResults` gives them: the first of each wins.
    .orderBy('rc.check_id')
    .orderBy(MISSED_DEADLINE_LAST)
    .orderBy('r.id')
    .execute()
  const first = new Map<string, (typeof rows)[number]>()
  for (const row of rows) if (!first.has(row.check_id)) first.set(row.check_id, row)
  return [...first.values()].map((row) => withReadableDetail(readableRow(row)))
}

/** When the check's current status began: the first final result after the last one of another status. */
export async function currentStatusSince(
  ctx: ServiceContext,
  checkId: string,
  status: string,
): Promise<string | null> {
  const finals = finalResults(ctx).where('rc.check_id', '=', checkId)
  const lastOther = await finals
    .select('r.started_ms')
    .where(STATUS_OF_ROW, '!=', status)
    .orderBy('r.started_ms', 'desc')
    .limit(1)
    .executeTakeFirst()
  let streak = finals.select('r.started_ms').where(STATUS_OF_ROW, '=', status)
  // `>=`: a ping in the millisecond of the missed deadline before it is the later result (see `latestResults`).
  if (lastOther) streak = streak.where('r.started_ms', '>=', lastOther.started_ms)
  const first = await streak.orderBy('r.started_ms').limit(1).executeTakeFirst()
  return first ? isoOfMs(first.started_ms) : null
}

/**
 * `currentStatusSince` of many checks at once (`current`: each check's current status): two statements
 * whatever the number of checks, each status matched per check by a CASE on its id.
 */
export async function currentStatusesSince(
  ctx: ServiceContext,
  current: Map<string, string>,
): Promise<Map<string, string>> {
  const since = new Map<string, string>()
  const ids = [...current.keys()]
  for (let at = 0; at < ids.length; at += STATUS_SINCE_CHECKS_PER_QUERY) {
    const chunk = ids.slice(at, at + STATUS_SINCE_CHECKS_PER_QUERY)
    const statusOfCheck = caseOfCheck(chunk.map((id) => [id, current.get(id) as string]))
    const finals = finalResults(ctx).where('rc.check_id', 'in', chunk)
    const lastOthers = await finals
      .select(['rc.check_id', (eb) => eb.fn.max('r.started_ms').as('at')])
      .where(STATUS_OF_ROW, '!=', statusOfCheck)
      .groupBy('rc.check_id')
      .execute()
    const lastOther = new Map(lastOthers.map((row) => [row.check_id, Number(row.at)]))
    // `>=` as in `currentStatusSince`; with no other status, from the first result.
    const floor = caseOfCheckMs(chunk.map((id) => [id, lastOther.get(id) ?? BEFORE_ANY_RESULT]))
    const streaks = await finals
      .select(['rc.check_id', (eb) => eb.fn.min('r.started_ms').as('at')])
      .where(STATUS_OF_ROW, '=', statusOfCheck)
      .where('r.started_ms', '>=', floor)
      .groupBy('rc.check_id')
      .execute()
    for (const row of streaks) if (row.at !== null) since.set(row.check_id, isoOfMs(row.at))
  }
  return since
}

const STATUS_SINCE_CHECKS_PER_QUERY = 500
const BEFORE_ANY_RESULT = -8_640_000_000_000_000
const isoOfMs = (ms: number | string) => new Date(Number(ms)).toISOString()

/**
 * The checks among `held` (check id → the status it had and the time from which to look) with a final
 * result of another status at or after that time: their status changed since it was last read. One
 * statement per 500 checks; it reads only the results since each check's time.
 */
export async function statusesBrokenSince(
  ctx: ServiceContext,
  held: Map<string, { status: string; fromIso: string }>,
): Promise<Set<string>> {
  const broken = new Set<string>()
  const ids = [...held.keys()]
  for (let at = 0; at < ids.length; at += STATUS_SINCE_CHECKS_PER_QUERY) {
    const chunk = ids.slice(at, at + STATUS_SINCE_CHECKS_PER_QUERY)
    const entries = chunk.map((id) => [id, held.get(id) as { status: string; fromIso: string }] as const)
    const rows = await finalResults(ctx)
      .select('rc.check_id')
      .distinct()
      .where('rc.check_id', 'in', chunk)
      .where('r.started_ms', '>=', caseOfCheckMs(entries.map(([id, entry]) => [id, msOfIso(entry.fromIso)])))
      .where(STATUS_OF_ROW, '!=', caseOfCheck(entries.map(([id, entry]) => [id, entry.status])))
      .execute()
    for (const row of rows) broken.add(row.check_id)
  }
  return broken
}

/** `case check_id when <id> then <value> ... end`: a value per check inside one statement. */
function caseOfCheck(pairs: [string, string][]) {
  const whens = pairs.map(([id, value]) => sql`when ${id} then ${value}`)
  return sql<string>`case rc.check_id ${sql.join(whens, sql` `)} end`
}

/** `caseOfCheck` of times in milliseconds (cast: PostgreSQL would take untyped parameters for text). */
function caseOfCheckMs(pairs: [string, number][]) {
  const whens = pairs.map(([id, ms]) => sql`when ${id} then cast(${ms} as bigint)`)
  return sql<number>`case rc.check_id ${sql.join(whens, sql` `)} end`
}

/** Deletes an account's results that started before `beforeIso`; returns how many went. */
export async function deleteResultsBefore(
  ctx: ServiceContext,
  accountId: string,
  beforeIso: string,
): Promise<number> {
  const result = await ctx.db
    .deleteFrom('results')
    .where('check_key', 'in', (eb) =>
      eb
        .selectFrom('result_checks as rc')
        .innerJoin('checks as c', 'c.id', 'rc.check_id')
        .select('rc.key')
        .where('c.account_id', '=', accountId),
    )
    .where('started_ms', '<', msOfIso(beforeIso))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

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

export interface PreviousResult {
  started_at: string
  has_failures: boolean
  error_type: string | null
}

/**
 * For each heartbeat check, its result that started just before the given time (heartbeat analytics:
 * the time since the last ping): one index seek per check, in one statement whose text is the same for
 * any number of checks (the pairs go in as one JSON or two array parameters), so it is parsed once.
 * A heartbeat's results are all final, so the seek needs no filter beyond the index: with one, PostgreSQL
 * planned a scan of each check's every result.
 */
export async function previousHeartbeatResults(
  ctx: ServiceContext,
  before: { checkId: string; beforeIso: string }[],
): Promise<Map<string, PreviousResult>> {
  if (before.length === 0) return new Map()
  // PostgreSQL walks the index backwards per check through a lateral join; SQLite has no LATERAL, but
  // plans its correlated subquery as one seek per check.
  const query =
    ctx.engine === 'postgres'
      ? sql<PreviousResultRow>`
          select wanted.check_id, p.started_ms, p.has_failures, p.error_type
          from unnest(${before.map((b) => b.checkId)}::text[], ${before.map((b) => msOfIso(b.beforeIso))}::bigint[])
            as wanted(check_id, before_ms)
          join result_checks rc on rc.check_id = wanted.check_id
          cross join lateral (
            select started_ms, has_failures, error_type from results
            where check_key = rc.key and started_ms < wanted.before_ms
            order by started_ms desc limit 1
          ) as p`
      : sql<PreviousResultRow>`
          select rc.check_id, r.started_ms, r.has_failures, r.error_type
          from json_each(${JSON.stringify(before.map((b) => [b.checkId, msOfIso(b.beforeIso)]))}) as wanted
          join result_checks rc on rc.check_id = wanted.value ->> 0
          join results r on r.key = (
            select key from results
            where check_key = rc.key and started_ms < wanted.value ->> 1
            order by started_ms desc limit 1)`
  const { rows } = await query.execute(ctx.db)
  return new Map(
    rows.map((row) => [
      row.check_id,
      {
        started_at: isoOfMs(row.started_ms),
        has_failures: Boolean(row.has_failures),
        error_type: row.error_type,
      },
    ]),
  )
}

interface PreviousResultRow {
  check_id: string
  started_ms: number | string
  has_failures: SqlBool
  error_type: string | null
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
