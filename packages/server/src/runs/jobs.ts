import { randomUUID } from 'node:crypto'
import type { RunOutcome } from '@svc/runner'
import type { ServiceContext } from '../context.ts'
import { newResultId } from '../features/check-results/result-id.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { privateLocationIdOf } from '../features/private-locations/location-keys.ts'
import { findLocation } from '../features/private-locations/private-locations.repo.ts'
import { finishRetry, heldRetriesOfCheck, scheduleRetry, takeWaitingRetries } from './retries.repo.ts'
import { nextRetry } from './retry-policy.ts'
import { cancelledBeforeStart, type StoredJob, storeAttempt } from './run-and-store.ts'
import { type ClaimedSlot, heldSlotsOfCheck } from './schedules.repo.ts'
import { nextSlotAfter, planSlots } from './slots.ts'
import { requestClaimedSuiteCancel } from './suite-runs.repo.ts'

/**
 * One attempt of a job, wherever it runs (this process's runner or an agent): a slot's first run, a
 * retry of it, or a one-off trigger.
 */
export interface Job {
  /** The job id of the first attempt: `${dueMs}:${checkId}:${location}` (see `slotKeyOf`), or `trigger:<uuid>`. */
  slotKey: string
  /** Where it runs, as schedule rows name places (`local`, `private:<id>`). */
  location: string
  attempt: number
  firstStartedMs: number
}

/**
 * A slot's key, the job id of its first attempt. Due time first: keys of new runs then sort after the
 * ones stored before them, so results' job ids (and retries' keys) land at the end of their unique
 * indexes, not on a page per check (with the check first, that index cost a store ~25 µs per result).
 */
export function slotKeyOf(slot: ClaimedSlot): string {
  return `${slot.dueMs}:${slot.checkId}:${slot.location}`
}

/** The due time a slot key (or a job id made from it) names; undefined for a trigger's. */
export function dueMsOfSlotKey(key: string): number | undefined {
  const dueMs = Number(key.slice(0, key.indexOf(':')))
  return Number.isFinite(dueMs) && !isTriggerJob({ slotKey: key }) ? dueMs : undefined
}

/** Unique per attempt, so a job re-run after a lost lease stores its result once. */
export function jobIdOf(job: Pick<Job, 'slotKey' | 'attempt'>): string {
  return job.attempt === 1 ? job.slotKey : `${job.slotKey}#${job.attempt}`
}

export const isTriggerJob = (job: Pick<Job, 'slotKey'>) => job.slotKey.startsWith('trigger:')

/**
 * Whether a claimed job still runs: a trigger always (it runs whether or not the check is activated);
 * a scheduled run or a retry only while the check and its group are activated, since `activated: false`
 * stops runs, the retries planned before it included.
 */
export function jobStillRuns(check: ResolvedCheck, job: Pick<Job, 'slotKey'>): boolean {
  return isTriggerJob(job) || (check.definition.activated !== false && check.groupActivated)
}

/** Drops a claimed job that no longer runs (see `jobStillRuns`): a retry's row goes, it is never run. */
export async function dropJob(ctx: ServiceContext, job: Pick<Job, 'slotKey' | 'attempt'>, owner: string) {
  if (job.attempt > 1) await finishRetry(ctx, job.slotKey, owner)
}

/**
 * Stores an attempt's outcome: the final result, or an ATTEMPT result and its retry (planned under
 * `owner`'s lease), in one transaction with `stored.slotMove`. Triggered runs are never retried.
 * `locationName` is what the result shows.
 */
export async function recordOutcome(
  ctx: ServiceContext,
  owner: string,
  check: ResolvedCheck,
  job: Job,
  outcome: RunOutcome,
  stored: Pick<StoredJob, 'resultId' | 'slotMove'> & { locationName: string },
): Promise<string | undefined> {
  const nowMs = ctx.clock.now().getTime()
  // A cancelled run was stopped on request: nothing to retry.
  const retry =
    isTriggerJob(job) || outcome.verdict.isCancelled
      ? null
      : nextRetry(check.effective.retryStrategy, {
          verdict: outcome.verdict,
          attempt: job.attempt,
          elapsedMs: nowMs - job.firstStartedMs,
          location: job.location,
          locations: check.runLocations,
          periodMs: check.effective.periodMs,
        })
  const planRetry = async (tx: ServiceContext) => {
    if (retry) {
      const next = {
        slotKey: job.slotKey,
        checkId: check.row.id,
        location: retry.location,
        attempt: job.attempt + 1,
        dueMs: nowMs + retry.delayMs,
        firstStartedMs: job.firstStartedMs,
      }
      await scheduleRetry(tx, next, owner)
    } else if (job.attempt > 1 || isTriggerJob(job)) {
      await finishRetry(tx, job.slotKey, owner)
    }
  }
  return storeAttempt(ctx, check, stored.locationName, outcome, {
    resultId: stored.resultId,
    jobId: jobIdOf(job),
    attempts: job.attempt,
    resultType: retry ? 'ATTEMPT' : 'FINAL',
    slotMove: stored.slotMove,
    alongside: planRetry,
  })
}

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

/** Where a result says it ran: a private location by its slug (as its agents' results say), else the location. */
export async function locationNameOf(ctx: ServiceContext, accountId: string, location: string) {
  const privateId = privateLocationIdOf(location)
  if (!privateId) return location
  return (await findLocation(ctx, accountId, privateId))?.slug_name ?? location
}

/** A slot's next due time on its check's current plan (config changes apply from here). */
export function nextDueOf(ctx: ServiceContext, check: ResolvedCheck, slot: ClaimedSlot): number {
  const { periodMs } = check.effective
  const runParallel = Boolean(check.definition.runParallel)
  const plan = planSlots(check.row.id, periodMs, check.runLocations, runParallel).find(
    (p) => p.location === slot.location,
  )
  const nowMs = ctx.clock.now().getTime()
  return plan ? nextSlotAfter(Math.max(nowMs, slot.dueMs), plan) : nowMs + periodMs
}
