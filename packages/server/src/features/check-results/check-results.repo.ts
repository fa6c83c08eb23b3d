import { type CheckResultsTable, fetchPage } from '@svc/db'
import { type SqlBool, sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { withCopiedDetails } from './kept-details.repo.ts'
import {
  checkKeysOf,
  idOfStored,
  isoOfMs,
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
 * The SQL for stored results (`results`, see result-rows.ts), with result-statuses.repo.ts and final-results.repo.ts. Results are written through runs/store.ts, which folds them. A
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

/**
 * Orders results of one millisecond: a heartbeat's missed deadline (dated at the deadline) after a ping
 * of that millisecond, which arrived by the deadline, so the ping is the later result and the check's
 * status. Else the result ids' order (time-ordered), for a deterministic answer.
 */
const MISSED_DEADLINE_LAST = sql<number>`case when r.check_type = 'HEARTBEAT' and r.error_type = 'TIMEOUT' then 1 else 0 end`

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
