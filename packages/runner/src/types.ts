import type { LookupFunction } from 'node:net'
import type { AssertionOutcome } from '@svc/core'
import type { ProxySettings } from './http/proxy.ts'

/** What a runner may use besides the job: injected so tests control time and name resolution. */
export interface RunnerContext {
  now(): Date
  /** Replaces the system resolver for HTTP and TCP checks. */
  lookup?: LookupFunction
  /** A forward proxy for URL, API and script checks (an agent's HTTP_PROXY / HTTPS_PROXY / NO_PROXY). */
  proxy?: ProxySettings
}

export const ERROR_TYPES = [
  'NETWORK_ERROR',
  'TIMEOUT',
  'ASSERTION',
  'SCRIPT',
  'INTERNAL',
  'CANCELLED',
] as const
export type RunErrorType = (typeof ERROR_TYPES)[number]

export interface RunError {
  type: RunErrorType
  message: string
}

/** The verdict every check type shares (API.md "Check results"); type-specific detail rides beside it. */
export interface RunVerdict {
  startedAt: string
  stoppedAt: string
  responseTime: number
  /** The verdict after `shouldFail`. */
  hasFailures: boolean
  hasErrors: boolean
  isDegraded: boolean
  overMaxResponseTime: boolean
  error: RunError | null
  /** Set (true) only on a run stopped on request: neither passing nor failing. */
  isCancelled?: boolean
}

export interface TimingPhases {
  wait: number
  dns: number
  tcp: number
  tls: number
  firstByte: number
  download: number
  total: number
}

export interface TlsCertificate {
  subject: string
  issuer: string
  validTo: string
  daysRemaining: number
}

export interface HttpCheckResult {
  request: { method: string; url: string; headers: Record<string, string> }
  response: { status: number; statusText: string; headers: Record<string, string>; body: string } | null
  timingPhases: TimingPhases
  assertions: AssertionOutcome[]
  tls: TlsCertificate | null
  /** What an API check's setup and teardown scripts logged; only when it has some. */
  jobLog?: JobLog
}

/** One line a setup or teardown script logged (`console.log` and the like). */
export interface JobLogEntry {
  time: string
  level: string
  text: string
}

export interface JobLog {
  setup: JobLogEntry[]
  tearDown: JobLogEntry[]
}

/** Whether a run failed before `shouldFail` is applied, and why. */
export interface RawOutcome {
  failed: boolean
  error: RunError | null
  responseTime: number
  degradedResponseTime: number
  maxResponseTime: number
  shouldFail: boolean
  /**
   * Whether `shouldFail` may turn this failure into a pass (default true). False when the run never
   * reached what it validates (no HTTP response, no DNS answer, an unresolvable host): that still fails.
   */
  invertible?: boolean
}

/** Degraded and max response times and `shouldFail`, applied the same way for every type. */
export function verdictOf(outcome: RawOutcome, startedAt: Date, stoppedAt: Date): RunVerdict {
  const overMaxResponseTime = outcome.responseTime > outcome.maxResponseTime
  const failed = outcome.failed || overMaxResponseTime
  const inverted = outcome.shouldFail && outcome.invertible !== false
  const hasFailures = inverted ? !failed : failed
  return {
    startedAt: startedAt.toISOString(),
    stoppedAt: stoppedAt.toISOString(),
    responseTime: Math.round(outcome.responseTime),
    hasFailures,
    hasErrors: outcome.error !== null && outcome.error.type !== 'ASSERTION',
    // A pass that shouldFail made of a failure (a port that timed out as it should) is not slow, just passed.
    isDegraded: !hasFailures && !inverted && outcome.responseTime > outcome.degradedResponseTime,
    overMaxResponseTime,
    error: outcome.error,
  }
}

/** The verdict of a timed run whose only failure so far is `error` (null when none). */
export function timedVerdict(
  job: { degradedResponseTime: number; maxResponseTime: number; shouldFail: boolean },
  run: { error: RunError | null; responseTime: number; startedAt: Date; invertible?: boolean },
  ctx: RunnerContext,
): RunVerdict {
  const { error, responseTime, startedAt, invertible } = run
  const { degradedResponseTime, maxResponseTime, shouldFail } = job
  return verdictOf(
    {
      failed: error !== null,
      error,
      responseTime,
      degradedResponseTime,
      maxResponseTime,
      shouldFail,
      invertible,
    },
    startedAt,
    ctx.now(),
  )
}
