import type { CheckResultsTable, Engine, ResultsTable } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { compactDetailBytes, detailOfCompactBytes } from './compact-detail-bytes.ts'

/**
 * How a result row is stored in `results` (migration 0035) and read back: a UUID id as its 16 bytes on
 * SQLite, times as milliseconds (stop and creation after the start), the check by a short key, a job
 * id without the check id it names, and on SQLite a compact detail as bytes (compact-detail-bytes.ts). Readers see `CheckResultsTable` rows, as before.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** An id as `results.id` holds it: on SQLite a (lower-case) UUID as 16 bytes, else the text. */
export function storedIdOf(engine: Engine, id: string): string | Uint8Array {
  return engine === 'sqlite' && UUID.test(id) ? Buffer.from(id.replaceAll('-', ''), 'hex') : id
}

export function idOfStored(id: string | Uint8Array): string {
  if (typeof id === 'string') return id
  const hex = Buffer.from(id.buffer, id.byteOffset, id.byteLength).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * A job id as `results.job` holds it: `<due>:<check id>:<location>` loses its check id (`<due>::<location>`);
 * a job id not naming the check, or holding `::` already, is kept whole after a `=`.
 */
export function storedJobOf(jobId: string, checkId: string): string {
  const named = jobId.indexOf(`:${checkId}:`)
  if (named < 0 || jobId.includes('::')) return `=${jobId}`
  return `${jobId.slice(0, named)}::${jobId.slice(named + checkId.length + 2)}`
}

export function jobIdOfStored(job: string, checkId: string): string {
  if (job.startsWith('=')) return job.slice(1)
  const at = job.indexOf('::')
  return `${job.slice(0, at)}:${checkId}:${job.slice(at + 2)}`
}

/**
 * The (stored job, check id) pairs a job id can be stored as, whatever check it names: the whole id, or
 * the id without one of its `:`-separated parts as that check's id.
 */
export function storedJobsOf(jobId: string): { job: string; checkId?: string }[] {
  const forms: { job: string; checkId?: string }[] = [{ job: `=${jobId}` }]
  if (jobId.includes('::')) return forms
  const parts = jobId.split(':')
  for (let i = 1; i < parts.length - 1; i++) {
    const checkId = parts[i] as string
    if (checkId === '') continue
    forms.push({ job: `${parts.slice(0, i).join(':')}::${parts.slice(i + 1).join(':')}`, checkId })
  }
  return forms
}

export const msOfIso = (iso: string): number => Date.parse(iso)
export const isoOfMs = (ms: number | string): string => new Date(Number(ms)).toISOString()

/** The row to insert for `row`, its check's key known. */
export function storedRowOf(
  engine: Engine,
  row: CheckResultsTable,
  checkKey: number,
  detail: string,
): Omit<ResultsTable, 'key'> {
  const startedMs = msOfIso(row.started_at)
  return {
    id: storedIdOf(engine, row.id),
    check_key: checkKey,
    job: storedJobOf(row.job_id, row.check_id),
    check_type: row.check_type,
    run_location: row.run_location,
    started_ms: startedMs,
    stopped_after_ms: msOfIso(row.stopped_at) - startedMs,
    created_after_ms: msOfIso(row.created_at) - startedMs,
    response_time: row.response_time,
    has_failures: row.has_failures,
    has_errors: row.has_errors,
    is_degraded: row.is_degraded,
    over_max_response_time: row.over_max_response_time,
    attempts: row.attempts,
    result_type: row.result_type,
    error_type: row.error_type,
    error_message: row.error_message,
    status_code: row.status_code,
    detail: (engine === 'sqlite' && detail.startsWith('[') && compactDetailBytes(detail)) || detail,
    is_cancelled: row.is_cancelled,
  }
}

/** A stored detail as text: a compact one SQLite holds as bytes read back as its JSON. */
export const readableDetailOf = (detail: string | Uint8Array): string =>
  typeof detail === 'string' ? detail : detailOfCompactBytes(detail)

/** `results` with its check's id and account: every read of whole rows starts here. */
export function readableResults(ctx: ServiceContext) {
  return ctx.db
    .selectFrom('results as r')
    .innerJoin('result_checks as rc', 'rc.key', 'r.check_key')
    .innerJoin('checks as c', 'c.id', 'rc.check_id')
}

/** Final results of the checks: the status and count reads count no cancelled run. */
export function finalResults(ctx: ServiceContext) {
  return ctx.db
    .selectFrom('results as r')
    .innerJoin('result_checks as rc', 'rc.key', 'r.check_key')
    .where('r.result_type', '=', 'FINAL')
    .where('r.is_cancelled', '=', false)
}

/** The columns `readableRow` reads. */
export const READABLE_COLUMNS = [
  'r.id',
  'r.job',
  'rc.check_id',
  'c.account_id',
  'r.check_type',
  'r.run_location',
  'r.started_ms',
  'r.stopped_after_ms',
  'r.created_after_ms',
  'r.response_time',
  'r.has_failures',
  'r.has_errors',
  'r.is_degraded',
  'r.over_max_response_time',
  'r.attempts',
  'r.result_type',
  'r.error_type',
  'r.error_message',
  'r.status_code',
  'r.detail',
  'r.is_cancelled',
] as const

type ReadRow = Omit<ResultsTable, 'key' | 'check_key'> & { check_id: string; account_id: string }

export function readableRow(row: ReadRow): CheckResultsTable {
  const startedMs = Number(row.started_ms)
  return {
    id: idOfStored(row.id),
    job_id: jobIdOfStored(row.job, row.check_id),
    check_id: row.check_id,
    account_id: row.account_id,
    check_type: row.check_type,
    run_location: row.run_location,
    started_at: isoOfMs(startedMs),
    stopped_at: isoOfMs(startedMs + Number(row.stopped_after_ms)),
    response_time: row.response_time,
    has_failures: row.has_failures,
    has_errors: row.has_errors,
    is_degraded: row.is_degraded,
    over_max_response_time: row.over_max_response_time,
    attempts: row.attempts,
    result_type: row.result_type,
    error_type: row.error_type,
    error_message: row.error_message,
    status_code: row.status_code,
    detail: readableDetailOf(row.detail),
    created_at: isoOfMs(startedMs + Number(row.created_after_ms)),
    is_cancelled: row.is_cancelled,
  }
}

/** The keys of `checkIds` in `result_checks`, each made on its first result. */
export async function checkKeysOf(ctx: ServiceContext, checkIds: string[]): Promise<Map<string, number>> {
  const ids = [...new Set(checkIds)].sort()
  if (ids.length === 0) return new Map()
  const known = async () =>
    ctx.db.selectFrom('result_checks').select(['key', 'check_id']).where('check_id', 'in', ids).execute()
  let rows = await known()
  if (rows.length < ids.length) {
    const have = new Set(rows.map((row) => row.check_id))
    await ctx.db
      .insertInto('result_checks')
      .values(ids.filter((id) => !have.has(id)).map((check_id) => ({ check_id })))
      .onConflict((oc) => oc.column('check_id').doNothing())
      .execute()
    rows = await known()
  }
  return new Map(rows.map((row) => [row.check_id, Number(row.key)]))
}

/** `started_ms / 86400000`: the UTC day number of a result's start (integer division on both engines). */
export const DAY_OF_START = sql<number>`r.started_ms / 86400000`
export const isoDayOf = (day: number | string): string => isoOfMs(Number(day) * 86_400_000).slice(0, 10)
