import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`check alerts on ${engine.engine}`, () => {
    let t: TestApp
    const checks: string[] = []
    before(async () => {
      t = await createTestApp(engine)
      const channel = async (address: string) =>
        json(
          await t.call({
            method: 'POST',
            url: '/v1/alert-channels',
            payload: { type: 'EMAIL', config: { address } },
          }),
        ).id
      const channels = [await channel('ops@example.com'), await channel('dev@example.com')]
      for (const [name, subscribed] of [
        ['Orders API', channels],
        ['Search API', channels.slice(0, 1)],
      ] as const) {
        const res = await t.call({
          method: 'POST',
          url: '/v1/checks/api?autoAssignAlerts=false',
          payload: {
            name,
            activated: false,
            request: { url: 'http://127.0.0.1:9/', method: 'GET' },
            alertChannelSubscriptions: subscribed.map((id) => ({ alertChannelId: id, activated: true })),
          },
        })
        assert.equal(res.statusCode, 201, res.body)
        const id = json(res).id
        checks.push(id)
        // Nothing listens on port 9: the run fails and the alerter sends ALERT_FAILURE.
        const run = await t.call({ method: 'POST', url: `/v1/checks/${id}/trigger` })
        assert.ok(run.statusCode < 300, run.body)
      }
      // The alerter folds stored results after the trigger answers: wait for its 3 notifications.
      for (;;) {
        const sent = await t.call({ method: 'GET', url: '/v1/alert-notifications' })
        if (json(sent).length >= 3) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })
    after(() => t.close())

    test('lists each alert once (whatever its channels), newest first, in the hosted shape', async () => {
      const res = await t.call({ method: 'GET', url: '/v1/check-alerts' })
      assert.equal(res.statusCode, 200, res.body)
      const alerts = json(res)
      assert.deepEqual(
        alerts.map((a: { name: string; alertType: string }) => [a.name, a.alertType]),
        [
          ['Search API', 'ALERT_FAILURE'],
          ['Orders API', 'ALERT_FAILURE'],
        ],
      )
      assert.equal(res.headers['content-range'], 'items 0-1/2')
      const [search] = alerts
      assert.equal(search.checkId, checks[1])
      assert.equal(search.checkType, 'API')
      assert.equal(search.runLocation, 'local')
      assert.equal(typeof search.responseTime, 'number')
      assert.ok(search.error.length > 0, 'the error of the failed run')
      assert.match(search.created_at, /^\d{4}-\d\d-\d\dT/)
      assert.match(search.startedAt, /^\d{4}-\d\d-\d\dT/)

      const one = json(await t.call({ method: 'GET', url: `/v1/check-alerts/${checks[0]}` }))
      assert.deepEqual(
        one.map((a: { name: string }) => a.name),
        ['Orders API'],
      )
      const paged = await t.call({ method: 'GET', url: '/v1/check-alerts?limit=1&page=2' })
      assert.deepEqual(
        json(paged).map((a: { name: string }) => a.name),
        ['Orders API'],
      )
    })

    test('honours from and to (unix seconds, at most 6 hours apart)', async () => {
      const now = Math.floor(Date.now() / 1000)
      const old = await t.call({
        method: 'GET',
        url: `/v1/check-alerts?from=${now - 86_400}&to=${now - 80_000}`,
      })
      assert.deepEqual(json(old), [])
      const lone = await t.call({ method: 'GET', url: `/v1/check-alerts?from=${now - 3600}` })
      assert.equal(json(lone).length, 2)
      const wide = await t.call({ method: 'GET', url: `/v1/check-alerts?from=${now - 7 * 3600}&to=${now}` })
      assert.equal(wide.statusCode, 400)
      assert.equal(json(wide).attributes.errors[0].path, 'querystring.to')
      const unknown = await t.call({
        method: 'GET',
        url: '/v1/check-alerts/00000000-0000-4000-8000-000000000000',
      })
      assert.equal(unknown.statusCode, 404)
    })
  })
}
