import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { createDispatcher } from '../alerting/dispatcher.ts'
import { startReceiver, storeResult } from '../alerting/testing.ts'

for (const engine of testEngines()) {
  describe(`alerting honours a maintenance window's time zone on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-03-20T12:00:00.000Z')
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    before(async () => {
      receiver = await startReceiver()
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    test('a daily 02:00 Berlin window silences 02:30 local after the DST change, not 03:30', async () => {
      const channel = json(
        await t.call({
          method: 'POST',
          url: '/v1/alert-channels',
          payload: {
            type: 'WEBHOOK',
            config: {
              name: 'receiver',
              url: `${receiver.url}/hook`,
              queryParameters: [{ key: 'type', value: '{{ALERT_TYPE}}' }],
            },
          },
        }),
      )
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: {
          name: 'Database',
          activated: false,
          tags: ['db'],
          request: { url: 'https://db.example.com/health' },
          alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const check = { id: json(created).id as string, accountId: t.owner.accountId }
      const window = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'Nightly backup',
          tags: ['db'],
          startsAt: '2026-03-26T02:00:00+01:00',
          endsAt: '2026-03-26T03:00:00+01:00',
          repeatUnit: 'DAY',
          timezone: 'Europe/Berlin',
        },
      })
      assert.equal(window.statusCode, 201, window.body)
      const node = createDispatcher(t.ctx, { log: { error: () => {} } })

      // 02:30 CEST on 2026-03-30, the day after clocks went forward: in the window (UTC would say no).
      nowMs = Date.parse('2026-03-30T00:30:00.000Z')
      await storeResult(t.ctx, check, { status: 'failing' })
      await node.runDue()
      assert.equal(receiver.received.length, 0)

      // 03:30 CEST: the window is over (UTC would say it runs 01:00–02:00), so the failure still going alerts.
      nowMs = Date.parse('2026-03-30T01:30:00.000Z')
      await storeResult(t.ctx, check, { status: 'failing' })
      await node.runDue()
      assert.deepEqual(
        receiver.received.map((r) => r.url),
        ['/hook?type=ALERT_FAILURE'],
      )
    })
  })
}
