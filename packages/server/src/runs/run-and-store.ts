import { type CheckType, Scrubber, substituteVariables } from '@svc/core'
import {
  cancelledOutcome,
  type RunnerJob,
  type RunOutcome,
  runJob,
  type ScriptCheckResult,
  type UPTIME_CHECK_TYPES,
} from '@svc/runner'
import type { ServiceContext } from '../context.ts'
import { isResultStored } from '../features/check-results/check-results.repo.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { type AccountVariables, runVariables } from './run-variables.ts'
import type { SlotMove } from './schedules.repo.ts'
import { isScriptCheckType, scriptJobOf } from './script-checks.ts'
import { writeResult } from './store.ts'
import { PROCESS_RUNNER, runCancellable } from './suite-cancellation.ts'

/**
 * What one attempt of `check` in `location` runs, for the result `resultId`: an uptime check's
 * definition with the variables substituted into its request, or a script check's job (variables as
 * `process.env`); plus the values to scrub from what it reports. Built here whether the attempt then
 * runs in this process or on an agent. `accounts`: the account variables its claim loaded.
 */
export async function prepareJob(
  ctx: ServiceContext,
  check: ResolvedCheck,
  run: { location: string },
  accounts?: AccountVariables,
): Promise<{ job: RunnerJob; hidden: string[] }> {
  const variables = await runVariables(ctx, check, accounts)
  const checkType = check.row.check_type as CheckType
  if (isScriptCheckType(checkType)) {
    return { job: await scriptJobOf(ctx, check, variables, run.location), hidden: variables.hidden }
  }
  const definition = {
    ...check.definition,
    request: substituteVariables(check.definition.request, variables.values),
  }
  return {
    job: { checkType: checkType as (typeof UPTIME_CHECK_TYPES)[number], definition },
    hidden: variables.hidden,
  }
}

/**
 * Runs one attempt in this process; every hidden value is scrubbed from the outcome (plain and encoded).
 * A script run writes its artifacts to a local staging directory, moved to the artifact store after.
 * A suite run (AUTOMATION) can be cancelled while in flight, from any node, as job `jobId` run by
 * `runner` (this process when not given).
 */
export async function runAttempt(
  ctx: ServiceContext,
  check: ResolvedCheck,
  run: { location: string; resultId: string; jobId: string; runner?: string },
  accounts?: AccountVariables,
): Promise<RunOutcome> {
  const { job, hidden } = await prepareJob(ctx, check, run, accounts)
  const now = () => ctx.clock.now()
  if (!isScriptCheckType(job.checkType)) return new Scrubber(hidden).deep(await runJob(job, { now }))
  const staged = await ctx.scripts.artifacts.stage(check.row.id, run.resultId)
  // A suite run asked to stop before it started (while it waited for its turn) never starts.
  const runScript = async (signal?: AbortSignal) =>
    signal?.aborted && 'script' in job
      ? cancelledOutcome(job, { now })
      : runJob(job, { now, playwright: ctx.scripts.pool, artifactsDir: staged.dir, signal })
  let outcome: RunOutcome
  try {
    outcome =
      job.checkType === 'AUTOMATION'
        ? await runCancellable(
            ctx,
            { jobId: run.jobId, checkId: check.row.id, runner: run.runner ?? PROCESS_RUNNER },
            runScript,
          )
        : await runScript()
  } catch (error) {
    await staged.discard()
    throw error
  }
  try {
    await staged.commit()
  } catch (error) {
    // The result still counts: it is stored without the artifacts the store would not take.
    outcome = withoutArtifacts(outcome, error)
  }
  return new Scrubber(hidden).deep(outcome)
}

/** The outcome of a run of the suite `check` cancelled before it started anywhere: no test ran. */
export async function cancelledBeforeStart(
  ctx: ServiceContext,
  check: ResolvedCheck,
  location: string,
): Promise<RunOutcome> {
  const { job } = await prepareJob(ctx, check, { location })
  if (!('script' in job)) throw new Error(`${job.checkType} runs are never cancelled`)
  return cancelledOutcome(job, { now: () => ctx.clock.now() })
}

function withoutArtifacts(outcome: RunOutcome, error: unknown): RunOutcome {
  const detail = outcome.detail as Partial<ScriptCheckResult>
  const note = `artifacts not stored: ${error instanceof Error ? error.message : String(error)}`
  return {
    ...outcome,
    detail: {
      ...detail,
      screenshots: [],
      traces: [],
      videos: [],
      artifactsTruncated: true,
      notes: [...(detail.notes ?? []), note],
    } as RunOutcome['detail'],
  }
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
  if (!stored && !(await isResultStored(ctx, id)))
    await ctx.scripts.artifacts.removeResult(check.row.id, id).catch(() => {})
  return stored ? id : undefined
}

/** PostgreSQL text can't hold U+0000, which a run's error may quote from what it found. */
const withoutNul = (text: string | undefined) => text?.replaceAll('\u0000', '\uFFFD')
