import type { RunOutcome } from '@svc/runner'
import type { ServiceContext } from '../context.ts'
import { resultWrites } from '../features/check-results/check-results.service.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { isTriggerJob, type Job, jobIdOf } from './jobs.ts'
import { finishRetry, scheduleRetry } from './retries.repo.ts'
import { nextRetry } from './retry-policy.ts'
import type { SlotMove } from './schedules.repo.ts'
import { writeResult } from './store.ts'

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

export interface StoredJob {
  /** The id the result gets (chosen before the run, which files its artifacts under it). */
  resultId: string
  /** Unique per attempt: a job re-run after a lost lease stores nothing the second time. */
  jobId: string
  /** The slot the result moves on, committed with it. */
  slotMove?: SlotMove
  /** Other store work that commits with the result (the retry planned). */
  alongside?: (tx: ServiceContext) => Promise<void>
  attempts: number
  resultType: 'FINAL' | 'ATTEMPT'
}

/** Stores an attempt's result once per job id; returns its id, or undefined when the job had one. */
export async function storeAttempt(
  ctx: ServiceContext,
  check: ResolvedCheck,
  location: string,
  outcome: RunOutcome,
  job: StoredJob,
): Promise<string | undefined> {
  const id = job.resultId
  const { verdict } = outcome
  const stored = await writeResult(ctx, {
    row: {
      id,
      job_id: job.jobId,
      check_id: check.row.id,
      account_id: check.row.account_id,
      check_type: check.row.check_type,
      run_location: location,
      started_at: verdict.startedAt,
      stopped_at: verdict.stoppedAt,
      response_time: verdict.responseTime,
      has_failures: verdict.hasFailures,
      has_errors: verdict.hasErrors,
      is_degraded: verdict.isDegraded,
      over_max_response_time: verdict.overMaxResponseTime,
      attempts: job.attempts,
      result_type: job.resultType,
      error_type: withoutNul(verdict.error?.type) ?? null,
      error_message: withoutNul(verdict.error?.message) ?? null,
      status_code: outcome.statusCode,
      detail: JSON.stringify({ [outcome.detailKey]: outcome.detail }),
      created_at: ctx.clock.now().toISOString(),
      is_cancelled: verdict.isCancelled === true,
    },
    check,
    slotMove: job.slotMove,
    alongside: job.alongside,
  })
  // Otherwise left to pruning after the account's traceRetentionDays. A duplicate under a stored result's
  // id (an agent's post retried) keeps what that result uploaded.
  if (!stored && !(await resultWrites.isResultStored(ctx, id)))
    await ctx.scripts.artifacts.removeResult(check.row.id, id).catch(() => {})
  return stored ? id : undefined
}

/** PostgreSQL text can't hold U+0000, which a run's error may quote from what it found. */
const withoutNul = (text: string | undefined) => text?.replaceAll('\u0000', '\uFFFD')
