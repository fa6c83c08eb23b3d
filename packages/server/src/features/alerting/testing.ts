import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { CheckResultsTable } from '@svc/db'
import { listenOnLoopback } from '@svc/runner/testing'
import type { ServiceContext } from '../../context.ts'
import { writeResult } from '../../runs/store.ts'

export interface ReceivedRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
  /** Whether x-svc-signature matched the HMAC of the body bytes (null: no signature sent). */
  signatureValid: boolean | null
}

/** A real HTTP receiver for alert deliveries: verifies signatures, fails the first N requests on demand. */
export async function startReceiver(secret?: string) {
  const received: ReceivedRequest[] = []
  const state = { failNext: 0, failStatus: 500 }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const bytes = Buffer.concat(chunks)
      const signature = request.headers['x-svc-signature']
      let signatureValid: boolean | null = null
      if (typeof signature === 'string' && secret) {
        const expected = createHmac('sha256', secret).update(bytes).digest()
        const given = Buffer.from(signature, 'hex')
        signatureValid = given.length === expected.length && timingSafeEqual(given, expected)
      }
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: bytes.toString('utf8'),
        signatureValid,
      })
      if (state.failNext > 0) {
        state.failNext--
        response.statusCode = state.failStatus
        response.end('try again later')
        return
      }
      response.end('thanks')
    })
  })
  const { url } = await listenOnLoopback(server)
  return {
    url,
    received,
    /** Answers `status` to the next `count` requests. */
    failNext(count: number, status = 500) {
      state.failNext = count
      state.failStatus = status
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}

/** Stores a final (or attempt) result for `check` through the one write path, as a runner would. */
export async function storeResult(
  ctx: ServiceContext,
  check: { id: string; accountId: string; checkType?: string },
  result: {
    status: 'passing' | 'degraded' | 'failing'
    location?: string
    resultType?: 'FINAL' | 'ATTEMPT'
    jobId?: string
    sslDaysRemaining?: number
    statusCode?: number
  },
): Promise<{ id: string; stored: boolean }> {
  const now = ctx.clock.now().toISOString()
  const id = randomUUID()
  const failing = result.status === 'failing'
  const detail = {
    apiCheckResult: {
      response: {
        status: result.statusCode ?? (failing ? 503 : 200),
        statusText: failing ? 'Service Unavailable' : 'OK',
      },
      tls: result.sslDaysRemaining === undefined ? null : { daysRemaining: result.sslDaysRemaining },
    },
  }
  const row: CheckResultsTable = {
    id,
    job_id: result.jobId ?? `test:${id}`,
    check_id: check.id,
    account_id: check.accountId,
    check_type: check.checkType ?? 'API',
    run_location: result.location ?? 'local',
    started_at: now,
    stopped_at: now,
    response_time: failing ? 3000 : 120,
    has_failures: failing,
    has_errors: false,
    is_degraded: result.status === 'degraded',
    over_max_response_time: false,
    attempts: 1,
    result_type: result.resultType ?? 'FINAL',
    error_type: failing ? 'ASSERTION' : null,
    error_message: failing ? 'Status code 503 is not below 400' : null,
    status_code: failing ? 503 : 200,
    detail: JSON.stringify(detail),
    created_at: now,
    is_cancelled: false,
  }
  return { id, stored: await writeResult(ctx, { row }) }
}
