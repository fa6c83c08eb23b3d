import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { createScheduler } from '../../runs/scheduler.ts'
import { listSchedule } from '../../runs/schedules.repo.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { createDispatcher } from './dispatcher.ts'

for (const engine of testEngines()) {
  describe(`a check's triggerIncident through the alert outbox on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-23T09:00:00.000Z')
    let failing = true
    const target = createServer((_request, response) => {
      response.statusCode = failing ? 503 : 200
      response.end()
    })
    let base = ''
    before(async () => {
      base = (await listenOnLoopback(target)).url
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      target.close()
      await t.close()
    })

    /** A status page with one service, and a 1-minute URL check whose triggerIncident names it. */
    const triggeredCheck = async (slug: string) => {
      const service = json(
        await t.call({ method: 'POST', url: '/v1/status-pages/services', payload: { name: 'Checkout' } }),
      )
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: {
            name: 'Shop',
            url: slug,
            cards: [{ name: 'Shop', services: [{ id: service.id }] }],
          },
        }),
      )
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: {
            name: 'checkout',
            frequency: 1,
            doubleCheck: false,
            request: { url: `${base}/` },
            triggerIncident: {
              serviceId: service.id,
              severity: 'MAJOR',
              name: 'Checkout is down',
              description: 'Payments fail.',
              notifySubscribers: false,
            },
          },
        }),
      )
      const scheduler = createScheduler(t.ctx, { locations: ['local'], concurrency: 2 })
      const dispatcher = createDispatcher(t.ctx)
      const runOnce = async () => {
        nowMs = Number((await listSchedule(t.ctx, check.id))[0]?.next_due_ms)
        await scheduler.runDue()
        await dispatcher.runDue()
      }
      const incidents = async () =>
        json(await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}/incidents` }))
      return { check, runOnce, incidents }
    }

    test('a failure episode opens the incident once; the recovery resolves it', async () => {
      const { check, runOnce, incidents } = await triggeredCheck('shop-trigger')
      await runOnce()
      await runOnce()
      const open = await incidents()
      assert.equal(open.length, 1, 'one incident for the episode, not one per failing run')
      assert.equal(open[0].name, 'Checkout is down')
      assert.equal(open[0].severity, 'MAJOR')
      assert.equal(open[0].lastUpdateStatus, 'INVESTIGATING')

      failing = false
      await runOnce()
      const [resolved] = await incidents()
      assert.equal(resolved.lastUpdateStatus, 'RESOLVED')
      const notifications = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }),
      )
      assert.deepEqual(notifications.map((n: any) => [n.channelType, n.alertType, n.deliveryStatus]).sort(), [
        ['INCIDENT', 'ALERT_FAILURE', 'DELIVERED'],
        ['INCIDENT', 'ALERT_RECOVERY', 'DELIVERED'],
      ])
    })

    test('a recovery while the check is muted resolves its incident once it is unmuted', async () => {
      failing = true
      const { check, runOnce, incidents } = await triggeredCheck('shop-muted')
      await runOnce()
      assert.equal((await incidents())[0]?.lastUpdateStatus, 'INVESTIGATING')
      const mute = (muted: boolean) =>
        t.call({ method: 'PUT', url: `/v1/checks/${check.id}`, payload: { muted } })
      assert.equal((await mute(true)).statusCode, 200)
      failing = false
      await runOnce()
      assert.equal((await incidents())[0]?.lastUpdateStatus, 'INVESTIGATING', 'nothing is sent while muted')
      assert.equal((await mute(false)).statusCode, 200)
      await runOnce()
      assert.equal((await incidents())[0]?.lastUpdateStatus, 'RESOLVED')
    })
  })
}
