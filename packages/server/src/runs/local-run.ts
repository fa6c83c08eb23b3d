import type { ServiceContext } from '../context.ts'
import { newResultId } from '../features/check-results/result-id.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import type { Claimed } from './claim.ts'
import { storeMissedDeadline } from './heartbeat-results.ts'
import { type HeartbeatSettings, heartbeatPeriodMs } from './heartbeat-window.ts'
import { dropJob, type Job, jobIdOf, jobStillRuns, nextDueOf, slotKeyOf } from './jobs.ts'
import { recordOutcome } from './record.ts'
import type { PendingRetry } from './retries.repo.ts'
import { runAttempt } from './run-attempt.ts'
import type { AccountVariables } from './run-variables.ts'
import type { ClaimedSlot, SlotMove } from './schedules.repo.ts'

/**
 * A job whose run has ended, with its result on the way to the store; undefined when there was nothing
 * to run (the check deleted since the claim). Wrapped: a promise returned bare would be awaited with the run.
 */
export type Finished = { stored: Promise<unknown> } | undefined

/** What runs a claimed job in this process needs besides the claim. */
export interface LocalRunner {
  ctx: ServiceContext
  /** The lease owner: the scheduler's. */
  owner: string
  /** Tests only: runs between the claim of a missed heartbeat deadline and the store of its failure. */
  beforeMissedDeadlineStored?: (slot: ClaimedSlot) => Promise<void>
}

/** Starts every job of `claimed` in this process; `track` follows each until its result is stored. */
export function startClaimed(
  runner: LocalRunner,
  claimed: Claimed,
  track: (run: Promise<Finished>, checkId: string, location: string) => Promise<void>,
): Promise<void>[] {
  const { checks, accounts } = claimed
  return [
    ...claimed.retries.map((retry) =>
      track(runRetry(runner, retry, checks.get(retry.checkId), accounts), retry.checkId, retry.location),
    ),
    ...claimed.slots.map((slot) =>
      track(runSlot(runner, slot, checks.get(slot.checkId), accounts), slot.checkId, slot.location),
    ),
  ]
}

/** Runs a claimed slot of `check` (undefined when it was deleted since) and moves the slot on with its result. */
async function runSlot(
  runner: LocalRunner,
  slot: ClaimedSlot,
  check: ResolvedCheck | undefined,
  accounts: AccountVariables,
): Promise<Finished> {
  if (!check) return
  const { ctx, owner } = runner
  const { row } = check
  const slotKey = slotKeyOf(slot)
  // Deactivated between the claim and now: its rows are gone, nothing moves.
  if (!jobStillRuns(check, { slotKey })) return
  if (row.check_type === 'HEARTBEAT') {
    // The deadline passed without a ping: fail now, and again each period until a ping comes.
    const { heartbeat } = JSON.parse(row.definition) as { heartbeat: HeartbeatSettings }
    const nextDueMs = Math.max(ctx.clock.now().getTime(), slot.dueMs) + heartbeatPeriodMs(heartbeat)
    await runner.beforeMissedDeadlineStored?.(slot)
    return { stored: storeMissedDeadline(ctx, check, slot, owner, nextDueMs) }
  }
  const firstStartedMs = ctx.clock.now().getTime()
  return runJob(
    runner,
    check,
    accounts,
    { slotKey, location: slot.location, attempt: 1, firstStartedMs },
    { ...slotOf(slot), leaseOwner: owner, nextDueMs: nextDueOf(ctx, check, slot) },
  )
}

async function runRetry(
  runner: LocalRunner,
  retry: PendingRetry,
  check: ResolvedCheck | undefined,
  accounts: AccountVariables,
): Promise<Finished> {
  if (!check) return undefined
  if (!jobStillRuns(check, retry)) return { stored: dropJob(runner.ctx, retry, runner.owner) }
  return runJob(runner, check, accounts, retry)
}

/** Runs one attempt, then stores it; `slotMove` commits with the result. */
async function runJob(
  { ctx, owner }: LocalRunner,
  check: ResolvedCheck,
  accounts: AccountVariables,
  job: Job,
  slotMove?: SlotMove,
): Promise<Finished> {
  const resultId = newResultId()
  const run = { location: job.location, resultId, jobId: jobIdOf(job), runner: owner }
  const outcome = await runAttempt(ctx, check, run, accounts)
  const stored = { resultId, locationName: job.location, slotMove }
  return { stored: recordOutcome(ctx, owner, check, job, outcome, stored) }
}

const slotOf = ({ checkId, location }: ClaimedSlot) => ({ checkId, location })
