import type { RetryStrategy } from '@svc/core'
import type { RunVerdict } from '@svc/runner'

export interface RetryDecision {
  delayMs: number
  location: string
}

/**
 * Whether a failed attempt is retried, when and where (API.md "Check execution semantics"): FIXED waits
 * the base backoff each time, LINEAR base × n, EXPONENTIAL base^n seconds (5 s, 25 s, 125 s), SINGLE_RETRY
 * once; never past `maxRetries` or `maxDurationSeconds` after the first attempt started. `onlyOn:
 * NETWORK_ERROR` retries only failures to reach the target (timeouts included), not wrong answers.
 */
export function nextRetry(
  strategy: RetryStrategy | null,
  run: {
    verdict: Pick<RunVerdict, 'hasFailures' | 'error'>
    /** The attempt that just ran, from 1. */
    attempt: number
    elapsedMs: number
    location: string
    locations: string[]
    /** The check's period: a retry due no sooner than its next run is left to that run. */
    periodMs?: number
  },
): RetryDecision | null {
  if (!strategy || strategy.type === 'NO_RETRIES' || !run.verdict.hasFailures) return null
  const maxRetries = strategy.type === 'SINGLE_RETRY' ? 1 : (strategy.maxRetries ?? 2)
  const retry = run.attempt
  if (retry > maxRetries) return null
  const errorType = run.verdict.error?.type
  if (
    strategy.onlyOn?.includes('NETWORK_ERROR') &&
    errorType !== 'NETWORK_ERROR' &&
    errorType !== 'TIMEOUT'
  ) {
    return null
  }
  const base = strategy.baseBackoffSeconds ?? 60
  const delaySeconds =
    strategy.type === 'LINEAR' ? base * retry : strategy.type === 'EXPONENTIAL' ? base ** retry : base
  const delayMs = delaySeconds * 1000
  if (run.elapsedMs + delayMs > (strategy.maxDurationSeconds ?? 600) * 1000) return null
  if (run.periodMs !== undefined && delayMs >= run.periodMs) return null
  return { delayMs, location: retryLocation(strategy, run.location, run.locations) }
}

/** The same location, or the next of the check's locations when the strategy may change region. */
function retryLocation(strategy: RetryStrategy, location: string, locations: string[]): string {
  if (strategy.sameRegion !== false || locations.length < 2) return location
  const index = locations.indexOf(location)
  return locations[(index + 1) % locations.length] ?? location
}
