import { type CheckResultsTable, type Database, fetchPage } from '@svc/db'
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { withCopiedDetails } from './kept-details.repo.ts'
import { storedDetailOf, withReadableDetail } from './stored-detail.ts'

/**
 * The only SQL for `check_results`. Results are written through runs/store.ts, which folds them. A
 * passing result's detail may be stored compact (stored-detail.ts): every read here expands it, and the
 * reads that show a result's request and response copy them from the result kept in full it repeats.
 */

/** Inserts `rows` in one statement, skipping any whose job id has a result already; answers the ids inserted. */
export async function insertResults(ctx: ServiceContext, rows: CheckResultsTable[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set()
  const inserted = await ctx.db
    .insertInto('check_results')
    .values(rows.map((row) => ({ ...row, detail: storedDetailOf(row) })))
    // No conflict target: a result posted twice at once has the same id as well as the same job id, and
    // PostgreSQL only waits out concurrent inserts on the indexes a target names (the id's raised 23505).
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .execute()
  return new Set(inserted.map((row) => row.id))
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
  let query = ctx.db.selectFrom('check_results').where('check_id', '=', checkId)
  if (filter.fromIso) query = query.where('started_at', '>=', filter.fromIso)
  if (filter.toIso) query = query.where('started_at', '<=', filter.toIso)
  if (filter.location) query = query.where('run_location', '=', filter.location)
  if (filter.hasFailures !== undefined) query = query.where('has_failures', '=', filter.hasFailures)
  if (filter.resultType) query = query.where('result_type', '=', filter.resultType)
  const { rows, total } = await fetchPage(
    query,
    (q) => q.selectAll().orderBy('started_at', 'desc').orderBy(MISSED_DEADLINE_LAST).orderBy('id'),
    page,
  )
  return { rows: await withCopiedDetails(ctx, rows), total }
}

export async function findResultByJobId(ctx: ServiceContext, jobId: string) {
  return ctx.db.selectFrom('check_results').select(['id']).where('job_id', '=', jobId).executeTakeFirst()
}

/** The stored results of `jobIds`: which check each is of and where it ran. */
export async function findResultsByJobIds(ctx: ServiceContext, jobIds: string[]) {
  if (jobIds.length === 0) return []
  return ctx.db
    .selectFrom('check_results')
    .select(['job_id', 'check_id', 'run_location'])
    .where('job_id', 'in', jobIds)
    .execute()
}

/** The stored results of `ids`: which job each is of. */
export async function findResultsByIds(ctx: ServiceContext, ids: string[]) {
  if (ids.length === 0) return []
  return ctx.db.selectFrom('check_results').select(['id', 'job_id']).where('id', 'in', ids).execute()
}

/** Whether a result with this id is stored, whatever its check. */
export async function isResultStored(ctx: ServiceContext, resultId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('check_results')
    .select('id')
    .where('id', '=', resultId)
    .executeTakeFirst()
  return row !== undefined
}

export async function findResult(ctx: ServiceContext, checkId: string, resultId: string) {
  const row = await ctx.db
    .selectFrom('check_results')
    .selectAll()
    .where('check_id', '=', checkId)
    .where('id', '=', resultId)
    .executeTakeFirst()
  return row && (await withCopiedDetails(ctx, [row]))[0]
}

const STATUS_OF_ROW = sql<string>`case when has_failures then 'failing' when is_degraded then 'degraded' else 'passing' end`

/**
 * Orders results of one millisecond: a heartbeat's missed deadline (dated at the deadline) after a ping
 * of that millisecond, which arrived by the deadline, so the ping is the later result and the check's
 * status. Else the result ids' order (time-ordered), for a deterministic answer.
 */
const MISSED_DEADLINE_LAST = sql<number>`case when check_type = 'HEARTBEAT' and error_type = 'TIMEOUT' then 1 else 0 end`

/** The latest final result of each of `checkIds`, one each. Cancelled runs count for none of the reads below. */
export async function latestResults(ctx: ServiceContext, checkIds: string[]) {
  if (checkIds.length === 0) return []
  const rows = await ctx.db
    .selectFrom('check_results as r')
    .innerJoin(
      (eb) =>
        eb
          .selectFrom('check_results')
          .select(['check_id', (e) => e.fn.max('started_at').as('latest')])
          .where('check_id', 'in', checkIds)
          .where('result_type', '=', 'FINAL')
          .where('is_cancelled', '=', false)
          .groupBy('check_id')
          .as('l'),
      (join) => join.onRef('l.check_id', '=', 'r.check_id').onRef('l.latest', '=', 'r.started_at'),
    )
    .selectAll('r')
    .where('r.result_type', '=', 'FINAL')
    .where('r.is_cancelled', '=', false)
    // Results of the latest millisecond in the order `listResults` gives them: the first of each wins.
    .orderBy('r.check_id')
    .orderBy(sql`case when r.check_type = 'HEARTBEAT' and r.error_type = 'TIMEOUT' then 1 else 0 end`)
    .orderBy('r.id')
    .execute()
  const first = new Map<string, (typeof rows)[number]>()
  for (const row of rows) if (!first.has(row.check_id)) first.set(row.check_id, row)
  return [...first.values()].map(withReadableDetail)
}

/** When the check's current status began: the first final result after the last one of another status. */
export async function currentStatusSince(
  ctx: ServiceContext,
  checkId: string,
  status: string,
): Promise<string | null> {
  const finals = ctx.db
    .selectFrom('check_results')
    .where('check_id', '=', checkId)
    .where('result_type', '=', 'FINAL')
    .where('is_cancelled', '=', false)
  const lastOther = await finals
    .select('started_at')
    .where(STATUS_OF_ROW, '!=', status)
    .orderBy('started_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  let streak = finals.select('started_at').where(STATUS_OF_ROW, '=', status)
  // `>=`: a ping in the millisecond of the missed deadline before it is the later result (see `latestResults`).
  if (lastOther) streak = streak.where('started_at', '>=', lastOther.started_at)
  const first = await streak.orderBy('started_at').limit(1).executeTakeFirst()
  return first?.started_at ?? null
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
    const finals = ctx.db
      .selectFrom('check_results')
      .where('check_id', 'in', chunk)
      .where('result_type', '=', 'FINAL')
      .where('is_cancelled', '=', false)
    const lastOthers = await finals
      .select(['check_id', (eb) => eb.fn.max('started_at').as('at')])
      .where(STATUS_OF_ROW, '!=', statusOfCheck)
      .groupBy('check_id')
      .execute()
    const lastOther = new Map(lastOthers.map((row) => [row.check_id, String(row.at)]))
    // `>=` as in `currentStatusSince`; '' is before every time.
    const floor = caseOfCheck(chunk.map((id) => [id, lastOther.get(id) ?? '']))
    const streaks = await finals
      .select(['check_id', (eb) => eb.fn.min('started_at').as('at')])
      .where(STATUS_OF_ROW, '=', statusOfCheck)
      .where('started_at', '>=', floor)
      .groupBy('check_id')
      .execute()
    for (const row of streaks) if (row.at !== null) since.set(row.check_id, String(row.at))
  }
  return since
}

const STATUS_SINCE_CHECKS_PER_QUERY = 500

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
    const rows = await ctx.db
      .selectFrom('check_results')
      .select('check_id')
      .distinct()
      .where('check_id', 'in', chunk)
      .where('result_type', '=', 'FINAL')
      .where('is_cancelled', '=', false)
      .where('started_at', '>=', caseOfCheck(entries.map(([id, entry]) => [id, entry.fromIso])))
      .where(STATUS_OF_ROW, '!=', caseOfCheck(entries.map(([id, entry]) => [id, entry.status])))
      .execute()
    for (const row of rows) broken.add(row.check_id)
  }
  return broken
}

/** `case check_id when <id> then <value> ... end`: a value per check inside one statement. */
function caseOfCheck(pairs: [string, string][]) {
  const whens = pairs.map(([id, value]) => sql`when ${id} then ${value}`)
  return sql<string>`case check_id ${sql.join(whens, sql` `)} end`
}

/** Deletes an account's results that started before `beforeIso`; returns how many went. */
export async function deleteResultsBefore(
  ctx: ServiceContext,
  accountId: string,
  beforeIso: string,
): Promise<number> {
  const result = await ctx.db
    .deleteFrom('check_results')
    .where('account_id', '=', accountId)
    .where('started_at', '<', beforeIso)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Final results per check and UTC day (`YYYY-MM-DD`) since `sinceIso`, and how many of them failed. */
export async function dailyFinalCounts(ctx: ServiceContext, checkIds: string[], sinceIso: string) {
  return dailyFinalCountsWhere(ctx, checkIds, (eb) => eb('started_at', '>=', sinceIso))
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
    eb.or(intervals.map(([from, to]) => eb.and([eb('started_at', '>=', from), eb('started_at', '<', to)]))),
  )
}

async function dailyFinalCountsWhere(
  ctx: ServiceContext,
  checkIds: string[],
  started: (eb: ExpressionBuilder<Database, 'check_results'>) => Expression<SqlBool>,
) {
  if (checkIds.length === 0) return []
  const day = sql<string>`substr(started_at, 1, 10)`
  const rows = await ctx.db
    .selectFrom('check_results')
    .select([
      'check_id',
      day.as('day'),
      sql<number>`count(*)`.as('total'),
      sql<number>`sum(case when has_failures then 1 else 0 end)`.as('failed'),
    ])
    .where('check_id', 'in', checkIds)
    .where('result_type', '=', 'FINAL')
    .where('is_cancelled', '=', false)
    .where(started)
    .groupBy(['check_id', day])
    .execute()
  return rows.map((r) => ({
    checkId: r.check_id,
    day: r.day,
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
          select p.check_id, p.started_at, p.has_failures, p.error_type
          from unnest(${before.map((b) => b.checkId)}::text[], ${before.map((b) => b.beforeIso)}::text[])
            as wanted(check_id, before_iso)
          cross join lateral (
            select check_id, started_at, has_failures, error_type from check_results
            where check_id = wanted.check_id and started_at < wanted.before_iso
            order by started_at desc limit 1
          ) as p`
      : sql<PreviousResultRow>`
          select r.check_id, r.started_at, r.has_failures, r.error_type
          from json_each(${JSON.stringify(before.map((b) => [b.checkId, b.beforeIso]))}) as wanted
          join check_results r on r.id = (
            select id from check_results
            where check_id = wanted.value ->> 0 and started_at < wanted.value ->> 1
            order by started_at desc limit 1)`
  const { rows } = await query.execute(ctx.db)
  return new Map(
    rows.map((row) => [
      row.check_id,
      { started_at: row.started_at, has_failures: Boolean(row.has_failures), error_type: row.error_type },
    ]),
  )
}

type PreviousResultRow = Pick<CheckResultsTable, 'check_id' | 'started_at' | 'has_failures' | 'error_type'>

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
  let query = ctx.db
    .selectFrom('check_results')
    .where('check_id', '=', checkId)
    .where('result_type', '=', 'FINAL')
    .where('is_cancelled', '=', false)
    .where('started_at', '>=', filter.fromIso)
    .where('started_at', '<', filter.toIso)
  if (filter.hasFailures !== undefined) query = query.where('has_failures', '=', filter.hasFailures)
  const { rows, total } = await fetchPage(
    query,
    (q) => q.selectAll().orderBy('started_at').orderBy('id'),
    page,
  )
  return { rows: rows.map(withReadableDetail), total }
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
  let query = ctx.db
    .selectFrom('check_results')
    .selectAll()
    .where('check_id', '=', checkId)
    .where('result_type', '=', 'FINAL')
    .where('is_cancelled', '=', false)
    .where('started_at', side === 'before' ? '<' : '>=', atIso)
  if (location) query = query.where('run_location', '=', location)
  const rows = await query
    .orderBy('started_at', side === 'before' ? 'desc' : 'asc')
    .limit(limit)
    .execute()
  return withCopiedDetails(ctx, rows)
}
