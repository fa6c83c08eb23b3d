import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { fallbackMsOf, raiseWakeup } from '../../wakeups.ts'

/** The only SQL for `check_alert_states`. Call inside a transaction: the rows stay locked until it ends. */

/**
 * Locks the alert states of `checkIds` (creating missing rows) and answers each check's stored state,
 * null when it has none yet. Rows are locked in check id order, so two transactions locking overlapping
 * sets never deadlock.
 */
export async function lockStates(
  ctx: ServiceContext,
  checkIds: string[],
  nowIso: string,
): Promise<Map<string, string | null>> {
  const ids = [...new Set(checkIds)].sort()
  if (ids.length === 0) return new Map()
  // Only PostgreSQL needs rows to lock; SQLite has one writer, and `saveStates` creates what is missing.
  if (ctx.engine === 'postgres') {
    await ctx.db
      .insertInto('check_alert_states')
      .values(ids.map((id) => ({ check_id: id, state: 'null', wake_at_ms: null, updated_at: nowIso })))
      .onConflict((oc) => oc.column('check_id').doNothing())
      .execute()
  }
  let query = ctx.db
    .selectFrom('check_alert_states')
    .select(['check_id', 'state'])
    .where('check_id', 'in', ids)
    .orderBy('check_id')
  if (ctx.engine === 'postgres') query = query.forUpdate()
  const rows = await query.execute()
  return new Map(rows.map((row) => [row.check_id, row.state !== 'null' ? row.state : null]))
}

export interface StateWrite {
  checkId: string
  state: string
  wakeAtMs: number | null
}

/** Writes the states of locked rows (see `lockStates`), all in one statement. */
export async function saveStates(ctx: ServiceContext, writes: StateWrite[], nowIso: string): Promise<void> {
  if (writes.length === 0) return
  await ctx.db
    .insertInto('check_alert_states')
    .values(
      writes.map((w) => ({
        check_id: w.checkId,
        state: w.state,
        wake_at_ms: w.wakeAtMs,
        updated_at: nowIso,
      })),
    )
    .onConflict((oc) =>
      oc.column('check_id').doUpdateSet((eb) => ({
        state: eb.ref('excluded.state'),
        wake_at_ms: eb.ref('excluded.wake_at_ms'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute()
  // Dispatchers look at the next wake-up at least once per fallback: only a sooner one must wake them.
  const soonMs = Date.parse(nowIso) + fallbackMsOf(ctx)
  if (writes.some((w) => w.wakeAtMs !== null && w.wakeAtMs < soonMs)) await raiseWakeup(ctx, 'alerts')
}

/** The earliest time a state asked to be looked at again; undefined when none did. */
export async function nextStateWakeMs(ctx: ServiceContext): Promise<number | undefined> {
  const row = await ctx.db
    .selectFrom('check_alert_states')
    .select((eb) => eb.fn.min('wake_at_ms').as('wake'))
    .executeTakeFirst()
  return row?.wake == null ? undefined : Number(row.wake)
}

/** Checks whose state asked to be looked at again by now. */
export async function dueStates(ctx: ServiceContext, nowMs: number, limit: number): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('check_alert_states')
    .select('check_id')
    .where('wake_at_ms', '<=', nowMs)
    .orderBy('wake_at_ms')
    .limit(limit)
    .execute()
  return rows.map((row) => row.check_id)
}

/** Whether `checkId` is still due (another node may have just handled it). */
export async function stillDue(ctx: ServiceContext, checkId: string, nowMs: number): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('check_alert_states')
    .select(sql<number>`1`.as('due'))
    .where('check_id', '=', checkId)
    .where('wake_at_ms', '<=', nowMs)
    .executeTakeFirst()
  return row !== undefined
}
