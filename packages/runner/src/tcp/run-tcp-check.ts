import { connect, type LookupFunction } from 'node:net'
import { type Assertion, type AssertionOutcome, evaluateAssertion } from '@svc/core'
import { describeAssertionFailure } from '../describe-assertion.ts'
import { classifyNetworkError, isLookupFailure } from '../http/classify-error.ts'
import { type RunError, type RunnerContext, type RunVerdict, timedVerdict } from '../types.ts'

export interface TcpJob {
  request: {
    hostname: string
    port: number
    data?: string
    ipFamily?: 'IPv4' | 'IPv6'
    assertions?: Assertion[]
  }
  degradedResponseTime: number
  maxResponseTime: number
  shouldFail: boolean
}

export interface TcpCheckResult {
  hostname: string
  port: number
  responseData: string
  timingPhases: { dns: number; connection: number; data: number; total: number }
  assertions: AssertionOutcome[]
}

export type TcpRunResult = RunVerdict & { checkResult: TcpCheckResult }

/**
 * After sending, the reply is complete when the peer closes or stays quiet this long.
 * Exported because the tests keep a server idle past it.
 */
export const IDLE_AFTER_DATA_MS = 500
const MAX_RESPONSE_BYTES = 64 * 1024

/** Connects, optionally sends `data`, reads the reply, and checks it. Never throws. */
export async function runTcpCheck(job: TcpJob, ctx: RunnerContext): Promise<TcpRunResult> {
  const startedAt = ctx.now()
  const started = performance.now()
  const progress: Progress = { lookup: 0, connect: 0, end: 0, timedOut: false }
  let responseData = ''
  let error: RunError | null = null
  let unresolved = false
  try {
    responseData = await exchange(job, ctx, progress)
  } catch (caught) {
    error = classifyNetworkError(caught, progress.timedOut)
    unresolved = !progress.timedOut && isLookupFailure(caught)
  }
  const total = (!error && progress.end ? progress.end : performance.now()) - started
  const assertions = error
    ? []
    : (job.request.assertions ?? []).map((a) =>
        evaluateAssertion(a, a.source === 'RESPONSE_TIME' ? Math.round(total) : responseData),
      )
  const failed = assertions.find((a) => !a.passed)
  if (!error && failed) error = { type: 'ASSERTION', message: describeAssertionFailure(failed) }
  const afterDns = progress.lookup || started
  // shouldFail validates a closed port: refused, reset or unanswered passes; a host that doesn't resolve fails.
  const verdict = timedVerdict(job, { error, responseTime: total, startedAt, invertible: !unresolved }, ctx)
  return {
    ...verdict,
    checkResult: {
      hostname: job.request.hostname,
      port: job.request.port,
      responseData,
      timingPhases: {
        dns: round(afterDns - started),
        connection: round(progress.connect ? progress.connect - afterDns : 0),
        data: round(progress.connect && progress.end ? progress.end - progress.connect : 0),
        total: round(total),
      },
      assertions,
    },
  }
}

/** When each step of the exchange happened (performance.now(), 0 if it didn't), and whether time ran out. */
interface Progress {
  lookup: number
  connect: number
  end: number
  timedOut: boolean
}

/** Connects, sends `data` if any, and resolves with the reply; rejects with the socket's error or a timeout. */
function exchange(job: TcpJob, ctx: RunnerContext, progress: Progress): Promise<string> {
  // A reply an assertion reads is awaited until its first byte (or maxResponseTime), even without `data`.
  const readsReply = job.request.assertions?.some((a) => a.source === 'RESPONSE_DATA') ?? false
  return new Promise<string>((resolve, reject) => {
    const socket = connect({
      // `[::1]` is how an IPv6 address is written beside a port (as ICMP checks take it): connect to ::1.
      host: job.request.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: job.request.port,
      family: job.request.ipFamily === 'IPv6' ? 6 : 4,
      ...(ctx.lookup ? { lookup: ctx.lookup as LookupFunction } : {}),
    })
    const chunks: Buffer[] = []
    let idle: NodeJS.Timeout | undefined
    const finish = () => {
      clearTimeout(idle)
      clearTimeout(deadline)
      // A reply ends at its last byte: the quiet that says it is over is not part of it.
      progress.end ||= performance.now()
      socket.destroy()
      resolve(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'))
    }
    const deadline = setTimeout(() => {
      // What arrived by maxResponseTime is the reply of a peer that keeps the connection open.
      if (chunks.length > 0) return finish()
      progress.timedOut = true
      socket.destroy()
      reject(new Error('timeout'))
    }, job.maxResponseTime)
    socket.once('lookup', () => {
      progress.lookup = performance.now()
    })
    socket.once('connect', () => {
      progress.connect = performance.now()
      if (job.request.data) socket.write(job.request.data)
      else if (!readsReply) return finish()
      if (!readsReply) idle = setTimeout(finish, IDLE_AFTER_DATA_MS)
    })
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      progress.end = performance.now()
      clearTimeout(idle)
      idle = setTimeout(finish, IDLE_AFTER_DATA_MS)
    })
    socket.once('end', finish)
    socket.once('error', (e) => {
      clearTimeout(idle)
      clearTimeout(deadline)
      reject(e)
    })
  })
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100
}
