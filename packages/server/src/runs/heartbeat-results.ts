import type { ChecksTable } from '@svc/db'
import type { ServiceContext } from '../context.ts'
import { newResultId } from '../features/check-results/result-id.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { HEARTBEAT_LOCATION } from './heartbeat-window.ts'
import { slotKeyOf } from './jobs.ts'
import type { ClaimedSlot, SlotMove } from './schedules.repo.ts'
import { type ResultWrite, writeResult } from './store.ts'

export type HeartbeatEvent = 'RECEIVED' | 'FAIL_PING' | 'MISSED'

export interface HeartbeatEventDetails {
  /** The slot's job for a missed deadline; a ping is a job of its own, named after its result. */
  jobId?: string
  kind: HeartbeatEvent
  message?: string
  method?: string
  /** When it happened; now by default. */
  at?: Date
}

/**
 * Stores what happened to a heartbeat as an ordinary result, so statuses and analytics see it;
 * `slotMove` (its new deadline) commits with it.
 */
export async function storeHeartbeatResult(
  ctx: ServiceContext,
  check: ChecksTable,
  event: HeartbeatEventDetails,
  resolved?: ResolvedCheck,
  slotMove?: SlotMove,
): Promise<void> {
  await writeResult(ctx, heartbeatResultWrite(ctx, check, event, resolved, slotMove))
}

/**
 * Fails a heartbeat whose deadline `slot` (claimed by `owner`) passed without a ping, and moves the
 * deadline to `nextDueMs`; answers whether the failure was stored. A ping committed since the claim
 * (or in the same batch) released the slot: then nothing is stored, as the ping came in time to be
 * counted. The failure is dated at the deadline, so a ping committed after it (it arrived after the
 * claim) is the later result.
 */
export async function storeMissedDeadline(
  ctx: ServiceContext,
  check: ResolvedCheck,
  slot: ClaimedSlot,
  owner: string,
  nextDueMs: number,
): Promise<boolean> {
  const event = {
    jobId: slotKeyOf(slot),
    kind: 'MISSED',
    message: 'No ping within the period and grace',
    at: new Date(slot.dueMs),
  } as const
  const slotMove = { checkId: slot.checkId, location: slot.location, leaseOwner: owner, nextDueMs }
  const write = heartbeatResultWrite(ctx, check.row, event, check, slotMove)
  // Misses share the store's batches (one transaction for many after an outage), each stored only
  // while the slot is still leased for this deadline.
  return writeResult(ctx, { ...write, whileLeased: { ...slot, owner } })
}

/** The result write of a heartbeat event (see `storeHeartbeatResult`), for a batch of them. */
export function heartbeatResultWrite(
  ctx: ServiceContext,
  check: ChecksTable,
  event: HeartbeatEventDetails,
  resolved?: ResolvedCheck,
  slotMove?: SlotMove,
): ResultWrite {
  const now = (event.at ?? ctx.clock.now()).toISOString()
  const failed = event.kind !== 'RECEIVED'
  const id = newResultId()
  return {
    row: {
      id,
      job_id: event.jobId ?? `ping:${id}`,
      check_id: check.id,
      account_id: check.account_id,
      check_type: check.check_type,
      run_location: HEARTBEAT_LOCATION,
      started_at: now,
      stopped_at: now,
      response_time: 0,
      has_failures: failed,
      has_errors: false,
      is_degraded: false,
      over_max_response_time: false,
      attempts: 1,
      result_type: 'FINAL',
      error_type: failed ? (event.kind === 'MISSED' ? 'TIMEOUT' : 'HEARTBEAT_FAIL') : null,
      error_message: failed ? (event.message ?? null) : null,
      status_code: null,
      detail: JSON.stringify({ heartbeatCheckResult: { event: event.kind, method: event.method ?? null } }),
      created_at: now,
      is_cancelled: false,
    },
    check: resolved,
    slotMove,
  }
}
