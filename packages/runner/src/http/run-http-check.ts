import { describeAssertionFailure } from '../describe-assertion.ts'
import type { HttpCheckResult, RunError, RunnerContext, RunVerdict, TimingPhases } from '../types.ts'
import { timedVerdict } from '../types.ts'
import { classifyNetworkError } from './classify-error.ts'
import { FailedHop, fetchOnce, type Hop, RunTimeout, round } from './fetch-once.ts'
import { evaluateAssertions } from './http-assertions.ts'
import type { HttpJob } from './http-job.ts'
import { buildRequest, methodOf, type PreparedRequest, redirectedRequest } from './http-request.ts'

export type { HttpJob } from './http-job.ts'

export type HttpRunResult = RunVerdict & { checkResult: HttpCheckResult }

const MAX_REDIRECTS = 10
/**
 * Runs a URL or API check once: a fresh connection, measured phase by phase. Never throws.
 * `afterResponse` (an API check's teardown scripts) may change the response before its assertions
 * read it, or fail the run; its time is not the response time.
 */
export async function runHttpCheck(
  job: HttpJob,
  ctx: RunnerContext,
  afterResponse?: (hop: Hop) => Promise<RunError | null>,
): Promise<HttpRunResult> {
  const startedAt = ctx.now()
  const started = performance.now()
  const timeout = new RunTimeout(job.maxResponseTime)
  let request: PreparedRequest | undefined
  let hop: Hop | undefined
  let failedPhases: Hop['phases'] | undefined
  let error: RunError | null = null
  try {
    // Inside: a URL that doesn't parse (a space, a variable's value) is a failed run, not a throw.
    request = buildRequest(job)
    let url = request.target
    let sent = request
    for (let redirects = 0; ; redirects++) {
      hop = await fetchOnce(url, sent, job, ctx, timeout)
      const location = hop.response.headers.location
      const redirected = hop.response.status >= 300 && hop.response.status < 400 && location
      if (!redirected || job.request.followRedirects === false) break
      if (redirects >= MAX_REDIRECTS) {
        error = { type: 'NETWORK_ERROR', message: `More than ${MAX_REDIRECTS} redirects` }
        break
      }
      const next = new URL(location, url)
      sent = redirectedRequest(sent, hop.response.status, url, next)
      url = next
    }
  } catch (caught) {
    const failed = caught instanceof FailedHop
    error = classifyNetworkError(failed ? caught.cause : caught, timeout.expired)
    if (failed) failedPhases = caught.phases
  } finally {
    timeout.clear()
  }
  const total = performance.now() - started
  if (hop && !error && afterResponse) error = await afterResponse(hop)
  const assertions = hop && !error ? evaluateAssertions(job, hop, total) : []
  if (!error && hop) error = assertionError(job, hop, assertions)
  // shouldFail validates error statuses: a run that got no response (refused, timed out, TLS) still fails.
  const invertible = hop !== undefined && (error === null || error.type === 'ASSERTION')
  const verdict = timedVerdict(job, { error, responseTime: total, startedAt, invertible }, ctx)
  const phases = failedPhases ?? hop?.phases
  return {
    ...verdict,
    checkResult: {
      request: request
        ? { method: request.method, url: request.url, headers: request.headers }
        : { method: methodOf(job), url: job.request.url, headers: {} },
      response: hop?.response ?? null,
      timingPhases: phases ? { ...phases, total: round(total) } : emptyPhases(total),
      assertions,
      tls: hop?.tls ?? null,
    },
  }
}

/** The first failed assertion; without assertions, a status of 400 or more fails the run. */
function assertionError(job: HttpJob, hop: Hop, assertions: ReturnType<typeof evaluateAssertions>) {
  const failed = assertions.find((a) => !a.passed)
  if (failed) return { type: 'ASSERTION' as const, message: describeAssertionFailure(failed) }
  if (!job.request.assertions?.length && hop.response.status >= 400)
    return { type: 'ASSERTION' as const, message: `Status code ${hop.response.status} is not below 400` }
  return null
}

export function emptyPhases(total: number): TimingPhases {
  return { wait: 0, dns: 0, tcp: 0, tls: 0, firstByte: 0, download: 0, total: round(total) }
}
