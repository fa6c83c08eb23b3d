import { type CheckType, Scrubber, substituteVariables } from '@svc/core'
import type { ServiceContext } from '../context.ts'
import { insertResultOnce } from '../features/check-results/check-results.repo.ts'
import type { ResolvedCheck } from '../features/checks/checks.service.ts'
import { type RunOutcome, runCheckDefinition } from './run-check.ts'
import { runVariables } from './run-variables.ts'
import { isScriptCheckType, removeArtifacts, runScriptAttempt } from './script-checks.ts'

/**
 * Runs one attempt of `check` in `location`, for the result `resultId` (its artifacts are filed under
 * it): variables substituted into the request (or given to the script as `process.env`), then every
 * value of a locked or secret variable scrubbed from what the run reports (plain and encoded).
 */
export async function runAttempt(
  ctx: ServiceContext,
  check: ResolvedCheck,
  run: { location: string; resultId: string },
): Promise<RunOutcome> {
  const variables = await runVariables(ctx, check)
  if (isScriptCheckType(check.row.check_type)) return runScriptAttempt(ctx, check, variables, run)
  const definition = {
    ...check.definition,
    request: substituteVariables(check.definition.request, variables.values),
  }
  const outcome = await runCheckDefinition(check.row.check_type as CheckType, definition, {
    now: () => ctx.clock.now(),
  })
  return new Scrubber(variables.hidden).deep(outcome)
}

export interface StoredJob {
  /** The id the result gets (chosen before the run, which files its artifacts under it). */
  resultId: string
  /** Unique per attempt: a job re-run after a lost lease stores nothing the second time. */
  jobId: string
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
  const stored = await insertResultOnce(ctx, {
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
    error_type: verdict.error?.type ?? null,
    error_message: verdict.error?.message ?? null,
    status_code: outcome.statusCode,
    detail: JSON.stringify({ [outcome.detailKey]: outcome.detail }),
    created_at: ctx.clock.now().toISOString(),
  })
  if (!stored) await removeArtifacts(ctx, check.row.id, id)
  return stored ? id : undefined
}
