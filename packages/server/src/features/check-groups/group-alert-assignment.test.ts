import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`autoAssignAlerts on check group creation on ${engine.engine}`, () => {
    let t: TestApp
    let channels: number[]
    before(async () => {
      t = await createTestApp(engine)
      channels = []
      for (const address of ['ops@example.com', 'dev@example.com']) {
        const channel = await t.call({
          method: 'POST',
          url: '/v1/alert-channels',
          payload: { type: 'EMAIL', config: { address } },
        })
        channels.push(json(channel).id)
      }
    })
    after(() => t.close())

    const subscribed = (group: { alertChannelSubscriptions: { alertChannelId: number }[] }) =>
      group.alertChannelSubscriptions.map((s) => s.alertChannelId).sort((a, b) => a - b)

    test('a new group subscribes to every channel with autoAssignAlerts=true, to none without it or with false', async () => {
      for (const [url, expected] of [
        ['/v1/check-groups', []],
        ['/v1/check-groups?autoAssignAlerts=true', channels],
        ['/v2/check-groups?autoAssignAlerts=true', channels],
        ['/v1/check-groups?autoAssignAlerts=false', []],
        ['/v2/check-groups?autoAssignAlerts=false', []],
      ] as const) {
        const res = await t.call({ method: 'POST', url, payload: { name: url } })
        assert.equal(res.statusCode, 201, res.body)
        assert.deepEqual(subscribed(json(res)), expected, url)
        const read = json(await t.call({ method: 'GET', url: `/v1/check-groups/${json(res).id}` }))
        assert.deepEqual(subscribed(read), expected, `${url}, read back`)
      }
    })

    test('given subscriptions win; an update takes the parameter and keeps the subscriptions', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v1/check-groups?autoAssignAlerts=true',
        payload: {
          name: 'Given',
          alertChannelSubscriptions: [{ alertChannelId: channels[0], activated: false }],
        },
      })
      const group = json(res)
      assert.deepEqual(
        group.alertChannelSubscriptions
          .map((s: { alertChannelId: number; activated: boolean }) => [s.alertChannelId, s.activated])
          .sort(),
        [
          [channels[0], false],
          [channels[1], true],
        ],
      )
      for (const version of ['v1', 'v2']) {
        const updated = await t.call({
          method: 'PUT',
          url: `/${version}/check-groups/${group.id}?autoAssignAlerts=false`,
          payload: { name: `Given ${version}` },
        })
        assert.equal(updated.statusCode, 200, updated.body)
        assert.deepEqual(subscribed(json(updated)), channels)
      }
      const bad = await t.call({
        method: 'POST',
        url: '/v1/check-groups?autoAssignAlerts=maybe',
        payload: { name: 'x' },
      })
      assert.equal(bad.statusCode, 400)
      assert.match(json(bad).message, /autoAssignAlerts/)
    })
  })
}
