import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`POST /v1/checks (the body's checkType picks the type) on ${engine.engine}`, () => {
    let t: TestApp
    let channelId: number
    before(async () => {
      t = await createTestApp(engine)
      const channel = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: { type: 'EMAIL', config: { address: 'ops@example.com' } },
      })
      channelId = json(channel).id
    })
    after(() => t.close())

    test('creates each type as its typed route does, subscribed to every channel by default', async () => {
      const api = await t.call({
        method: 'POST',
        url: '/v1/checks',
        payload: {
          checkType: 'API',
          name: 'Orders',
          request: { method: 'GET', url: 'https://orders.test/health' },
        },
      })
      assert.equal(api.statusCode, 201, api.body)
      const created = json(api)
      assert.deepEqual(
        [created.checkType, created.name, created.request.url, created.frequency],
        ['API', 'Orders', 'https://orders.test/health', 10],
      )
      assert.deepEqual(
        created.alertChannelSubscriptions.map((s: { alertChannelId: number }) => s.alertChannelId),
        [channelId],
      )
      const read = json(await t.call({ method: 'GET', url: `/v1/checks/${created.id}` }))
      assert.deepEqual([read.checkType, read.request.url], ['API', 'https://orders.test/health'])

      const heartbeat = await t.call({
        method: 'POST',
        url: '/v1/checks?autoAssignAlerts=false',
        payload: {
          checkType: 'HEARTBEAT',
          name: 'Nightly job',
          heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
        },
      })
      assert.equal(heartbeat.statusCode, 201, heartbeat.body)
      assert.equal(json(heartbeat).checkType, 'HEARTBEAT')
      assert.equal(typeof json(heartbeat).heartbeat.pingToken, 'string')
      assert.deepEqual(json(heartbeat).alertChannelSubscriptions, [], 'autoAssignAlerts=false')
    })

    test('PLAYWRIGHT is taken for AUTOMATION in the type', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v1/checks',
        payload: { checkType: 'PLAYWRIGHT', name: 'Suite' },
      })
      // An AUTOMATION check needs its code: the typed route's own 400 names what is missing.
      assert.equal(res.statusCode, 400, res.body)
      assert.doesNotMatch(json(res).message, /checkType/)
    })

    test('a missing or unknown checkType, or a body its type refuses, is a 400 naming the field', async () => {
      const missing = await t.call({ method: 'POST', url: '/v1/checks', payload: { name: 'x' } })
      assert.equal(missing.statusCode, 400)
      assert.match(json(missing).message, /^body\.checkType must be one of API, BROWSER, .*PLAYWRIGHT$/)
      assert.deepEqual(json(missing).attributes.errors[0].path, 'body.checkType')
      const agentic = await t.call({
        method: 'POST',
        url: '/v1/checks',
        payload: { checkType: 'AGENTIC', name: 'x' },
      })
      assert.equal(agentic.statusCode, 400)
      const url = await t.call({
        method: 'POST',
        url: '/v1/checks',
        payload: { checkType: 'URL', name: 'x' },
      })
      assert.equal(url.statusCode, 400)
      assert.equal(json(url).attributes.errors[0].path, 'body.request')
      const extra = await t.call({
        method: 'POST',
        url: '/v1/checks',
        payload: { checkType: 'URL', name: 'x', request: { url: 'https://x.test' }, bogus: 1 },
      })
      assert.equal(extra.statusCode, 400)
      assert.equal(json(extra).attributes.errors[0].path, 'body.bogus')
      const list = json(await t.call({ method: 'GET', url: '/v1/checks' }))
      assert.equal(list.length, 2, 'nothing refused was saved')
    })
  })
}
