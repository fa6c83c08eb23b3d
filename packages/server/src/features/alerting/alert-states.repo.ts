import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `check_alert_states`. Call inside a transaction: the row stays locked until it ends. */

export async function lockState(
  ctx: ServiceContext,
  checkId: string,
  nowIso: string,
): Promise<string | null> {
  await ctx.db
    .insertInto('check_alert_states')
    .values({ check_id: checkId, state: 'null', wake_at_ms: null, updated_at: nowIso })
    .onConflict((oc) => oc.column('check_id').doNothing())
    .execute()
  let query = ctx.db.selectFrom('check_alert_states').select('state').where('check_id', '=', checkId)
  if (ctx.engine === 'postgres') query = query.forUpdate()
  const row = await query.executeTakeFirst()
  return row && row.state !== 'null' ? row.state : null
}

export async function saveState(
  ctx: ServiceContext,
  checkId: string,
  state: string,
  wakeAtMs: number | null,
  nowIso: string,
): Promise<void> {
  await ctx.db
    .updateTable('check_alert_states')
    .set({ state, wake_at_ms: wakeAtMs, updated_at: nowIso })
    .where('check_id', '=', checkId)
    .execute()
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
