import assert from 'node:assert/strict'
import type { IncomingHttpHeaders } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { HEADERS_REFUSED_AT_SAVE, startHttp2Server } from '@svc/runner/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { createDispatcher } from './dispatcher.ts'
import { startReceiver, storeResult } from './testing.ts'

/** Headers a save refuses today (400), as versions before that rule stored them. */
const REFUSED = [...HEADERS_REFUSED_AT_SAVE, { key: 'X Team', value: 'ops' }]

for (const engine of testEngines()) {
  describe(`webhook channels stored with headers a save now refuses, on ${engine.engine}`, () => {
    let t: TestApp
    let http1: Awaited<ReturnType<typeof startReceiver>>
    let http2: Awaited<ReturnType<typeof startHttp2Server>>
    before(async () => {
      http1 = await startReceiver()
      http2 = await startHttp2Server()
      t = await createTestApp(engine)
    })
    after(async () => {
      await t.close()
      await http1.close()
      await http2.close()
    })

    /** A channel row as an older version wrote it: no save-time rule looked at its headers. */
    async function storedChannel(url: string) {
      const now = new Date().toISOString()
      const config = {
        name: 'old receiver',
        url,
        method: 'POST',
        headers: [{ key: 'X-Team', value: 'ops' }, ...REFUSED].map((header) => ({
          ...header,
          sealedValue: null,
          locked: false,
        })),
        queryParameters: [],
        template: '{"type": "{{ALERT_TYPE}}"}',
        sealedSecret: null,
        webhookType: null,
      }
      const row = await t.store.db
        .insertInto('alert_channels')
        .values({
          account_id: t.owner.accountId,
          type: 'WEBHOOK',
          config: JSON.stringify(config),
          send_recovery: true,
          send_failure: true,
          send_degraded: false,
          ssl_expiry: false,
          ssl_expiry_threshold: 30,
          auto_subscribe: false,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      return row.id
    }

    function assertLeftOut(headers: IncomingHttpHeaders) {
      assert.equal(headers['x-team'], 'ops')
      for (const name of ['keep-alive', 'upgrade', 'transfer-encoding', 'expect', 'proxy-connection'])
        assert.equal(headers[name], undefined, name)
      for (const name of ['http2-settings', 'te', 'x team']) assert.equal(headers[name], undefined, name)
    }

    test('a notification in the outbox reaches HTTP/1 and HTTP/2 receivers without those headers', async () => {
      const channels = [await storedChannel(`${http1.url}/hook`), await storedChannel(`${http2.url}/hook`)]
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: {
          name: 'Shop API',
          activated: false,
          request: { url: 'https://shop.example.com/health' },
          alertChannelSubscriptions: channels.map((alertChannelId) => ({ alertChannelId, activated: true })),
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const check = { id: json(created).id as string, accountId: t.owner.accountId }
      await storeResult(t.ctx, check, { status: 'failing' })

      assert.equal(await createDispatcher(t.ctx, { log: { error: () => {} } }).runDue(), 2)
      const notifications = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }),
      ) as { alertChannelId: number; deliveryStatus: string; lastResponse: unknown }[]
      assert.deepEqual(
        notifications.map((n) => [n.deliveryStatus, JSON.stringify(n.lastResponse)]),
        notifications.map((n) => ['DELIVERED', JSON.stringify(n.lastResponse)]),
      )

      assert.equal(http1.received.length, 1)
      const [overHttp1] = http1.received
      assert.ok(overHttp1)
      assert.deepEqual(JSON.parse(overHttp1.body), { type: 'ALERT_FAILURE' })
      assertLeftOut(overHttp1.headers)
      assert.equal(overHttp1.headers['content-length'], String(Buffer.byteLength(overHttp1.body)))
      // Left out, not sent as the HTTP client rewrites it (`close, X-Foo` went as `close`).
      assert.equal(overHttp1.headers.connection, 'keep-alive')

      assert.equal(http2.received.length, 1)
      const [overHttp2] = http2.received
      assert.ok(overHttp2)
      assert.deepEqual(JSON.parse(overHttp2.body), { type: 'ALERT_FAILURE' })
      assertLeftOut(overHttp2.headers)
    })

    test('the API still shows such a header; saving the channel again asks to remove it', async () => {
      const id = await storedChannel(`${http1.url}/hook`)
      const channel = json(await t.call({ method: 'GET', url: `/v1/alert-channels/${id}` }))
      assert.deepEqual(
        channel.config.headers.map((h: { key: string }) => h.key),
        ['X-Team', ...REFUSED.map((h) => h.key)],
      )
      const saved = await t.call({
        method: 'PUT',
        url: `/v1/alert-channels/${id}`,
        payload: {
          type: 'WEBHOOK',
          config: { ...channel.config, headers: channel.config.headers.slice(0, 2) },
        },
      })
      assert.equal(saved.statusCode, 400, saved.body)
      assert.deepEqual(json(saved).attributes.errors, [
        {
          path: 'body.config.headers.1.key',
          message: "Keep-Alive can't be set: svc frames each request itself",
        },
      ])
    })
  })
}
