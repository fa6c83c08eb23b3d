import { execFile } from 'node:child_process'
import { isIP } from 'node:net'
import { type Assertion, type AssertionOutcome, evaluateAssertion } from '@svc/core'
import { describeAssertionFailure } from '../describe-assertion.ts'
import { type RunError, type RunnerContext, type RunVerdict, verdictOf } from '../types.ts'
import { type PingSummary, parsePingOutput } from './parse-ping.ts'

export interface IcmpJob {
  request: { hostname: string; pingCount?: number; ipFamily?: 'IPv4' | 'IPv6'; assertions?: Assertion[] }
  degradedPacketLossThreshold: number
  maxPacketLossThreshold: number
  shouldFail: boolean
}

export interface IcmpCheckResult {
  hostname: string
  summary: PingSummary | null
  assertions: AssertionOutcome[]
}

export type IcmpRunResult = RunVerdict & { checkResult: IcmpCheckResult }

const PING_INTERVAL_SECONDS = 0.2
const REPLY_WAIT_SECONDS = 2

/**
 * Pings through the system `ping` (iputils; works unprivileged where Node has no ICMP). Packet loss
 * over the thresholds degrades or fails the run; `LATENCY` assertions read min/avg/max.
 */
export async function runIcmpCheck(job: IcmpJob, ctx: RunnerContext): Promise<IcmpRunResult> {
  const startedAt = ctx.now()
  const count = job.request.pingCount ?? 10
  const target = pingTarget(job.request.hostname, job.request.ipFamily)
  const args = [
    '-n',
    target.family === 6 ? '-6' : '-4',
    '-c',
    String(count),
    '-i',
    String(PING_INTERVAL_SECONDS),
    '-W',
    String(REPLY_WAIT_SECONDS),
    '--',
    target.host,
  ]
  const { output, failure } = target.mismatch
    ? { output: '', failure: target.mismatch }
    : await ping(args, (count * PING_INTERVAL_SECONDS + REPLY_WAIT_SECONDS + 5) * 1000)
  const summary = parsePingOutput(output)
  let error: RunError | null = null
  if (!summary)
    error = { type: 'NETWORK_ERROR', message: failure ?? (output.trim() || 'ping gave no summary') }
  else if (summary.packetLoss > job.maxPacketLossThreshold) {
    error = {
      type: 'NETWORK_ERROR',
      message: `Packet loss ${summary.packetLoss}% is over ${job.maxPacketLossThreshold}%`,
    }
  }
  const assertions = summary && !error ? evaluateAll(job.request.assertions ?? [], summary) : []
  const failed = assertions.find((a) => !a.passed)
  if (!error && failed) error = { type: 'ASSERTION', message: describeAssertionFailure(failed) }
  // An ICMP run's response time is its average round trip.
  const latency = summary?.latency?.avg ?? 0
  const verdict = verdictOf(
    {
      failed: error !== null,
      error,
      responseTime: latency,
      degradedResponseTime: Number.POSITIVE_INFINITY,
      maxResponseTime: Number.POSITIVE_INFINITY,
      shouldFail: job.shouldFail,
      // A host expected not to answer passes on lost packets; a ping that never ran (no such host) fails.
      invertible: summary !== null,
    },
    startedAt,
    ctx.now(),
  )
  // Under shouldFail, loss is what passes the run: it can't make it degraded too.
  const degraded =
    !verdict.hasFailures && !job.shouldFail && (summary?.packetLoss ?? 0) > job.degradedPacketLossThreshold
  return {
    ...verdict,
    isDegraded: degraded,
    checkResult: { hostname: job.request.hostname, summary, assertions },
  }
}

/**
 * What to ping, in which family. An IP address is pinged in its own family (`[::1]` as `::1`): `ipFamily`
 * IPv4 is what every check carries unless it says otherwise, so it can't overrule an IPv6 address. IPv6,
 * never a default, with an IPv4 address is a contradiction reported as such rather than ping's
 * "Address family for hostname not supported". A host name is resolved in `ipFamily` (default IPv4).
 */
function pingTarget(
  hostname: string,
  ipFamily: 'IPv4' | 'IPv6' | undefined,
): { host: string; family: 4 | 6; mismatch: string | null } {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  const literal = isIP(host)
  if (literal === 6) return { host, family: 6, mismatch: null }
  if (literal === 4 && ipFamily === 'IPv6') {
    const mismatch = `${host} is an IPv4 address and ipFamily is IPv6: set ipFamily to IPv4 or ping an IPv6 address`
    return { host, family: 4, mismatch }
  }
  return { host: hostname, family: literal === 4 || ipFamily !== 'IPv6' ? 4 : 6, mismatch: null }
}

function evaluateAll(assertions: Assertion[], summary: PingSummary): AssertionOutcome[] {
  return assertions.map((assertion) =>
    evaluateAssertion(assertion, assertion.source === 'LATENCY' ? (summary.latency ?? {}) : summary),
  )
}

function ping(args: string[], timeoutMs: number): Promise<{ output: string; failure: string | null }> {
  return new Promise((resolve) => {
    execFile('ping', args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = (error as NodeJS.ErrnoException | null)?.code
      if (code === 'ENOENT') {
        return resolve({ output: '', failure: 'The system ping command is missing (install iputils-ping)' })
      }
      resolve({
        output: `${stdout}\n${stderr}`,
        failure: error && !stdout ? stderr.trim() || error.message : null,
      })
    })
  })
}
