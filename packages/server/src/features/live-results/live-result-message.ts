import type { SessionRunsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { getResult } from '../check-results/check-results.service.ts'
import { hostedCheckType } from '../test-sessions/session-views.ts'

interface Assertion {
  source: string
  comparison: string
  target: string
  property?: string
  actual?: unknown
  passed?: boolean
}

interface HttpDetail {
  request?: { data?: string }
  response?: { body?: string }
  requestError?: string | null
  assertions?: Assertion[]
}

/**
 * The `result` message of an ended run, as the hosted CLI's reporters read it: the run's figures, its
 * project file (`sourceFile`, which they file it under) and, for API and URL checks, the request, the
 * response and each assertion (`error` set on those that failed). The detail rides in the message: the
 * CLI only fetches it from `assets`, which svc leaves out.
 */
export async function liveResultMessage(ctx: ServiceContext, accountId: string, run: SessionRunsTable) {
  const detail = await detailOf(ctx, accountId, run)
  const http = (detail.apiCheckResult ?? detail.urlCheckResult) as HttpDetail | undefined
  const error = detail.error as { message?: string } | undefined
  const result = {
    id: run.id,
    name: run.name,
    checkType: hostedCheckType(run.check_type),
    hasFailures: Boolean(run.has_failures),
    hasErrors: Boolean(run.has_errors),
    isDegraded: Boolean(run.is_degraded),
    isCancelled: false,
    responseTime: run.response_time === null ? null : Number(run.response_time),
    runLocation: run.location,
    startedAt: run.started_at,
    stoppedAt: run.stopped_at,
    sourceFile: run.source_file ?? undefined,
    checkRunData: http && {
      // Their reporters print both bodies and fail on a missing one.
      request: http.request && { ...http.request, data: http.request.data ?? '' },
      response: http.response && { ...http.response, body: http.response.body ?? '' },
      requestError: http.requestError ?? null,
      assertions: (http.assertions ?? []).map(({ passed, ...assertion }) => ({
        ...assertion,
        error: passed === false ? 'failed' : undefined,
      })),
    },
    runError: run.has_errors && error?.message ? error.message : undefined,
  }
  return { result, testResultId: run.id, resultType: 'FINAL' }
}

/** An unsaved definition's result is kept on its run; a saved check's is one of its results. */
async function detailOf(ctx: ServiceContext, accountId: string, run: SessionRunsTable) {
  if (run.result) return JSON.parse(run.result) as Record<string, unknown>
  if (!run.check_id || !run.result_id) return {}
  return (await getResult(ctx, accountId, run.check_id, run.result_id)) as unknown as Record<string, unknown>
}
