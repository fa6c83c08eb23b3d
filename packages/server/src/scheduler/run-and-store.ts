import { randomUUID } from 'node:crypto'
import type { CheckType } from '@svc/core'
import type { ChecksTable } from '@svc/db'
import type { ServiceContext } from '../context.ts'
import { insertResultOnce } from '../features/check-results/check-results.repo.ts'
import { runCheckDefinition } from './run-check.ts'

/**
 * Runs one attempt of `check` in `location` and stores its result under `jobId` (once: a repeated job
 * id stores nothing). Returns the new result's id, or undefined when the job had a result already.
 */
export async function runAndStore(
  ctx: ServiceContext,
  check: ChecksTable,
  location: string,
  jobId: string,
): Promise<string | undefined> {
  const definition = JSON.parse(check.definition) as Record<string, unknown>
  const outcome = await runCheckDefinition(check.check_type as CheckType, definition, {
    now: () => ctx.clock.now(),
  })
  const id = randomUUID()
  const stored = await insertResultOnce(ctx, {
    id,
    job_id: jobId,
    check_id: check.id,
    account_id: check.account_id,
    check_type: check.check_type,
    run_location: location,
    started_at: outcome.verdict.startedAt,
    stopped_at: outcome.verdict.stoppedAt,
    response_time: outcome.verdict.responseTime,
    has_failures: outcome.verdict.hasFailures,
    has_errors: outcome.verdict.hasErrors,
    is_degraded: outcome.verdict.isDegraded,
    over_max_response_time: outcome.verdict.overMaxResponseTime,
    attempts: 1,
    result_type: 'FINAL',
    error_type: outcome.verdict.error?.type ?? null,
    error_message: outcome.verdict.error?.message ?? null,
    status_code: outcome.statusCode,
    detail: JSON.stringify({ [outcome.detailKey]: outcome.detail }),
    created_at: ctx.clock.now().toISOString(),
  })
  return stored ? id : undefined
}
