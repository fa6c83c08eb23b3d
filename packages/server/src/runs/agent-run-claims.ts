import type { JobResultBody } from '@svc/core'

/** A job open for a location: its check, when it fell due, and (retries, triggers) the first attempt's start. */
export interface OpenJob {
  checkId: string
  dueMs: number
  firstStartedMs?: number
}

/**
 * Slack for an agent's `responseTime` (its monotonic clock) against `stoppedAt - startedAt` (its wall clock,
 * which NTP may step during a run).
 */
const AGENT_CLOCK_STEP_MS = 5 * 60_000

/**
 * What an agent may not claim of a run: times that contradict each other, a first start other than the
 * server gave, a cancel nobody asked for (it would hide a failure). Answers the problem, or the verdict
 * with its run moved into `[dueMs, now]`.
 */
export function checkRunClaims(
  body: JobResultBody,
  job: OpenJob,
  cancelAsked: boolean,
  nowMs: number,
): { path: string; message: string } | { verdict: JobResultBody['outcome']['verdict'] } {
  const { verdict } = body.outcome
  const expected = job.firstStartedMs
  if (
    expected !== undefined
      ? body.firstStartedMs !== expected
      : body.firstStartedMs < job.dueMs || body.firstStartedMs > nowMs
  ) {
    return {
      path: 'firstStartedMs',
      message: `must be the job's firstStartedMs as given (${expected ?? `between ${job.dueMs} and ${nowMs}`})`,
    }
  }
  const startedMs = Date.parse(verdict.startedAt)
  const stoppedMs = Date.parse(verdict.stoppedAt)
  if (stoppedMs < startedMs)
    return { path: 'outcome.verdict.stoppedAt', message: 'must not be before startedAt' }
  if (verdict.responseTime > stoppedMs - startedMs + AGENT_CLOCK_STEP_MS) {
    return {
      path: 'outcome.verdict.responseTime',
      message: 'must not be longer than the run (stoppedAt - startedAt)',
    }
  }
  if (verdict.isCancelled === true && !cancelAsked) {
    return {
      path: 'outcome.verdict.isCancelled',
      message: 'may be true only for a run the server asked to stop (cancelJobIds)',
    }
  }
  // An agent's clock may be off by any amount: its run is moved into the job's window whole, so it keeps
  // its length and is never dated in the future (it would stay the check's latest past retention) or
  // before its job fell due (rewriting analytics).
  const length = Math.max(0, Math.min(stoppedMs - startedMs, nowMs - job.dueMs))
  const started = Math.min(Math.max(startedMs, job.dueMs), nowMs - length)
  const stopped = started + length
  return {
    verdict: {
      ...verdict,
      startedAt: new Date(started).toISOString(),
      stoppedAt: new Date(stopped).toISOString(),
    },
  }
}
