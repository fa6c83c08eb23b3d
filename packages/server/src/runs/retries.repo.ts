import type { ServiceContext } from '../context.ts'
import { raiseWakeup } from '../wakeups.ts'
import { type LeaseClaim, leaseDueRows } from './schedules.repo.ts'

/** The only SQL for `check_retries`: retries of failed runs, due after their backoff. */

export interface PendingRetry {
  slotKey: string
  checkId: string
  location: string
  attempt: number
  dueMs: number
  firstStartedMs: number
}

/**
 * Plans the next attempt of a failed job. The first retry of a slot is inserted once (a re-run after a
 * lost lease finds it there); later ones move the row, if `owner` holds its lease.
 */
export async function scheduleRetry(ctx: ServiceContext, retry: PendingRetry, owner: string): Promise<void> {
  const row = {
    slot_key: retry.slotKey,
    check_id: retry.checkId,
    location: retry.location,
    attempt: retry.attempt,
    next_due_ms: retry.dueMs,
    first_started_ms: retry.firstStartedMs,
    lease_owner: null,
    leased_due_ms: null,
  }
  if (retry.attempt === 2) {
    await ctx.db
      .insertInto('check_retries')
      .values(row)
      .onConflict((oc) => oc.column('slot_key').doNothing())
      .execute()
  } else {
    await ctx.db
      .updateTable('check_retries')
      .set(row)
      .where('slot_key', '=', retry.slotKey)
      .where('lease_owner', '=', owner)
      .execute()
  }
  await raiseWakeup(ctx, 'schedule', retry.dueMs)
}

/** Leases up to `limit` due retries of `locations`, like `claimDueSlots`. */
export async function claimDueRetries(ctx: ServiceContext, claim: LeaseClaim): Promise<PendingRetry[]> {
  const rows = await leaseDueRows<{
    slot_key: string
    check_id: string
    location: string
    attempt: number
    leased_due_ms: number
    first_started_ms: number
  }>(
    ctx,
    'check_retries',
    ['slot_key'],
    ['slot_key', 'check_id', 'location', 'attempt', 'leased_due_ms', 'first_started_ms'],
    claim,
  )
  return rows.map(leasedRetryOf)
}

/**
 * Leases to `owner` the retries and one-off runs of a check that no runner holds, due or not: waiting out
 * a backoff, waiting for an agent, or left by a runner whose lease ran out. A runner's claim and this
 * take each row at most once between them.
 */
export async function takeWaitingRetries(
  ctx: ServiceContext,
  take: { checkId: string; owner: string; nowMs: number; leaseMs: number },
): Promise<PendingRetry[]> {
  const rows = await ctx.db
    .updateTable('check_retries')
    .set((eb) => ({
      lease_owner: take.owner,
      leased_due_ms: eb.fn.coalesce('leased_due_ms', 'next_due_ms'),
      next_due_ms: take.nowMs + take.leaseMs,
    }))
    .where('check_id', '=', take.checkId)
    // A leased row's next_due_ms is its lease's end.
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('next_due_ms', '<=', take.nowMs)]))
    .returning(['slot_key', 'check_id', 'location', 'attempt', 'leased_due_ms', 'first_started_ms'])
    .execute()
  return rows.map(leasedRetryOf)
}

/** A run a runner holds under a live lease: claimed, maybe not started or recorded as a suite run yet. */
export interface HeldRun {
  slotKey: string
  attempt: number
  owner: string
  leaseEndsMs: number
}

/** The retries and one-off runs of a check that a runner holds now (its lease not run out). */
export async function heldRetriesOfCheck(
  ctx: ServiceContext,
  checkId: string,
  nowMs: number,
): Promise<HeldRun[]> {
  const rows = await ctx.db
    .selectFrom('check_retries')
    .select(['slot_key', 'attempt', 'lease_owner', 'next_due_ms'])
    .where('check_id', '=', checkId)
    .where('lease_owner', 'is not', null)
    // A leased row's next_due_ms is its lease's end.
    .where('next_due_ms', '>', nowMs)
    .execute()
  return rows.map((row) => ({
    slotKey: row.slot_key,
    attempt: row.attempt,
    owner: row.lease_owner as string,
    leaseEndsMs: Number(row.next_due_ms),
  }))
}

/** The retries and one-off runs of `location` in flight among `slotKeys`, as `leasedSlotsOf` counts them. */
export async function leasedRetriesOf(
  ctx: ServiceContext,
  location: string,
  slotKeys: string[],
): Promise<Omit<PendingRetry, 'location'>[]> {
  if (slotKeys.length === 0) return []
  const rows = await ctx.db
    .selectFrom('check_retries')
    .select(['slot_key', 'check_id', 'attempt', 'leased_due_ms', 'first_started_ms'])
    .where('location', '=', location)
    .where('slot_key', 'in', slotKeys)
    .where('lease_owner', 'is not', null)
    .execute()
  return rows.map((row) => ({
    slotKey: row.slot_key,
    checkId: row.check_id,
    attempt: row.attempt,
    dueMs: Number(row.leased_due_ms),
    firstStartedMs: Number(row.first_started_ms),
  }))
}

/** Removes a retry whose job has its final result. */
export async function finishRetry(ctx: ServiceContext, slotKey: string, owner: string): Promise<void> {
  await ctx.db
    .deleteFrom('check_retries')
    .where('slot_key', '=', slotKey)
    .where('lease_owner', '=', owner)
    .execute()
}

/** A one-off run (a trigger) for whoever serves `location`: claimed like a retry, never retried. */
export async function insertTriggerJob(ctx: ServiceContext, job: PendingRetry): Promise<void> {
  await ctx.db
    .insertInto('check_retries')
    .values({
      slot_key: job.slotKey,
      check_id: job.checkId,
      location: job.location,
      attempt: job.attempt,
      next_due_ms: job.dueMs,
      first_started_ms: job.firstStartedMs,
      lease_owner: null,
      leased_due_ms: null,
    })
    .execute()
  await raiseWakeup(ctx, 'schedule', job.dueMs)
}

/** A leased row as the job it is: due when it was leased. */
function leasedRetryOf(row: {
  slot_key: string
  check_id: string
  location: string
  attempt: number
  leased_due_ms: number | string | bigint | null
  first_started_ms: number | string | bigint
}): PendingRetry {
  return {
    slotKey: row.slot_key,
    checkId: row.check_id,
    location: row.location,
    attempt: row.attempt,
    dueMs: Number(row.leased_due_ms),
    firstStartedMs: Number(row.first_started_ms),
  }
}
