import { Scrubber } from '@svc/core'
import { cancelledOutcome, type RunOutcome, runJob, type ScriptCheckResult } from '@svc/runner'
import type { ServiceContext } from '../context.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { prepareJob } from './prepare.ts'
import type { AccountVariables } from './run-variables.ts'
import { isScriptCheckType } from './script-checks.ts'
import { PROCESS_RUNNER, runCancellable } from './suite-cancellation.ts'

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
  if (!isScriptCheckType(job.checkType)) {
    // The pool starts an API check's setup and teardown scripts; a check without them starts nothing.
    return new Scrubber(hidden).deep(await runJob(job, { now, playwright: ctx.scripts.pool }))
  }
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
