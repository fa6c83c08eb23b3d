import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

const START = Date.parse('2026-11-22T08:00:00.000Z')
const MINUTE = 60_000

for (const engine of testEngines()) {
  describe(`heartbeat events and availability on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = START
    let checkId: string
    let token: string
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      const res = await t.call({
        method: 'POST',
        url: '/v1/checks/heartbeat',
        payload: {
          name: 'Nightly',
          activated: true,
          heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
        },
      })
      assert.equal(res.statusCode, 201, res.body)
      const check = json(res)
      checkId = check.id
      token = check.heartbeat?.pingToken ?? check.pingToken
      // Three pings and one /fail ping, a minute apart: 3 of 4 pass.
      for (const [path, method] of [
        ['', 'GET'],
        ['', 'POST'],
        ['/fail', 'GET'],
        ['', 'HEAD'],
      ] as const) {
        nowMs += MINUTE
        const ping = await t.call({ method, url: `/ping/${token}${path}`, as: null })
        assert.equal(ping.statusCode, 200, ping.body)
      }
      nowMs += MINUTE
    })
    after(() => t.close())

    test('lists the events newest first with their state, method and success ratios', async () => {
      const res = await t.call({ method: 'GET', url: `/v1/checks/heartbeats/${checkId}/events` })
      assert.equal(res.statusCode, 200, res.body)
      const [page] = json(res)
      assert.deepEqual(
        page.events.map((e: { state: string; source: string; timestamp: string }) => [
          e.state,
          e.source,
          e.timestamp,
        ]),
        [
          ['RECEIVED', 'HEAD', '2026-11-22T08:04:00.000Z'],
          ['FAILING', 'GET', '2026-11-22T08:03:00.000Z'],
          ['RECEIVED', 'POST', '2026-11-22T08:02:00.000Z'],
          ['RECEIVED', 'GET', '2026-11-22T08:01:00.000Z'],
        ],
      )
      const ratio = { successRatio: { previousPeriod: 0, currentPeriod: 75 }, totalEntitiesCurrentPeriod: 4 }
      assert.deepEqual(page.stats, { last24Hours: ratio, last7Days: ratio })

      const limited = json(
        await t.call({ method: 'GET', url: `/v1/checks/heartbeats/${checkId}/events?limit=1` }),
      )
      assert.equal(limited[0].events.length, 1)
      const window = json(
        await t.call({
          method: 'GET',
          url: `/v1/checks/heartbeats/${checkId}/events?startTime=2026-11-22T08:02:00Z&endTime=2026-11-22T08:03:00Z`,
        }),
      )
      assert.deepEqual(
        window[0].events.map((e: { source: string }) => e.source),
        ['GET', 'POST'],
      )

      const one = await t.call({
        method: 'GET',
        url: `/v1/checks/heartbeats/${checkId}/events/${page.events[1].id}`,
      })
      assert.equal(one.statusCode, 200, one.body)
      assert.deepEqual(json(one).event, page.events[1])
    })

    test('answers the availability of a window and of the one before it', async () => {
      const url = `/v1/checks/heartbeats/${checkId}/availability`
      const day = json(await t.call({ method: 'GET', url }))
      assert.deepEqual(day, {
        successRatio: { previousPeriod: 0, currentPeriod: 75 },
        totalEntitiesCurrentPeriod: 4,
      })
      // 08:03 to 08:05 holds the fail and the last ping (50%); 08:01 to 08:03 the first two (100%).
      const late = json(
        await t.call({
          method: 'GET',
          url: `${url}?startTime=2026-11-22T08:03:00Z&endTime=2026-11-22T08:05:00Z`,
        }),
      )
      assert.deepEqual(late, {
        successRatio: { previousPeriod: 100, currentPeriod: 50 },
        totalEntitiesCurrentPeriod: 2,
      })
      const empty = await t.call({ method: 'GET', url: `${url}?startTime=2026-01-01&endTime=2026-01-02` })
      assert.equal(empty.statusCode, 200)
      assert.equal(empty.body, 'null')
    })

    test('refuses other check types, bad dates and unknown events', async () => {
      const api = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'U', activated: false, request: { url: 'http://127.0.0.1:9/' } },
        }),
      )
      const notHeartbeat = await t.call({ method: 'GET', url: `/v1/checks/heartbeats/${api.id}/events` })
      assert.equal(notHeartbeat.statusCode, 404)
      const badDate = await t.call({
        method: 'GET',
        url: `/v1/checks/heartbeats/${checkId}/availability?startTime=soon`,
      })
      assert.equal(badDate.statusCode, 400)
      assert.equal(json(badDate).attributes.errors[0].path, 'querystring.startTime')
      const tooMany = await t.call({ method: 'GET', url: `/v1/checks/heartbeats/${checkId}/events?limit=11` })
      assert.equal(tooMany.statusCode, 400)
      const unknown = await t.call({
        method: 'GET',
        url: `/v1/checks/heartbeats/${checkId}/events/00000000-0000-4000-8000-000000000000`,
      })
      assert.equal(unknown.statusCode, 404)
    })
  })
}
