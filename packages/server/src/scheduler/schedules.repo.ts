import { sql } from 'kysely'
import type { ServiceContext } from '../context.ts'

/** The only SQL for `check_schedules`. */

export interface ScheduleRow {
  location: string
  nextDueMs: number
}

/** Replaces a check's schedule rows (none for a check that should not run). */
export async function replaceSchedule(
  ctx: ServiceContext,
  checkId: string,
  rows: ScheduleRow[],
): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    await tx.deleteFrom('check_schedules').where('check_id', '=', checkId).execute()
    if (rows.length === 0) return
    await tx
      .insertInto('check_schedules')
      .values(rows.map((row) => ({ check_id: checkId, location: row.location, next_due_ms: row.nextDueMs })))
      .execute()
  })
}

export interface ClaimedSlot {
  checkId: string
  location: string
  dueMs: number
}

/**
 * Leases up to `limit` due slots of `locations` to `owner` until `nowMs + leaseMs`. Slots whose lease
 * ran out (a node died mid-run) are due again. PostgreSQL skips rows other nodes are claiming; SQLite
 * has one writer, so the statement is atomic there as it is.
 */
export async function claimDueSlots(
  ctx: ServiceContext,
  claim: { owner: string; nowMs: number; leaseMs: number; locations: string[]; limit: number },
): Promise<ClaimedSlot[]> {
  if (claim.locations.length === 0) return []
  const locking = ctx.engine === 'postgres' ? sql`for update skip locked` : sql``
  const due = sql`
    select check_id, location from check_schedules
    where location in (${sql.join(claim.locations)})
      and next_due_ms <= ${claim.nowMs}
      and (lease_until_ms is null or lease_until_ms < ${claim.nowMs})
    order by next_due_ms
    limit ${claim.limit}
    ${locking}`
  const { rows } = await sql<{ check_id: string; location: string; next_due_ms: number }>`
    update check_schedules
    set lease_owner = ${claim.owner}, lease_until_ms = ${claim.nowMs + claim.leaseMs}
    where (check_id, location) in (${due})
    returning check_id, location, next_due_ms`.execute(ctx.db)
  return rows.map((row) => ({
    checkId: row.check_id,
    location: row.location,
    dueMs: Number(row.next_due_ms),
  }))
}

/** Moves a finished slot to its next due time, if `owner` still holds its lease. */
export async function completeSlot(
  ctx: ServiceContext,
  slot: { checkId: string; location: string; owner: string; nextDueMs: number },
): Promise<void> {
  await ctx.db
    .updateTable('check_schedules')
    .set({ next_due_ms: slot.nextDueMs, lease_owner: null, lease_until_ms: null })
    .where('check_id', '=', slot.checkId)
    .where('location', '=', slot.location)
    .where('lease_owner', '=', slot.owner)
    .execute()
}

export async function listSchedule(ctx: ServiceContext, checkId: string) {
  return ctx.db
    .selectFrom('check_schedules')
    .selectAll()
    .where('check_id', '=', checkId)
    .orderBy('location')
    .execute()
}
