import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, beforeEach, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { sql } from 'kysely'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { claimDue } from './alert-notifications.repo.ts'
import { createDispatcher, MAX_ATTEMPTS, RETRY_DELAY_MS } from './dispatcher.ts'
import { startReceiver, storeResult } from './testing.ts'

const SECRET = 'whsec-test-0123456789'
const MINUTE = 60_000

for (const engine of testEngines()) {
  describe(`alerting end to end on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-05-01T10:00:00.000Z')
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    before(async () => {
      receiver = await startReceiver(SECRET)
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })
    beforeEach(() => {
      receiver.received.length = 0
      receiver.failNext(0)
    })

    const dispatcher = () => createDispatcher(t.ctx, { log: { error: () => {} } })
    const advance = (ms: number) => {
      nowMs += ms
    }

    async function webhookChannel(extra: object = {}, config: object = {}) {
      const res = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: {
          type: 'WEBHOOK',
          config: {
            name: 'receiver',
            url: `${receiver.url}/hook/{{CHECK_ID}}`,
            queryParameters: [{ key: 'type', value: '{{ALERT_TYPE}}' }],
            headers: [{ key: 'X-Check', value: '{{CHECK_NAME}}' }],
            template:
              '{ "type": "{{ALERT_TYPE}}", "title": "{{ALERT_TITLE}}",\n  "check": "{{CHECK_NAME}}", "result": "{{CHECK_RESULT_ID}}", "tags": [{{#each TAGS}}"{{this}}"{{#unless @last}},{{/unless}}{{/each}}] }',
            webhookSecret: SECRET,
            ...config,
          },
          ...extra,
        },
      })
      assert.equal(res.statusCode, 201, res.body)
      return json(res) as { id: number }
    }

    async function apiCheck(channelId: number, extra: object = {}) {
      const res = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: {
          name: 'Shop "API" ✓',
          activated: false,
          tags: ['shop'],
          request: { url: 'https://shop.example.com/health' },
          alertChannelSubscriptions: [{ alertChannelId: channelId, activated: true }],
          ...extra,
        },
      })
      assert.equal(res.statusCode, 201, res.body)
      const check = json(res)
      return { id: check.id as string, accountId: t.owner.accountId }
    }

    const types = () => receiver.received.map((r) => JSON.parse(r.body).type as string)

    test('one failure episode: one signed failure alert, one recovery, nothing in between', async () => {
      const channel = await webhookChannel()
      const check = await apiCheck(channel.id)
      const node = dispatcher()
      const first = await storeResult(t.ctx, check, { status: 'failing' })
      assert.equal(await node.runDue(), 1)
      for (let i = 0; i < 3; i++) {
        advance(MINUTE)
        await storeResult(t.ctx, check, { status: 'failing' })
        await node.runDue()
      }
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing' })
      await node.runDue()
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing' })
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE', 'ALERT_RECOVERY'])

      const [failure] = receiver.received
      assert.ok(failure)
      assert.equal(failure.signatureValid, true)
      assert.equal(failure.method, 'POST')
      assert.equal(failure.url, `/hook/${check.id}?type=ALERT_FAILURE`)
      // Header bytes are UTF-8; Node hands them over as Latin-1 text.
      assert.equal(Buffer.from(String(failure.headers['x-check']), 'latin1').toString('utf8'), 'Shop "API" ✓')
      assert.equal(failure.headers['content-type'], 'application/json')
      assert.match(String(failure.headers['x-svc-timestamp']), /^\d+$/)
      const body = JSON.parse(failure.body)
      assert.equal(failure.body, JSON.stringify(body), 'the body is sent compacted')
      assert.deepEqual(body, {
        type: 'ALERT_FAILURE',
        title: 'Shop "API" ✓ has failed',
        check: 'Shop "API" ✓',
        result: first.id,
        tags: ['shop'],
      })

      const list = json(await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }))
      assert.deepEqual(
        list.map((n: { alertType: string; deliveryStatus: string; attempts: number }) => [
          n.alertType,
          n.deliveryStatus,
          n.attempts,
        ]),
        [
          ['ALERT_RECOVERY', 'DELIVERED', 1],
          ['ALERT_FAILURE', 'DELIVERED', 1],
        ],
      )
      assert.equal(list[1].lastResponse.statusCode, 200)
      assert.equal(list[1].lastResponse.body, 'thanks')
    })

    test('subscriptions and channels changed between results hold for the next result, though folds keep them in memory', async () => {
      const first = await webhookChannel()
      const second = await webhookChannel()
      const check = await apiCheck(first.id)
      const node = dispatcher()
      const foldAndSend = async (status: 'failing' | 'passing') => {
        advance(MINUTE)
        await storeResult(t.ctx, check, { status })
        await node.runDue()
      }
      // Read by this fold and kept: the check's subscription of the first channel.
      await foldAndSend('passing')
      const resubscribed = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { alertChannelSubscriptions: [{ alertChannelId: second.id, activated: true }] },
      })
      assert.equal(resubscribed.statusCode, 200, resubscribed.body)
      await foldAndSend('failing')
      assert.deepEqual(
        receiver.received.map((r) => r.url),
        [`/hook/${check.id}?type=ALERT_FAILURE`],
      )
      const notified = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }),
      )
      assert.deepEqual(
        notified.map((n: { alertChannelId: number }) => n.alertChannelId),
        [second.id],
      )
      // The channel itself changed: it no longer sends recoveries.
      const { config } = json(await t.call({ method: 'GET', url: `/v1/alert-channels/${second.id}` }))
      const quiet = await t.call({
        method: 'PUT',
        url: `/v1/alert-channels/${second.id}`,
        payload: { type: 'WEBHOOK', config: { ...config, webhookSecret: SECRET }, sendRecovery: false },
      })
      assert.equal(quiet.statusCode, 200, quiet.body)
      await foldAndSend('passing')
      assert.deepEqual(types(), ['ALERT_FAILURE'])
    })

    test('a failing receiver gets up to 5 retries 20 s apart, each signed, none twice; then FAILED', async () => {
      const channel = await webhookChannel()
      const check = await apiCheck(channel.id)
      const node = dispatcher()
      receiver.failNext(2)
      await storeResult(t.ctx, check, { status: 'failing' })
      await node.runDue()
      assert.equal(receiver.received.length, 1)
      advance(RETRY_DELAY_MS - 1)
      await node.runDue()
      assert.equal(receiver.received.length, 1, 'no retry before 20 s')
      advance(1)
      await node.runDue()
      await node.runDue()
      advance(RETRY_DELAY_MS)
      await node.runDue()
      assert.equal(receiver.received.length, 3)
      assert.ok(receiver.received.every((r) => r.signatureValid === true))
      const timestamps = receiver.received.map((r) => Number(r.headers['x-svc-timestamp']))
      assert.deepEqual(
        timestamps.map((ts) => ts - (timestamps[0] ?? 0)),
        [0, RETRY_DELAY_MS, 2 * RETRY_DELAY_MS],
      )
      const [delivered] = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }),
      )
      assert.equal(delivered.deliveryStatus, 'DELIVERED')
      assert.equal(delivered.attempts, 3)
      assert.deepEqual(
        delivered.attemptLog.map((a: { statusCode: number }) => a.statusCode),
        [500, 500, 200],
      )

      // A receiver that never recovers: the first attempt and 5 retries, then FAILED.
      receiver.received.length = 0
      receiver.failNext(100, 503)
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing' })
      for (let i = 0; i < 10; i++) {
        await node.runDue()
        advance(RETRY_DELAY_MS)
      }
      assert.equal(receiver.received.length, MAX_ATTEMPTS)
      const [failed] = json(
        await t.call({
          method: 'GET',
          url: `/v1/alert-notifications?checkId=${check.id}&alertType=ALERT_RECOVERY`,
        }),
      )
      assert.equal(failed.deliveryStatus, 'FAILED')
      assert.equal(failed.attempts, 6)
      assert.equal(failed.nextAttemptAt, null)
      assert.equal(failed.lastResponse.statusCode, 503)
    })

    test('a template that does not render fails at once; every status above 399 is retried, under one delivery id', async () => {
      // Four nested loops over 40 tags are 2.56 million iterations: past the #each budget at every attempt.
      const loops = await webhookChannel(
        {},
        {
          template:
            '{"n": "{{#each TAGS}}{{#each ../TAGS}}{{#each ../../TAGS}}{{#each ../../../TAGS}}x{{/each}}{{/each}}{{/each}}{{/each}}"}',
        },
      )
      const looped = await apiCheck(loops.id, { tags: Array.from({ length: 40 }, (_, i) => `t${i}`) })
      const node = dispatcher()
      await storeResult(t.ctx, looped, { status: 'failing' })
      await node.runDue()
      advance(RETRY_DELAY_MS)
      await node.runDue()
      assert.equal(receiver.received.length, 0)
      const [renderFailed] = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${looped.id}` }),
      )
      assert.equal(renderFailed.deliveryStatus, 'FAILED')
      assert.equal(renderFailed.attempts, 1)
      assert.equal(renderFailed.nextAttemptAt, null)
      assert.equal(
        renderFailed.lastResponse.error,
        'the template does not render: the template renders too much: #each may produce at most 1 MiB',
      )

      // Any status above 399 is retried, as the spec says, 4xx included (a receiver mid-deploy answers 404).
      const channel = await webhookChannel()
      const check = await apiCheck(channel.id)
      receiver.failNext(1, 404)
      await storeResult(t.ctx, check, { status: 'failing' })
      await node.runDue()
      advance(RETRY_DELAY_MS)
      await node.runDue()
      const [retried] = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }),
      )
      assert.deepEqual(
        [retried.deliveryStatus, retried.attemptLog.map((a: { statusCode: number }) => a.statusCode)],
        ['DELIVERED', [404, 200]],
      )

      // Every attempt of one delivery carries the same delivery id; another delivery has its own.
      receiver.received.length = 0
      receiver.failNext(2, 429)
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing' })
      await node.runDue()
      advance(RETRY_DELAY_MS)
      await node.runDue()
      receiver.failNext(1, 503)
      advance(RETRY_DELAY_MS)
      await node.runDue()
      advance(RETRY_DELAY_MS)
      await node.runDue()
      const [recovery] = json(
        await t.call({
          method: 'GET',
          url: `/v1/alert-notifications?checkId=${check.id}&alertType=ALERT_RECOVERY`,
        }),
      )
      assert.deepEqual(
        recovery.attemptLog.map((a: { statusCode: number }) => a.statusCode),
        [429, 429, 503, 200],
      )
      assert.equal(recovery.deliveryStatus, 'DELIVERED')
      assert.deepEqual(
        receiver.received.map((r) => r.headers['x-svc-delivery-id']),
        [recovery.id, recovery.id, recovery.id, recovery.id],
      )
      assert.notEqual(recovery.id, retried.id)
    })

    test('a host and port from a variable go in the URL as they are; in the query they stay encoded', async () => {
      const host = receiver.url.replace('http://', '')
      const variable = await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'HOST_WITH_PORT', value: host },
      })
      assert.equal(variable.statusCode, 201, variable.body)
      const channel = await webhookChannel(
        {},
        {
          url: 'http://{{HOST_WITH_PORT}}/hooks/{{CHECK_NAME}}?from={{HOST_WITH_PORT}}',
          queryParameters: [],
        },
      )
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED', JSON.stringify(sent.lastResponse))
      assert.equal(receiver.received[0]?.url, `/hooks/Sample%20check?from=${encodeURIComponent(host)}`)
      assert.equal(receiver.received[0]?.headers['x-svc-delivery-id'], sent.id)
    })

    test('a Host header is sent as set (a receiver reached by address behind a virtual host)', async () => {
      const channel = await webhookChannel(
        {},
        {
          headers: [
            { key: 'Host', value: 'alerts.example.test' },
            { key: 'Connection', value: 'close' },
          ],
        },
      )
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED', JSON.stringify(sent.lastResponse))
      assert.equal(receiver.received[0]?.headers.host, 'alerts.example.test')
      assert.equal(receiver.received[0]?.headers.connection, 'close')
      assert.equal(receiver.received[0]?.signatureValid, true)
    })

    test('a TE header goes as trailers, the one form HTTP/2 takes, however it was written', async () => {
      const channel = await webhookChannel({}, { headers: [{ key: 'te', value: ' Trailers ' }] })
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED', JSON.stringify(sent.lastResponse))
      assert.equal(receiver.received[0]?.headers.te, 'trailers')
    })

    test('a JSON body goes compacted as JSON.stringify writes it, so a receiver re-serializing it verifies the signature', async () => {
      const channel = await webhookChannel(
        {},
        {
          template:
            '{\n  "id": 12345678901234567891,\n  "price": 1.50,\n  "text": "a  b \\u00e9",\n  "check": "{{CHECK_NAME}}"\n}',
        },
      )
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED', JSON.stringify(sent.lastResponse))
      const body = receiver.received[0]?.body ?? ''
      assert.equal(
        body,
        '{"id":12345678901234567000,"price":1.5,"text":"a  b \u00e9","check":"Sample check"}',
      )
      assert.equal(body, JSON.stringify(JSON.parse(body)))
      assert.equal(receiver.received[0]?.signatureValid, true)
    })

    test('{{REGION}} is the region of the node sending the alert, not the run location', async () => {
      const channel = await webhookChannel(
        {},
        { template: '{"region": "{{REGION}}", "ran": "{{RUN_LOCATION}}"}' },
      )
      const check = await apiCheck(channel.id)
      const previous = t.ctx.alerting
      t.ctx.alerting = { ...previous, region: 'eu-central-1' }
      try {
        await storeResult(t.ctx, check, { status: 'failing', location: 'us-east-1' })
        await dispatcher().runDue()
      } finally {
        t.ctx.alerting = previous
      }
      assert.deepEqual(JSON.parse(receiver.received[0]?.body ?? '{}'), {
        region: 'eu-central-1',
        ran: 'us-east-1',
      })
    })

    test('a recovery decided while the failure waits for its retry goes out after it, never before', async () => {
      const channel = await webhookChannel()
      const check = await apiCheck(channel.id)
      const node = dispatcher()
      receiver.failNext(2)
      await storeResult(t.ctx, check, { status: 'failing' })
      await node.runDue()
      advance(5_000)
      await storeResult(t.ctx, check, { status: 'passing' })
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE'], 'the recovery waits for the failure')
      advance(RETRY_DELAY_MS)
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE', 'ALERT_FAILURE'], 'the failure failed again: still waiting')
      advance(RETRY_DELAY_MS)
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE', 'ALERT_FAILURE', 'ALERT_FAILURE', 'ALERT_RECOVERY'])
      const [recovery, failure] = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }),
      )
      assert.deepEqual(
        [
          failure.alertType,
          failure.deliveryStatus,
          failure.attempts,
          recovery.alertType,
          recovery.deliveryStatus,
          recovery.attempts,
        ],
        ['ALERT_FAILURE', 'DELIVERED', 3, 'ALERT_RECOVERY', 'DELIVERED', 1],
      )
      const stamps = receiver.received.map((r) => Number(r.headers['x-svc-timestamp']))
      assert.deepEqual(
        stamps,
        [...stamps].sort((a, b) => a - b),
      )
    })

    test('two nodes claiming at once: the recovery is not taken while another node is claiming its failure', {
      skip: engine.engine !== 'postgres' && 'SQLite has one writer: two claims never interleave',
    }, async () => {
      const channel = await webhookChannel()
      const check = await apiCheck(channel.id)
      receiver.failNext(1)
      await storeResult(t.ctx, check, { status: 'failing' })
      await dispatcher().runDue()
      advance(5_000)
      await storeResult(t.ctx, check, { status: 'passing' })
      advance(RETRY_DELAY_MS)
      // Both are due now. Node A is inside its claim (it has taken the failure, not committed yet)
      // when node B claims: B must not send the recovery alongside A's retry of the failure.
      let commitA = () => {}
      const aCommitted = new Promise<void>((done) => {
        commitA = done
      })
      let claimB: Promise<{ alert_type: string }[]> | undefined
      const claimedA = await t.ctx.db.transaction().execute(async (db) => {
        const claimed = await claimDue(
          { ...t.ctx, db },
          { owner: 'node-a', nowMs, leaseMs: 60_000, limit: 1 },
        )
        claimB = claimDue(t.ctx, { owner: 'node-b', nowMs, leaseMs: 60_000, limit: 50 })
        let settled = false
        claimB.then(
          () => {
            settled = true
          },
          () => {
            settled = true
          },
        )
        // Until B has its answer or waits for A (no sleep sized to a speed: a condition, long limit).
        for (let i = 0; i < 6000 && !settled; i++) {
          const { rows } = await sql<{ waiting: number }>`
              select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted`.execute(
            t.ctx.db,
          )
          if ((rows[0]?.waiting ?? 0) > 0) break
          await new Promise((done) => setTimeout(done, 10))
        }
        commitA()
        return claimed
      })
      await aCommitted
      assert.deepEqual(
        claimedA.map((row) => row.alert_type),
        ['ALERT_FAILURE'],
      )
      assert.deepEqual(
        (await claimB)?.map((row) => row.alert_type),
        [],
        'the recovery waits for the failure in flight on node A',
      )
    })

    test("a receiver that hangs holds up only its own alerts, not other channels' alerts", async (context) => {
      // Holds every request open until released, and tells whether the client gave up meanwhile.
      const held = { requests: 0, clientGaveUp: false, release: () => {} }
      const hanging = createServer((request, response) => {
        held.requests++
        request.resume()
        response.on('close', () => {
          if (!response.writableFinished) held.clientGaveUp = true
        })
        held.release = () => response.end('late')
      })
      const { url: hangingUrl } = await listenOnLoopback(hanging, context)
      const until = async (what: string, condition: () => boolean) => {
        for (let i = 0; i < 2000 && !condition(); i++) await new Promise((done) => setTimeout(done, 10))
        assert.ok(condition(), what)
      }
      const node = dispatcher()
      node.start()
      try {
        const slow = await apiCheck((await webhookChannel({}, { url: `${hangingUrl}/hook` })).id)
        const healthy = await apiCheck((await webhookChannel()).id)
        await storeResult(t.ctx, slow, { status: 'failing' })
        await until('the hanging receiver got its alert', () => held.requests === 1)
        await storeResult(t.ctx, healthy, { status: 'failing' })
        await until('the healthy receiver got its alert', () => receiver.received.length === 1)
        assert.equal(held.clientGaveUp, false, 'delivered while the other attempt was still waiting')
        assert.deepEqual(types(), ['ALERT_FAILURE'])
      } finally {
        held.release()
        await node.stop()
      }
    })

    test('a network error and an attempt lost with its node are retried; the lost attempt is not repeated', async () => {
      const dead = await startReceiver()
      await dead.close()
      const channel = await webhookChannel({}, { url: `${dead.url}/gone` })
      const check = await apiCheck(channel.id)
      await storeResult(t.ctx, check, { status: 'failing' })
      // A node claims the attempt and dies before recording it.
      const [claimed] = await claimDue(t.ctx, { owner: 'dead-node', nowMs, leaseMs: 120_000, limit: 10 })
      assert.equal(claimed?.attempts, 1)
      const node = dispatcher()
      assert.equal(await node.runDue(), 0, 'the lease holds it')
      advance(120_001)
      await node.runDue()
      const [row] = json(await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }))
      assert.equal(row.deliveryStatus, 'PENDING')
      assert.equal(row.attempts, 2, 'the lost attempt counts')
      assert.deepEqual(
        row.attemptLog.map((a: { attempt: number; error: string }) => a.attempt),
        [2],
      )
      assert.equal(row.lastResponse.error, 'ECONNREFUSED')
    })

    test('RUN_BASED and TIME_BASED escalation, reminders, and the account settings', async () => {
      const channel = await webhookChannel()
      const node = dispatcher()
      const runBased = await apiCheck(channel.id, {
        useGlobalAlertSettings: false,
        alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 3 } },
      })
      for (let i = 1; i <= 3; i++) {
        await storeResult(t.ctx, runBased, { status: 'failing' })
        await node.runDue()
        assert.equal(receiver.received.length, i === 3 ? 1 : 0, `after ${i} failures`)
        advance(MINUTE)
      }

      receiver.received.length = 0
      const timeBased = await apiCheck(channel.id, {
        useGlobalAlertSettings: false,
        alertSettings: {
          escalationType: 'TIME_BASED',
          timeBasedEscalation: { minutesFailingThreshold: 5 },
          reminders: { amount: 2, interval: 5 },
        },
      })
      await storeResult(t.ctx, timeBased, { status: 'failing' })
      await node.runDue()
      advance(4 * MINUTE + 59_000)
      await node.runDue()
      assert.equal(receiver.received.length, 0, 'not before 5 minutes')
      advance(1000)
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE'], 'the clock alone escalates')
      for (let i = 0; i < 4; i++) {
        advance(5 * MINUTE)
        await node.runDue()
      }
      const titles = receiver.received.map((r) => JSON.parse(r.body).title)
      assert.deepEqual(titles, [
        'Shop "API" ✓ has failed',
        'Shop "API" ✓ is still failing (reminder 1)',
        'Shop "API" ✓ is still failing (reminder 2)',
      ])

      receiver.received.length = 0
      const patched = await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { alertSettings: { runBasedEscalation: { failedRunThreshold: 2 } } },
      })
      assert.equal(patched.statusCode, 200)
      const global = await apiCheck(channel.id)
      await storeResult(t.ctx, global, { status: 'failing' })
      await node.runDue()
      assert.equal(receiver.received.length, 0)
      advance(MINUTE)
      await storeResult(t.ctx, global, { status: 'failing' })
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE'])
      await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { alertSettings: { runBasedEscalation: { failedRunThreshold: 1 } } },
      })
    })

    test('muted checks and maintenance windows send nothing; a failure outlasting the window alerts after it', async () => {
      const channel = await webhookChannel()
      const node = dispatcher()
      const muted = await apiCheck(channel.id, { muted: true })
      await storeResult(t.ctx, muted, { status: 'failing' })
      advance(MINUTE)
      await storeResult(t.ctx, muted, { status: 'passing' })
      await node.runDue()
      assert.equal(receiver.received.length, 0)

      const window = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'deploy',
          tags: ['deploying'],
          startsAt: new Date(nowMs - MINUTE).toISOString(),
          endsAt: new Date(nowMs + 10 * MINUTE).toISOString(),
        },
      })
      assert.equal(window.statusCode, 201, window.body)
      const maintained = await apiCheck(channel.id, { tags: ['deploying'] })
      const other = await apiCheck(channel.id, { tags: ['elsewhere'] })
      await storeResult(t.ctx, maintained, { status: 'failing' })
      await storeResult(t.ctx, other, { status: 'failing' })
      await node.runDue()
      assert.deepEqual(
        receiver.received.map((r) => r.url.split('?')[0]),
        [`/hook/${other.id}`],
      )
      receiver.received.length = 0
      advance(11 * MINUTE)
      await node.runDue()
      assert.deepEqual(
        receiver.received.map((r) => r.url),
        [`/hook/${maintained.id}?type=ALERT_FAILURE`],
      )
      const windows = json(await t.call({ method: 'GET', url: '/v1/maintenance-windows' }))
      assert.equal(windows[0].name, 'deploy')
    })

    test('a recovery during a maintenance window, of a failure alerted before it, is sent when the window ends', async () => {
      const channel = await webhookChannel()
      const node = dispatcher()
      const check = await apiCheck(channel.id, { tags: ['patching'] })
      await storeResult(t.ctx, check, { status: 'failing' })
      await node.runDue()
      assert.deepEqual(
        receiver.received.map((r) => r.url),
        [`/hook/${check.id}?type=ALERT_FAILURE`],
      )
      receiver.received.length = 0
      const window = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'patching',
          tags: ['patching'],
          startsAt: new Date(nowMs).toISOString(),
          endsAt: new Date(nowMs + 10 * MINUTE).toISOString(),
        },
      })
      assert.equal(window.statusCode, 201, window.body)
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing' })
      await node.runDue()
      assert.equal(receiver.received.length, 0)
      advance(10 * MINUTE)
      await node.runDue()
      assert.deepEqual(
        receiver.received.map((r) => r.url),
        [`/hook/${check.id}?type=ALERT_RECOVERY`],
      )
    })

    test('parallel runs alert by the share of failing locations', async () => {
      const channel = await webhookChannel()
      const node = dispatcher()
      const check = await apiCheck(channel.id, {
        runParallel: true,
        locations: ['local', 'eu-west-1'],
        useGlobalAlertSettings: false,
        alertSettings: { parallelRunFailureThreshold: { enabled: true, percentage: 100 } },
      })
      await storeResult(t.ctx, check, { status: 'failing', location: 'local' })
      await storeResult(t.ctx, check, { status: 'passing', location: 'eu-west-1' })
      await node.runDue()
      assert.equal(receiver.received.length, 0, 'half the locations is under 100%')
      advance(10 * MINUTE)
      await storeResult(t.ctx, check, { status: 'failing', location: 'local' })
      await storeResult(t.ctx, check, { status: 'failing', location: 'eu-west-1' })
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE'])
    })

    test('degraded and SSL alerts go to channels that ask for them; ATTEMPT results never alert', async () => {
      const channel = await webhookChannel({ sendDegraded: true, sslExpiry: true, sslExpiryThreshold: 14 })
      const node = dispatcher()
      const check = await apiCheck(channel.id)
      await storeResult(t.ctx, check, { status: 'failing', resultType: 'ATTEMPT' })
      await node.runDue()
      assert.equal(receiver.received.length, 0)

      await storeResult(t.ctx, check, { status: 'degraded' })
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing', sslDaysRemaining: 20 })
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing', sslDaysRemaining: 10 })
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing', sslDaysRemaining: 10 })
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_DEGRADED', 'ALERT_DEGRADED_RECOVERY', 'ALERT_SSL'])
      advance(24 * 60 * MINUTE)
      await storeResult(t.ctx, check, { status: 'passing', sslDaysRemaining: 9 })
      await node.runDue()
      assert.deepEqual(types().slice(3), ['ALERT_SSL'], 'again a day later')

      const plain = await webhookChannel()
      const other = await apiCheck(plain.id)
      receiver.received.length = 0
      await storeResult(t.ctx, other, { status: 'degraded', sslDaysRemaining: 1 })
      await node.runDue()
      assert.equal(receiver.received.length, 0)
    })

    test("the default body carries the spec's event variables with the alert's values", async () => {
      const channel = await webhookChannel({ sslExpiry: true, sslExpiryThreshold: 14 }, { template: '' })
      const node = dispatcher()
      const api = await apiCheck(channel.id)
      const failed = await storeResult(t.ctx, api, { status: 'failing' })
      const startedAt = new Date(nowMs).toISOString()
      await node.runDue()
      advance(MINUTE)
      const certificate = await storeResult(t.ctx, api, { status: 'passing', sslDaysRemaining: 10 })
      await node.runDue()
      const [failure, recovery, ssl] = receiver.received.map((r) => JSON.parse(r.body))
      const common = {
        CHECK_NAME: 'Shop "API" ✓',
        CHECK_ID: api.id,
        CHECK_TYPE: 'API',
        RUN_LOCATION: 'local',
        TAGS: ['shop'],
        GROUP_NAME: '',
      }
      assert.deepEqual(failure, {
        ...common,
        ALERT_TITLE: 'Shop "API" ✓ has failed',
        ALERT_TYPE: 'ALERT_FAILURE',
        CHECK_RESULT_ID: failed.id,
        CHECK_ERROR_MESSAGE: 'Status code 503 is not below 400',
        RESPONSE_TIME: '3000',
        API_CHECK_RESPONSE_STATUS_CODE: '503',
        API_CHECK_RESPONSE_STATUS_TEXT: 'Service Unavailable',
        RESULT_LINK: `http://svc.test/v1/check-results/${api.id}/${failed.id}`,
        SSL_DAYS_REMAINING: '',
        SSL_CHECK_DOMAIN: '',
        STARTED_AT: startedAt,
      })
      const passing = {
        CHECK_RESULT_ID: certificate.id,
        CHECK_ERROR_MESSAGE: '',
        RESPONSE_TIME: '120',
        API_CHECK_RESPONSE_STATUS_CODE: '200',
        API_CHECK_RESPONSE_STATUS_TEXT: 'OK',
        RESULT_LINK: `http://svc.test/v1/check-results/${api.id}/${certificate.id}`,
        STARTED_AT: new Date(nowMs).toISOString(),
      }
      assert.deepEqual(recovery, {
        ...common,
        ...passing,
        ALERT_TITLE: 'Shop "API" ✓ has recovered',
        ALERT_TYPE: 'ALERT_RECOVERY',
        SSL_DAYS_REMAINING: '',
        SSL_CHECK_DOMAIN: '',
      })
      assert.deepEqual(ssl, {
        ...common,
        ...passing,
        ALERT_TITLE: 'The SSL certificate of Shop "API" ✓ expires soon: 10 days left',
        ALERT_TYPE: 'ALERT_SSL',
        SSL_DAYS_REMAINING: '10',
        SSL_CHECK_DOMAIN: 'shop.example.com',
      })

      // The response status variables are for API checks only.
      receiver.received.length = 0
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/url?autoAssignAlerts=false',
        payload: {
          name: 'Homepage',
          activated: false,
          request: { url: 'https://www.example.com/' },
          alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const url = { id: json(created).id as string, accountId: t.owner.accountId, checkType: 'URL' }
      await storeResult(t.ctx, url, { status: 'failing' })
      await node.runDue()
      const [homepage] = receiver.received.map((r) => JSON.parse(r.body))
      assert.equal(homepage.CHECK_TYPE, 'URL')
      assert.equal(homepage.ALERT_TYPE, 'ALERT_FAILURE')
      assert.equal(homepage.API_CHECK_RESPONSE_STATUS_CODE, '')
      assert.equal(homepage.API_CHECK_RESPONSE_STATUS_TEXT, '')
    })

    test('a stored result is evaluated once: a repeated job id alerts nothing more', async () => {
      const channel = await webhookChannel()
      const check = await apiCheck(channel.id)
      const node = dispatcher()
      const first = await storeResult(t.ctx, check, { status: 'failing', jobId: 'job-1' })
      advance(MINUTE)
      await storeResult(t.ctx, check, { status: 'passing', jobId: 'job-2' })
      const again = await storeResult(t.ctx, check, { status: 'failing', jobId: 'job-1' })
      assert.equal(first.stored, true)
      assert.equal(again.stored, false)
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE', 'ALERT_RECOVERY'])
    })

    test("a group's channels alert for its checks, with account and group variables; secrets render empty", async () => {
      await t.call({ method: 'POST', url: '/v1/variables', payload: { key: 'REGION_NAME', value: 'Europe' } })
      await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'API_TOKEN', value: 'hunter2', secret: true },
      })
      const channel = await webhookChannel(
        {},
        {
          template:
            '{"team": "{{TEAM}}", "region": "{{REGION_NAME}}", "token": "{{API_TOKEN}}", "group": "{{GROUP_NAME}}", "type": "{{ALERT_TYPE}}"}',
        },
      )
      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: {
            name: 'Payments',
            environmentVariables: [
              { key: 'TEAM', value: 'payments "core"' },
              { key: 'GROUP_SECRET', value: 'x', secret: true },
            ],
            alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
          },
        }),
      )
      const node = dispatcher()
      const member = await apiCheck(channel.id, { groupId: group.id, alertChannelSubscriptions: [] })
      await storeResult(t.ctx, member, { status: 'failing' })
      await node.runDue()
      assert.equal(receiver.received.length, 1)
      assert.deepEqual(JSON.parse(receiver.received[0]?.body ?? '{}'), {
        team: 'payments "core"',
        region: 'Europe',
        token: '',
        group: 'Payments',
        type: 'ALERT_FAILURE',
      })
      assert.equal(receiver.received[0]?.body.includes('hunter2'), false)

      receiver.received.length = 0
      const optedOut = await apiCheck(channel.id, {
        groupId: group.id,
        alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: false }],
      })
      await storeResult(t.ctx, optedOut, { status: 'failing' })
      await node.runDue()
      assert.equal(receiver.received.length, 0, 'a check can turn off a channel its group has')
    })

    test('heartbeats alert through the same path: a /fail ping fails, the next ping recovers', async () => {
      const channel = await webhookChannel()
      const created = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/heartbeat?autoAssignAlerts=false',
          payload: {
            name: 'nightly backup',
            heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
            alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
          },
        }),
      )
      const node = dispatcher()
      assert.equal(
        (await t.call({ method: 'GET', url: `/ping/${created.pingToken}/fail`, as: null })).statusCode,
        200,
      )
      await node.runDue()
      advance(MINUTE)
      assert.equal(
        (await t.call({ method: 'POST', url: `/ping/${created.pingToken}`, as: null })).statusCode,
        200,
      )
      await node.runDue()
      assert.deepEqual(types(), ['ALERT_FAILURE', 'ALERT_RECOVERY'])
      assert.equal(JSON.parse(receiver.received[0]?.body ?? '{}').check, 'nightly backup')
    })

    test('a base URL from a variable opens the webhook URL as it is; the placeholders after it are encoded', async () => {
      const variable = await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'HOOK_BASE', value: `${receiver.url}/base` },
      })
      assert.equal(variable.statusCode, 201, variable.body)
      const channel = await webhookChannel(
        {},
        { url: '{{HOOK_BASE}}/alerts/{{CHECK_NAME}}?type={{ALERT_TYPE}}', queryParameters: [] },
      )
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED', JSON.stringify(sent.lastResponse))
      assert.equal(receiver.received[0]?.url, '/base/alerts/Sample%20check?type=ALERT_FAILURE')

      // A group's variable of that name wins for its checks, as everywhere in templates.
      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: {
            name: 'Hooks',
            environmentVariables: [{ key: 'HOOK_BASE', value: `${receiver.url}/group-base` }],
          },
        }),
      )
      const check = await apiCheck(channel.id, { groupId: group.id })
      await storeResult(t.ctx, check, { status: 'failing' })
      await dispatcher().runDue()
      assert.equal(
        receiver.received[1]?.url,
        `/group-base/alerts/Shop%20%22API%22%20%E2%9C%93?type=ALERT_FAILURE`,
      )
      assert.equal(receiver.received[1]?.signatureValid, true)
    })

    test('a webhook whose Content-Type is HTML or XML gets its values HTML-escaped, signed as sent', async () => {
      const channel = await webhookChannel(
        {},
        {
          headers: [{ key: 'Content-Type', value: 'application/xml' }],
          template:
            '<alert type="{{ALERT_TYPE}}"><check>{{CHECK_NAME}}</check><raw>{{{CHECK_NAME}}}</raw></alert>',
        },
      )
      const check = await apiCheck(channel.id, { name: 'A & B <"shop">' })
      await storeResult(t.ctx, check, { status: 'failing' })
      await dispatcher().runDue()
      const [sent] = receiver.received
      assert.equal(sent?.headers['content-type'], 'application/xml')
      assert.equal(
        sent?.body,
        '<alert type="ALERT_FAILURE"><check>A &amp; B &lt;&quot;shop&quot;&gt;</check><raw>A & B <"shop"></raw></alert>',
      )
      assert.equal(sent?.signatureValid, true)
    })

    test('credentials in the webhook URL go as Basic authorization (fetch refuses a URL with them)', async () => {
      for (const [key, value] of [
        ['HOOK_USER', 'ops@example.com'],
        ['HOOK_TOKEN', 'p:ss/w ✓'],
      ]) {
        const res = await t.call({
          method: 'POST',
          url: '/v1/variables',
          payload: { key, value, locked: true },
        })
        assert.equal(res.statusCode, 201, res.body)
      }
      const host = receiver.url.replace('http://', '')
      const channel = await webhookChannel(
        {},
        { url: `http://{{HOOK_USER}}:{{HOOK_TOKEN}}@${host}/jira?check={{CHECK_ID}}`, queryParameters: [] },
      )
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED', JSON.stringify(sent.lastResponse))
      const [request] = receiver.received
      assert.equal(request?.url, '/jira?check=00000000-0000-4000-8000-000000000000')
      assert.equal(
        request?.headers.authorization,
        `Basic ${Buffer.from('ops@example.com:p:ss/w ✓').toString('base64')}`,
      )
      assert.equal(request?.signatureValid, true)

      // An Authorization header of the channel's own wins; the URL's credentials still never go in the URL.
      const own = await webhookChannel(
        {},
        {
          url: `http://someone:else@${host}/own`,
          queryParameters: [],
          headers: [{ key: 'Authorization', value: 'Bearer own-token' }],
        },
      )
      await t.call({ method: 'POST', url: `/v1/alert-channels/${own.id}/test` })
      assert.deepEqual(
        [receiver.received[1]?.url, receiver.received[1]?.headers.authorization],
        ['/own', 'Bearer own-token'],
      )
    })

    test('control characters a variable brings into a header value go as spaces (they failed every delivery)', async () => {
      const variable = await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'BELL_NOTE', value: 'a\u0007b\u007fc' },
      })
      assert.equal(variable.statusCode, 201, variable.body)
      const channel = await webhookChannel(
        {},
        { headers: [{ key: 'X-Note', value: '{{BELL_NOTE}}\td {{CHECK_NAME}}' }], queryParameters: [] },
      )
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED', JSON.stringify(sent.lastResponse))
      assert.equal(receiver.received[0]?.headers['x-note'], 'a b c\td Sample check')
    })

    test("query parameters are appended to the URL's own query, which is sent as written", async () => {
      const channel = await webhookChannel(
        {},
        {
          url: `${receiver.url}/q?a=1&flag&sig=a/b==&name={{CHECK_NAME}}`,
          queryParameters: [
            { key: 'type', value: '{{ALERT_TYPE}}' },
            { key: 'a b', value: 'x&y=z' },
          ],
        },
      )
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED')
      assert.equal(
        receiver.received[0]?.url,
        '/q?a=1&flag&sig=a/b==&name=Sample%20check&type=ALERT_FAILURE&a+b=x%26y%3Dz',
      )
    })

    test('POST /v1/alert-channels/{id}/test sends the sample event once and records it', async () => {
      const channel = await webhookChannel()
      const res = await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` })
      assert.equal(res.statusCode, 200, res.body)
      const notification = json(res)
      assert.equal(notification.deliveryStatus, 'DELIVERED')
      assert.equal(notification.test, true)
      assert.equal(receiver.received.length, 1)
      assert.equal(receiver.received[0]?.signatureValid, true)
      assert.equal(JSON.parse(receiver.received[0]?.body ?? '{}').check, 'Sample check')
      receiver.failNext(1, 502)
      const failed = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` }))
      assert.equal(failed.deliveryStatus, 'FAILED')
      assert.equal(failed.lastResponse.statusCode, 502)
      assert.equal((await t.call({ method: 'POST', url: '/v1/alert-channels/999999/test' })).statusCode, 404)
    })

    test('a receiver that echoes the request never shows locked values in the recorded response', async (context) => {
      // Error pages and debugging endpoints often echo what they got: URL, headers and body.
      const echo = createServer((request, response) => {
        let body = ''
        request.on('data', (chunk) => {
          body += chunk
        })
        request.on('end', () => {
          response.statusCode = 500
          response.end(JSON.stringify({ url: request.url, headers: request.headers, body }))
        })
      })
      const { url: echoUrl } = await listenOnLoopback(echo, context)
      const variable = await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'ECHO_LOCKED', value: 'locked-variable-value', locked: true },
      })
      assert.equal(variable.statusCode, 201, variable.body)
      const created = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: {
          type: 'WEBHOOK',
          config: {
            name: 'echo',
            url: `${echoUrl}/hook?v={{ECHO_LOCKED}}`,
            headers: [{ key: 'Authorization', value: 'Bearer locked-header-value', locked: true }],
            queryParameters: [{ key: 'q', value: 'locked-query-value', locked: true }],
            template: '{"v": "{{ECHO_LOCKED}}"}',
          },
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${json(created).id}/test` }))
      assert.equal(sent.deliveryStatus, 'FAILED')
      const listed = await t.call({ method: 'GET', url: `/v1/alert-notifications/${sent.id}` })
      const shown = `${JSON.stringify(sent)} ${listed.body}`
      for (const value of ['locked-variable-value', 'locked-header-value', 'locked-query-value'])
        assert.equal(shown.includes(value), false, value)
      assert.match(json(listed).lastResponse.body, /\[REDACTED\]/)
    })
  })
}
