import { sql } from 'kysely'
import type { ServiceContext } from '../context.ts'
import { lockReferencedCheck } from '../features/checks/check-lookups.service.ts'
import { privateLocationIdOf } from '../features/private-locations/location-keys.ts'
import { inTransaction } from '../transactions.ts'
import { raiseWakeup } from '../wakeups.ts'

/** The only SQL for `check_schedules`. */

export interface ScheduleRow {
  location: string
  nextDueMs: number
}

/**
 * Replaces a check's schedule rows (none for a check that should not run). A private location's slot
 * in flight that stays in the plan keeps its lease: its agent may post a result only for a run the
 * location holds, and that result moves the slot onto the new plan. With `keepDue`, a row that exists
 * already stays as it is (a heartbeat's deadline that only a ping moves); the rows serve as its default.
 */
export async function replaceSchedule(
  ctx: ServiceContext,
  checkId: string,
  rows: ScheduleRow[],
  options: { keepDue?: boolean } = {},
): Promise<void> {
  const planned = rows.map((row) => row.location)
  const inFlightKept = planned.filter((location) => privateLocationIdOf(location))
  await inTransaction(ctx, async (tx) => {
    // The check first, as its deletion takes it: a check deleted meanwhile has no runs to plan, and its
    // deletion and this never hold each other's rows.
    if (!(await lockReferencedCheck(tx, checkId))) return
    const { db } = tx
    await db
      .deleteFrom('check_schedules')
      .where('check_id', '=', checkId)
      .$if(options.keepDue === true && planned.length > 0, (query) =>
        query.where('location', 'not in', planned),
      )
      .$if(inFlightKept.length > 0, (query) =>
        query.where((eb) => eb.or([eb('lease_owner', 'is', null), eb('location', 'not in', inFlightKept)])),
      )
      .execute()
    if (rows.length === 0) return
    await db
      .insertInto('check_schedules')
      .values(rows.map((row) => ({ check_id: checkId, location: row.location, next_due_ms: row.nextDueMs })))
      .onConflict((oc) => oc.columns(['check_id', 'location']).doNothing())
      .execute()
    await raiseWakeup(tx, 'schedule', Math.min(...rows.map((row) => row.nextDueMs)))
  })
}

/**
 * The schedule rows of checks created in this transaction (none exist yet, and no one else sees the
 * checks before it commits, so there is nothing to lock or replace): one statement per 500 rows.
 */
export async function insertSchedulesOfNewChecks(
  ctx: ServiceContext,
  schedules: { checkId: string; rows: ScheduleRow[] }[],
): Promise<void> {
  const rows = schedules.flatMap(({ checkId, rows }) =>
    rows.map((row) => ({ check_id: checkId, location: row.location, next_due_ms: row.nextDueMs })),
  )
  if (rows.length === 0) return
  await inTransaction(ctx, async (tx) => {
    for (let start = 0; start < rows.length; start += 500) {
      await tx.db
        .insertInto('check_schedules')
        .values(rows.slice(start, start + 500))
        .execute()
    }
    await raiseWakeup(
      tx,
      'schedule',
      rows.reduce((soonest, row) => Math.min(soonest, row.next_due_ms), Number.POSITIVE_INFINITY),
    )
  })
}

/**
 * A schedule slot that a stored result moves on. With `leaseOwner`, a scheduled run completing: the
 * slot moves only while that owner still holds its lease. Without, a heartbeat's new deadline: the slot
 * is set (created if missing) and any lease on it released.
 */
export interface SlotMove {
  checkId: string
  location: string
  nextDueMs: number
  leaseOwner?: string
}

/**
 * Moves the slots of a batch of results: one statement for the deadlines and one for the completions,
 * whatever the batch's size. A slot named twice moves as its last mention says.
 */
export async function moveSlots(ctx: ServiceContext, moves: SlotMove[]): Promise<void> {
  const lastOfSlot = new Map(moves.map((move) => [`${move.checkId}|${move.location}`, move]))
  // In key order, the order PostgreSQL locks the rows in: concurrent batches never deadlock on them.
  const ordered = [...lastOfSlot.keys()].sort().map((key) => lastOfSlot.get(key) as SlotMove)
  const deadlines = ordered.filter((move) => move.leaseOwner === undefined)
  const completions = ordered.filter((move) => move.leaseOwner !== undefined)
  if (deadlines.length > 0) {
    await ctx.db
      .insertInto('check_schedules')
      .values(deadlines.map((d) => ({ check_id: d.checkId, location: d.location, next_due_ms: d.nextDueMs })))
      .onConflict((oc) =>
        oc.columns(['check_id', 'location']).doUpdateSet((eb) => ({
          next_due_ms: eb.ref('excluded.next_due_ms'),
          lease_owner: null,
          leased_due_ms: null,
        })),
      )
      .execute()
  }
  if (completions.length > 0) await completeSlots(ctx, completions)
  // A deadline may be new (a row created) or moved sooner: always said. A completed slot was leased,
  // and a scheduler sleeps at most until the lease ends, at most a lease's length from now: only a
  // slot moved to before that (a check more frequent than the lease is long) is worth a wake-up.
  const soonest = Math.min(
    ...deadlines.map((move) => move.nextDueMs),
    ...completions
      .map((move) => move.nextDueMs)
      .filter((dueMs) => dueMs < ctx.clock.now().getTime() + ctx.runnerLeaseMs),
  )
  if (soonest < Number.POSITIVE_INFINITY) await raiseWakeup(ctx, 'schedule', soonest)
}

/**
 * Moves finished slots to their next due times, each only while its `leaseOwner` still holds its lease,
 * in one statement (the slots go in as one JSON or four array parameters).
 */
async function completeSlots(ctx: ServiceContext, slots: SlotMove[]): Promise<void> {
  const query =
    ctx.engine === 'postgres'
      ? sql`
          update check_schedules as s
          set next_due_ms = m.next_due_ms, lease_owner = null, leased_due_ms = null
          from unnest(
            ${slots.map((slot) => slot.checkId)}::text[], ${slots.map((slot) => slot.location)}::text[],
            ${slots.map((slot) => slot.nextDueMs)}::bigint[], ${slots.map((slot) => slot.leaseOwner)}::text[]
          ) as m(check_id, location, next_due_ms, lease_owner)
          where s.check_id = m.check_id and s.location = m.location and s.lease_owner = m.lease_owner`
      : sql`
          update check_schedules
          set next_due_ms = m.value ->> 2, lease_owner = null, leased_due_ms = null
          from json_each(${JSON.stringify(slots.map((slot) => [slot.checkId, slot.location, slot.nextDueMs, slot.leaseOwner]))}) as m
          where check_schedules.check_id = m.value ->> 0 and check_schedules.location = m.value ->> 1
            and check_schedules.lease_owner = m.value ->> 3`
  await query.execute(ctx.db)
}

export interface ClaimedSlot {
  checkId: string
  location: string
  dueMs: number
}

/** Leases up to `limit` due slots of `locations` to `owner` until `nowMs + leaseMs`. */
export async function claimDueSlots(ctx: ServiceContext, claim: LeaseClaim): Promise<ClaimedSlot[]> {
  const rows = await leaseDueRows<{ check_id: string; location: string; leased_due_ms: number }>(
    ctx,
    'check_schedules',
    ['check_id', 'location'],
    ['check_id', 'location', 'leased_due_ms'],
    claim,
  )
  return rows.map((row) => ({
    checkId: row.check_id,
    location: row.location,
    dueMs: Number(row.leased_due_ms),
  }))
}

/** A slot as claimed: `owner` leased it for the run due at `dueMs`. */
export interface SlotLease extends ClaimedSlot {
  owner: string
}

/**
 * Which of `leases` their owners still hold for the due time claimed (a heartbeat ping since then
 * released the slot; another node may have taken it over), in the order given. On PostgreSQL the rows
 * stay locked to the transaction, taken in key order.
 */
export async function heldLeases(ctx: ServiceContext, leases: SlotLease[]): Promise<boolean[]> {
  if (leases.length === 0) return []
  const distinct = (values: string[]) => [...new Set(values)]
  let query = ctx.db
    .selectFrom('check_schedules')
    .select(['check_id', 'location', 'lease_owner', 'leased_due_ms'])
    .where('check_id', 'in', distinct(leases.map((lease) => lease.checkId)))
    .where('location', 'in', distinct(leases.map((lease) => lease.location)))
    .where('lease_owner', 'in', distinct(leases.map((lease) => lease.owner)))
    .orderBy('check_id')
    .orderBy('location')
  if (ctx.engine === 'postgres') query = query.forUpdate()
  const key = (checkId: string, location: string, owner: string | null, dueMs: number) =>
    `${checkId}|${location}|${owner}|${dueMs}`
  const held = new Set(
    (await query.execute()).map((row) =>
      key(row.check_id, row.location, row.lease_owner, Number(row.leased_due_ms)),
    ),
  )
  return leases.map((lease) => held.has(key(lease.checkId, lease.location, lease.owner, lease.dueMs)))
}

/**
 * The slots of `location` in flight among `checkIds`, each as the run it is leased for. A lease that ran
 * out still counts until a claim takes the slot again (for the same run) or its result moves it on.
 */
export async function leasedSlotsOf(
  ctx: ServiceContext,
  location: string,
  checkIds: string[],
): Promise<ClaimedSlot[]> {
  if (checkIds.length === 0) return []
  const rows = await ctx.db
    .selectFrom('check_schedules')
    .select(['check_id', 'leased_due_ms'])
    .where('location', '=', location)
    .where('check_id', 'in', checkIds)
    .where('lease_owner', 'is not', null)
    .execute()
  return rows.map((row) => ({ checkId: row.check_id, location, dueMs: Number(row.leased_due_ms) }))
}

/** The slots of a check a runner holds now (its lease not run out), each as the run it is leased for. */
export async function heldSlotsOfCheck(
  ctx: ServiceContext,
  checkId: string,
  nowMs: number,
): Promise<{ slot: ClaimedSlot; owner: string; leaseEndsMs: number }[]> {
  const rows = await ctx.db
    .selectFrom('check_schedules')
    .select(['location', 'leased_due_ms', 'lease_owner', 'next_due_ms'])
    .where('check_id', '=', checkId)
    .where('lease_owner', 'is not', null)
    // A leased row's next_due_ms is its lease's end.
    .where('next_due_ms', '>', nowMs)
    .execute()
  return rows.map((row) => ({
    slot: { checkId, location: row.location, dueMs: Number(row.leased_due_ms) },
    owner: row.lease_owner as string,
    leaseEndsMs: Number(row.next_due_ms),
  }))
}

export interface LeaseClaim {
  owner: string
  nowMs: number
  leaseMs: number
  locations: string[]
  limit: number
  /**
   * Claim free rows falling due up to this time too (default `nowMs`): a scheduler claiming ahead. A
   * row leased to another owner is only taken once its lease has run out, never ahead of it.
   */
  dueByMs?: number
}

/**
 * The claim shared by schedule and retry rows (both have location, next_due_ms and a lease): leases the
 * longest-due rows of `locations`, free ones or ones whose lease ran out. A leased row's `next_due_ms` is
 * its lease's end, so the due index holds only claimable rows before `nowMs`; `leased_due_ms` keeps the
 * due time of the job being run, and a re-claim after a lost lease keeps it (the same job runs again).
 * PostgreSQL skips rows other nodes are claiming; SQLite has one writer, so the statement is atomic there.
 */
export async function leaseDueRows<Row>(
  ctx: ServiceContext,
  table: 'check_schedules' | 'check_retries',
  keyColumns: string[],
  returning: string[],
  claim: LeaseClaim,
): Promise<Row[]> {
  const leased: Row[] = []
  // One location at a time, so each claim walks the (location, next_due_ms) index in order and stops
  // at its limit however large a backlog grows; the first location turns, so none starves.
  const start = rotation++ % Math.max(1, claim.locations.length)
  const locations = [...claim.locations.slice(start), ...claim.locations.slice(0, start)]
  for (const location of locations) {
    const limit = claim.limit - leased.length
    if (limit <= 0) break
    leased.push(
      ...(await leaseDueRowsOf<Row>(ctx, table, keyColumns, returning, { ...claim, limit }, location)),
    )
  }
  return leased
}

let rotation = 0

async function leaseDueRowsOf<Row>(
  ctx: ServiceContext,
  table: 'check_schedules' | 'check_retries',
  keyColumns: string[],
  returning: string[],
  claim: LeaseClaim,
  location: string,
): Promise<Row[]> {
  const locking = ctx.engine === 'postgres' ? sql`for update skip locked` : sql``
  const keys = sql.join(keyColumns.map((column) => sql.ref(column)))
  const dueByMs = claim.dueByMs ?? claim.nowMs
  const ahead =
    dueByMs > claim.nowMs ? sql`and (lease_owner is null or next_due_ms <= ${claim.nowMs})` : sql``
  const claimable = sql`
    from ${sql.table(table)}
    where location = ${location} and next_due_ms <= ${dueByMs} ${ahead}`
  // Most passes find nothing of a kind (retries, heartbeat deadlines), and on SQLite an update that
  // changes nothing still costs a write transaction (~150 µs): an index read first skips it.
  const { rows: found } = await sql`select 1 ${claimable} limit 1`.execute(ctx.db)
  if (found.length === 0) return []
  const due = sql`
    select ${keys} ${claimable}
    order by next_due_ms
    limit ${claim.limit}
    ${locking}`
  const { rows } = await sql<Row>`
    update ${sql.table(table)}
    set lease_owner = ${claim.owner},
      leased_due_ms = coalesce(leased_due_ms, next_due_ms),
      next_due_ms = ${claim.nowMs + claim.leaseMs}
    where (${keys}) in (${due})
    returning ${sql.join(returning.map((column) => sql.ref(column)))}`.execute(ctx.db)
  return rows
}

/**
 * When the earliest schedule or retry row of `locations` can be claimed (falls due, or its lease runs
 * out), if any: a scheduler sleeps until then instead of polling. One index probe per table and location.
 */
export async function nextDueMs(ctx: ServiceContext, locations: string[]): Promise<number | undefined> {
  let earliest: number | undefined
  for (const table of ['check_schedules', 'check_retries'] as const) {
    for (const location of locations) {
      const row = await ctx.db
        .selectFrom(table)
        .select('next_due_ms')
        .where('location', '=', location)
        .orderBy('next_due_ms')
        .limit(1)
        .executeTakeFirst()
      const dueMs = row && Number(row.next_due_ms)
      if (dueMs !== undefined && (earliest === undefined || dueMs < earliest)) earliest = dueMs
    }
  }
  return earliest
}

/** Keeps `owner`'s leases alive while its runs are in flight, so only a dead node's leases run out. */
export async function renewLeases(ctx: ServiceContext, owner: string, untilMs: number): Promise<void> {
  for (const table of ['check_schedules', 'check_retries'] as const) {
    await ctx.db.updateTable(table).set({ next_due_ms: untilMs }).where('lease_owner', '=', owner).execute()
  }
}

/** Ends `owner`'s leases now, so that their slots and retries are claimed again at once. */
export async function releaseLeases(ctx: ServiceContext, owner: string): Promise<void> {
  const nowMs = ctx.clock.now().getTime()
  await renewLeases(ctx, owner, nowMs)
  await raiseWakeup(ctx, 'schedule', nowMs)
}

export async function listSchedule(ctx: ServiceContext, checkId: string) {
  return ctx.db
    .selectFrom('check_schedules')
    .selectAll()
    .where('check_id', '=', checkId)
    .orderBy('location')
    .execute()
}
