import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { finalResults, isoOfMs, msOfIso } from './result-rows.ts'

/** Since when each check's status holds, and whether it changed since it was read: the dashboard's status reads. */

const STATUS_OF_ROW = sql<string>`case when r.has_failures then 'failing' when r.is_degraded then 'degraded' else 'passing' end`

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
  // `>=`: a ping in the millisecond of the missed deadline before it is the later result (see `latestResults` in check-results.repo.ts).
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
