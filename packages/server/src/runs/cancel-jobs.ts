import { randomUUID } from 'node:crypto'
import type { ServiceContext } from '../context.ts'
import { newResultId } from '../features/check-results/result-id.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { jobIdOf, locationNameOf, slotKeyOf } from './jobs.ts'
import { cancelledBeforeStart } from './prepare.ts'
import { recordOutcome } from './record.ts'
import { heldRetriesOfCheck, takeWaitingRetries } from './retries.repo.ts'
import { heldSlotsOfCheck } from './schedules.repo.ts'
import { requestClaimedSuiteCancel } from './suite-runs.repo.ts'

const CANCEL_OWNER_PREFIX = 'cancel-'

/**
 * Asks the runs of the suite `checkId` that runners hold to stop, started or not: a claimed run is in
 * progress even before its runner records it as a suite run (the cancel is recorded for it, and its
 * runner ends it without starting it). Answers how many.
 */
export async function cancelClaimedJobs(
  ctx: ServiceContext,
  checkId: string,
  nowMs: number,
): Promise<number> {
  const slots = await heldSlotsOfCheck(ctx, checkId, nowMs)
  const retries = await heldRetriesOfCheck(ctx, checkId, nowMs)
  const runs = [
    ...slots.map(({ slot, owner, leaseEndsMs }) => ({
      jobId: jobIdOf({ slotKey: slotKeyOf(slot), attempt: 1 }),
      owner,
      leaseEndsMs,
    })),
    ...retries.map(({ slotKey, attempt, owner, leaseEndsMs }) => ({
      jobId: jobIdOf({ slotKey, attempt }),
      owner,
      leaseEndsMs,
    })),
  ]
    // Another cancel's take ends those runs itself.
    .filter((run) => !run.owner.startsWith(CANCEL_OWNER_PREFIX))
    .map(({ jobId, owner, leaseEndsMs }) => ({ jobId, checkId, runner: owner, aliveUntilMs: leaseEndsMs }))
  return requestClaimedSuiteCancel(ctx, runs, nowMs)
}

/**
 * Ends, cancelled, the runs of the suite `check` waiting in `check_retries` for a runner: one-off runs
 * queued for a private location's agents, retries waiting out their backoff. Each is taken as a claim
 * takes it, so one a runner claimed first runs (and a cancel reaches it in flight). Answers how many.
 */
export async function cancelWaitingJobs(
  ctx: ServiceContext,
  check: ResolvedCheck,
  /** Runs between taking the jobs and storing their results (tests put a concurrent delete there). */
  beforeStore?: () => Promise<void>,
): Promise<number> {
  const owner = `${CANCEL_OWNER_PREFIX}${randomUUID()}`
  const nowMs = ctx.clock.now().getTime()
  const jobs = await takeWaitingRetries(ctx, {
    checkId: check.row.id,
    owner,
    nowMs,
    leaseMs: ctx.runnerLeaseMs,
  })
  if (jobs.length > 0) await beforeStore?.()
  for (const job of jobs) {
    const outcome = await cancelledBeforeStart(ctx, check, job.location)
    const locationName = await locationNameOf(ctx, check.row.account_id, job.location)
    await recordOutcome(ctx, owner, check, job, outcome, { resultId: newResultId(), locationName })
  }
  return jobs.length
}
