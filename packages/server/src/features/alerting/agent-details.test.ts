import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { type AgentJob, jobResultBody } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { asAgent, latestDueMs, privateLocationWithKey } from '../../testing/agent-locations.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { MAX_DETAIL_DEPTH } from '../agent-protocol/agent-protocol.service.ts'
import { createDispatcher } from './dispatcher.ts'
import { startReceiver } from './testing.ts'

/**
 * A private location's agent posts its runs' details as it likes (the protocol types only the verdict):
 * what alerts read of them is checked where it is read, so a wrong-typed, huge or odd value renders as the
 * variable's empty value (or is cut), never as `[object Object]` or a body no receiver wants.
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

    /**
     * Creates one API check per case in a new private location (all subscribed to one webhook channel with
     * the default body, every event variable), has the agent post each case's run, delivers the alerts and
     * answers their bodies by case name.
     */
    async function alertsOf(
      slugName: string,
      cases: Record<string, { detail?: unknown; detailJson?: string; message?: string }>,
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
        const {
          detail,
          detailJson,
          message = 'Assertion failed',
        } = cases[names.get(job.checkId) as string] as {
          detail?: unknown
          detailJson?: string
          message?: string
        }
        // Sent as text: JSON.stringify overflows its stack on a deep detail before the server sees it.
        const body = JSON.stringify(jobResultBody(job, failedOutcome('<detail>', message) as never))
        const posted = await asAgent(t, rawKey, agentId, {
          method: 'POST',
          url: '/agent/v1/results',
          payload: body.replace('"<detail>"', () => detailJson ?? JSON.stringify(detail)),
        })
        assert.equal(posted.statusCode, 204, posted.body)
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

    test('wrong-typed response and certificate details render as the empty value', async () => {
      const bodies = await alertsOf('odd-types', {
        'as the runner sends': {
          detail: {
            response: { status: 503, statusText: 'Service Unavailable' },
            tls: { daysRemaining: 3, domain: 'cdn.example.com' },
          },
        },
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
        'a certificate domain that is no host name': {
          detail: { response: { status: 42 }, tls: { daysRemaining: 3, domain: `${'a'.repeat(300)}.test` } },
        },
        'an empty certificate domain': {
          detail: { response: null, tls: { daysRemaining: 3, domain: '' } },
        },
      })
      assert.deepEqual(bodies['as the runner sends']?.map(fromDetail), [
        failure('503', 'Service Unavailable'),
        ssl('3', 'cdn.example.com', '503', 'Service Unavailable'),
      ])
      assert.deepEqual(bodies['objects for texts and numbers']?.map(fromDetail), [failure()])
      assert.deepEqual(bodies['texts for numbers, numbers for texts']?.map(fromDetail), [failure()])
      assert.deepEqual(bodies['lists and booleans']?.map(fromDetail), [failure()])
      assert.deepEqual(bodies['not whole numbers']?.map(fromDetail), [failure()])
      assert.deepEqual(bodies['numbers out of range']?.map(fromDetail), [failure()])
      // The certificate of the check's own host, as when the agent names no domain.
      assert.deepEqual(bodies['a certificate domain that is no host name']?.map(fromDetail), [
        failure(),
        ssl('3', URL_HOST),
      ])
      assert.deepEqual(bodies['an empty certificate domain']?.map(fromDetail), [
        failure(),
        ssl('3', URL_HOST),
      ])
    })

    test('a detail that is not an object, or holds no object where one is read, renders the empty values', async () => {
      // As deep as an agent may post: the detail, its response, then `depth` levels of status.
      const depth = MAX_DETAIL_DEPTH - 2
      const nested = `{"response": {"status": ${'{"status": '.repeat(depth)}503${'}'.repeat(depth)}}}`
      const bodies = await alertsOf('odd-shapes', {
        null: { detail: null },
        'a list': { detail: [{ response: { status: 503, statusText: 'Service Unavailable' } }] },
        'a number': { detail: 7 },
        'a text': { detail: 'Service Unavailable' },
        'a text response and certificate': { detail: { response: '503 Service Unavailable', tls: 'R3' } },
        'list response and certificate': { detail: { response: [503], tls: [{ daysRemaining: 3 }] } },
        'deeply nested': { detailJson: nested },
      })
      for (const name of Object.keys(bodies))
        assert.deepEqual(bodies[name]?.map(fromDetail), [failure()], name)
      assert.equal(Object.keys(bodies).length, 7)
    })

    test('long texts are cut: a status text at 200 characters, an error message at 4,000', async () => {
      const bodies = await alertsOf('long-texts', {
        long: {
          detail: { response: { status: 503, statusText: 'S'.repeat(100_000) } },
          message: 'E'.repeat(100_000),
        },
        'just short enough': {
          detail: { response: { status: 503, statusText: 'S'.repeat(200) } },
          message: 'E'.repeat(4000),
        },
      })
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
