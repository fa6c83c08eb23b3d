import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { type AgentJob, jobResultBody } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { writeResult } from '../../runs/store.ts'
import { asAgent, latestDueMs, privateLocationWithKey } from '../../testing/agent-locations.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { MAX_DETAIL_DEPTH } from '../agent-protocol/outcome-problems.ts'
import { createDispatcher } from './dispatcher.ts'
import { startReceiver } from './testing.ts'

/**
 * A private location's agent posts its runs' details, at its own version: what alerts read of them is checked
 * as it is posted (a value of another type is 400 and stores, so alerts, nothing), and again where it is read,
 * for results stored before that check: a wrong-typed, huge or odd value there renders as the variable's empty
 * value (or is cut), never as `[object Object]` or a body no receiver wants.
 */

const URL_HOST = 'shop.example.com'

for (const engine of testEngines()) {
  describe(`alert variables from what an agent posts on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-23T08:00:00.000Z')
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    before(async () => {
      receiver = await startReceiver()
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    const agentId = randomUUID()

    /** A failed run as an agent posts it, with `detail` as the API check's detail. */
    const failedOutcome = (detail: unknown, message: string) => {
      const at = new Date(nowMs).toISOString()
      return {
        verdict: {
          startedAt: at,
          stoppedAt: at,
          responseTime: 0,
          hasFailures: true,
          hasErrors: false,
          isDegraded: false,
          overMaxResponseTime: false,
          error: { type: 'ASSERTION', message },
        },
        detailKey: 'apiCheckResult',
        detail,
        statusCode: 503,
      }
    }

    /** A case: the run's detail (or its JSON), its error message, and what posting it answers (204). */
    type Case = { detail?: unknown; detailJson?: string; message?: string; answer?: number }

    /**
     * Creates one API check per case in a new private location (all subscribed to one webhook channel with
     * the default body, every event variable), has the agent post each case's run (asserting its answer) or,
     * `stored`, stores it as a server that took any detail did, delivers the alerts and answers their bodies
     * by case name.
     */
    async function alertsOf(
      slugName: string,
      cases: Record<string, Case>,
      via: 'posted' | 'stored' = 'posted',
    ): Promise<Record<string, Record<string, string>[]>> {
      receiver.received.length = 0
      const { rawKey } = await privateLocationWithKey(t, slugName)
      const channel = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: {
          type: 'WEBHOOK',
          config: { name: slugName, url: `${receiver.url}/hook`, template: '' },
          sslExpiry: true,
          sslExpiryThreshold: 30,
        },
      })
      assert.equal(channel.statusCode, 201, channel.body)
      const names = new Map<string, string>()
      for (const name of Object.keys(cases)) {
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/api?autoAssignAlerts=false',
          payload: {
            name,
            locations: [],
            privateLocations: [slugName],
            doubleCheck: false,
            request: { url: `https://${URL_HOST}/health` },
            alertChannelSubscriptions: [{ alertChannelId: json(channel).id, activated: true }],
          },
        })
        assert.equal(created.statusCode, 201, created.body)
        names.set(json(created).id, name)
      }
      nowMs = Math.max(nowMs, await latestDueMs(t, names.keys()))
      const jobs: AgentJob[] = json(
        await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0&max=100' }),
      )
      assert.deepEqual(jobs.map((job) => job.checkId).sort(), [...names.keys()].sort())
      for (const job of jobs) {
        const name = names.get(job.checkId) as string
        const { detail, detailJson, message = 'Assertion failed', answer = 204 } = cases[name] as Case
        // As text: JSON.stringify overflows its stack on a deep detail before the server sees it.
        const detailText = detailJson ?? JSON.stringify(detail)
        if (via === 'stored') {
          await storeFailure(job, message, `{"apiCheckResult": ${detailText}}`)
          continue
        }
        const body = JSON.stringify(jobResultBody(job, failedOutcome('<detail>', message) as never))
        const posted = await asAgent(t, rawKey, agentId, {
          method: 'POST',
          url: '/agent/v1/results',
          payload: body.replace('"<detail>"', () => detailText),
        })
        assert.equal(posted.statusCode, answer, `${name}: ${posted.body}`)
      }
      await createDispatcher(t.ctx, { log: { error: () => {} } }).runDue()
      const bodies: Record<string, Record<string, string>[]> = {}
      for (const request of receiver.received) {
        const body = JSON.parse(request.body) as Record<string, string>
        const name = names.get(body.CHECK_ID as string) as string
        bodies[name] = [...(bodies[name] ?? []), body].sort((a, b) =>
          (a.ALERT_TYPE as string).localeCompare(b.ALERT_TYPE as string),
        )
      }
      return bodies
    }

    /** Stores the failed run of `job` with `detail` (JSON) as it is, through the one write path. */
    async function storeFailure(job: AgentJob, message: string, detail: string) {
      const at = new Date(nowMs).toISOString()
      const stored = await writeResult(t.ctx, {
        row: {
          id: job.resultId,
          job_id: `stored-before:${job.resultId}`,
          check_id: job.checkId,
          account_id: t.owner.accountId,
          check_type: 'API',
          run_location: job.location,
          started_at: at,
          stopped_at: at,
          response_time: 0,
          has_failures: true,
          has_errors: false,
          is_degraded: false,
          over_max_response_time: false,
          attempts: 1,
          result_type: 'FINAL',
          error_type: 'ASSERTION',
          error_message: message,
          status_code: 503,
          detail,
          created_at: at,
          is_cancelled: false,
        },
      })
      assert.ok(stored)
    }

    /** The variables that come from a result's detail, as a rendered body shows them. */
    const fromDetail = (body: Record<string, string> | undefined) =>
      body && {
        ALERT_TYPE: body.ALERT_TYPE,
        API_CHECK_RESPONSE_STATUS_CODE: body.API_CHECK_RESPONSE_STATUS_CODE,
        API_CHECK_RESPONSE_STATUS_TEXT: body.API_CHECK_RESPONSE_STATUS_TEXT,
        SSL_DAYS_REMAINING: body.SSL_DAYS_REMAINING,
        SSL_CHECK_DOMAIN: body.SSL_CHECK_DOMAIN,
      }
    const failure = (code = '', text = '') => ({
      ALERT_TYPE: 'ALERT_FAILURE',
      API_CHECK_RESPONSE_STATUS_CODE: code,
      API_CHECK_RESPONSE_STATUS_TEXT: text,
      SSL_DAYS_REMAINING: '',
      SSL_CHECK_DOMAIN: '',
    })
    const ssl = (days: string, domain: string, code = '', text = '') => ({
      ALERT_TYPE: 'ALERT_SSL',
      API_CHECK_RESPONSE_STATUS_CODE: code,
      API_CHECK_RESPONSE_STATUS_TEXT: text,
      SSL_DAYS_REMAINING: days,
      SSL_CHECK_DOMAIN: domain,
    })

    /** Details of another type than the runner's where alerts read them (each case is refused when posted). */
    const wrongTyped: Record<string, Case> = {
      'objects for texts and numbers': {
        detail: {
          response: { status: { code: 503 }, statusText: { text: 'Service Unavailable' } },
          tls: { daysRemaining: { days: 3 }, domain: { name: 'cdn.example.com' } },
        },
      },
      'texts for numbers, numbers for texts': {
        detail: { response: { status: '503', statusText: 503 }, tls: { daysRemaining: '3', domain: 7 } },
      },
      'lists and booleans': {
        detail: {
          response: { status: [503], statusText: ['Service', 'Unavailable'] },
          tls: { daysRemaining: [3], domain: true },
        },
      },
      'not whole numbers': {
        detail: { response: { status: 503.5, statusText: null }, tls: { daysRemaining: 2.5 } },
      },
      'numbers out of range': {
        detail: { response: { status: 1e21 }, tls: { daysRemaining: 1e300 } },
      },
    }

    test('an agent’s detail of another type than the runner’s is refused (400): it stores nothing and alerts nothing', async () => {
      const refused = Object.fromEntries(
        Object.entries(wrongTyped).map(([name, each]) => [name, { ...each, answer: 400 }]),
      )
      const bodies = await alertsOf('odd-types', {
        'as the runner sends': {
          detail: {
            response: { status: 503, statusText: 'Service Unavailable' },
            tls: { daysRemaining: 3, domain: 'cdn.example.com' },
          },
        },
        ...refused,
        'a status no HTTP answer has': { detail: { response: { status: 42 }, tls: { daysRemaining: 3 } } },
        'a certificate domain that is no host name': {
          detail: { response: { status: 503 }, tls: { daysRemaining: 3, domain: `${'a'.repeat(300)}.test` } },
        },
        'an empty certificate domain': {
          detail: { response: null, tls: { daysRemaining: 3, domain: '' } },
        },
        'no detail (the run threw)': { detail: null },
      })
      assert.deepEqual(bodies['as the runner sends']?.map(fromDetail), [
        failure('503', 'Service Unavailable'),
        ssl('3', 'cdn.example.com', '503', 'Service Unavailable'),
      ])
      for (const name of Object.keys(refused)) assert.equal(bodies[name], undefined, `${name}: no alert`)
      // Taken, and shown only as far as they are what the variables hold.
      assert.deepEqual(bodies['a status no HTTP answer has']?.map(fromDetail), [
        failure(),
        ssl('3', URL_HOST),
      ])
      // The certificate of the check's own host, as when the agent names no domain.
      assert.deepEqual(bodies['a certificate domain that is no host name']?.map(fromDetail), [
        failure('503'),
        ssl('3', URL_HOST, '503'),
      ])
      assert.deepEqual(bodies['an empty certificate domain']?.map(fromDetail), [
        failure(),
        ssl('3', URL_HOST),
      ])
      assert.deepEqual(bodies['no detail (the run threw)']?.map(fromDetail), [failure()])
    })

    test('wrong-typed response and certificate details stored before they were checked render as the empty value', async () => {
      const bodies = await alertsOf('odd-types-stored', wrongTyped, 'stored')
      for (const name of Object.keys(wrongTyped))
        assert.deepEqual(bodies[name]?.map(fromDetail), [failure()], name)
      assert.equal(Object.keys(bodies).length, Object.keys(wrongTyped).length)
    })

    test('a detail that is not an object, or holds no object where one is read, is refused; stored before, it renders the empty values', async () => {
      // As deep as an agent may post: the detail, its response, then `depth` levels of status.
      const depth = MAX_DETAIL_DEPTH - 2
      const nested = `{"response": {"status": ${'{"status": '.repeat(depth)}503${'}'.repeat(depth)}}}`
      const shapes: Record<string, Case> = {
        'a list': { detail: [{ response: { status: 503, statusText: 'Service Unavailable' } }] },
        'a number': { detail: 7 },
        'a text': { detail: 'Service Unavailable' },
        'a text response and certificate': { detail: { response: '503 Service Unavailable', tls: 'R3' } },
        'list response and certificate': { detail: { response: [503], tls: [{ daysRemaining: 3 }] } },
        'deeply nested': { detailJson: nested },
      }
      const posted = await alertsOf(
        'odd-shapes',
        Object.fromEntries(Object.entries(shapes).map(([name, each]) => [name, { ...each, answer: 400 }])),
      )
      assert.deepEqual(posted, {}, 'nothing stored, nothing alerted')
      const stored = await alertsOf('odd-shapes-stored', shapes, 'stored')
      for (const name of Object.keys(shapes))
        assert.deepEqual(stored[name]?.map(fromDetail), [failure()], name)
      assert.equal(Object.keys(stored).length, 6)
    })

    test('long texts are cut: a status text at 200 characters, an error message at 4,000', async () => {
      const bodies = await alertsOf('long-texts', {
        long: {
          // The longest status text an agent may post.
          detail: { response: { status: 503, statusText: 'S'.repeat(1024) } },
          message: 'E'.repeat(100_000),
        },
        'just short enough': {
          detail: { response: { status: 503, statusText: 'S'.repeat(200) } },
          message: 'E'.repeat(4000),
        },
        'a status text past what an agent may post': {
          detail: { response: { status: 503, statusText: 'S'.repeat(1025) } },
          answer: 400,
        },
      })
      assert.equal(bodies['a status text past what an agent may post'], undefined)
      const stored = await alertsOf(
        'long-texts-stored',
        { long: { detail: { response: { status: 503, statusText: 'S'.repeat(100_000) } } } },
        'stored',
      )
      assert.ok(stored.long?.[0]?.API_CHECK_RESPONSE_STATUS_TEXT === `${'S'.repeat(199)}…`)
      // Compared as (length, text) pairs: a failing comparison of 100,000 characters prints them all.
      const shown = (text: string | undefined) => [text?.length, text === undefined ? '' : text.slice(-3)]
      const [long] = bodies.long ?? []
      assert.deepEqual(shown(long?.API_CHECK_RESPONSE_STATUS_TEXT), [200, 'SS…'])
      assert.ok(long?.API_CHECK_RESPONSE_STATUS_TEXT === `${'S'.repeat(199)}…`)
      assert.deepEqual(shown(long?.CHECK_ERROR_MESSAGE), [4000, 'EE…'])
      assert.ok(long?.CHECK_ERROR_MESSAGE === `${'E'.repeat(3999)}…`)
      assert.equal(long?.ALERT_TITLE, 'long has failed')
      const [short] = bodies['just short enough'] ?? []
      assert.ok(short?.API_CHECK_RESPONSE_STATUS_TEXT === 'S'.repeat(200))
      assert.ok(short?.CHECK_ERROR_MESSAGE === 'E'.repeat(4000))
      const listed = json(await t.call({ method: 'GET', url: `/v1/check-results/${long?.CHECK_ID}` }))
      assert.equal(listed[0].error.message.length, 100_000, 'the result itself keeps all of it')
    })
  })
}
