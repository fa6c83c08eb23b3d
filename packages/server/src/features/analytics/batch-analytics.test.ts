import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { CHECK_BODIES } from '../../testing/resource-maker.ts'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`analytics of many checks and the metric catalog on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const create = async (type: 'api' | 'heartbeat') =>
      json(await t.call({ method: 'POST', url: `/v1/checks/${type}`, payload: CHECK_BODIES[type] }))
        .id as string
    const batch = (checkIds: string[], query = '', as = t.owner) =>
      t.call({ method: 'POST', url: `/v1/analytics/checks${query}`, payload: { checkIds }, as })

    test('answers availability and response-time figures per check from its results', async () => {
      const api = await create('api')
      // Nothing listens on the check's port: each run fails.
      for (let i = 0; i < 2; i++)
        assert.equal((await t.call({ method: 'POST', url: `/v1/checks/${api}/trigger` })).statusCode, 200)
      const heartbeat = await create('heartbeat')
      const res = await batch([api, heartbeat, api], '?quickRange=last7Days')
      assert.equal(res.statusCode, 200, res.body)
      const [apiFigures, heartbeatFigures, ...rest] = json(res)
      assert.deepEqual(rest, [])
      assert.equal(apiFigures.checkId, api)
      assert.equal(apiFigures.checkType, 'API')
      assert.equal(apiFigures.availability, 0)
      for (const name of ['responseTime_avg', 'responseTime_p50', 'responseTime_p95', 'responseTime_p99'])
        assert.equal(typeof apiFigures[name], 'number', name)
      assert.deepEqual(heartbeatFigures, { checkId: heartbeat, checkType: 'HEARTBEAT', availability: null })
    })

    test("refuses another account's check (404), no ids and a bad range (400)", async () => {
      const api = await create('api')
      const stranger = await ownerOfAnotherAccount(t)
      const foreign = await batch([api], '', stranger)
      assert.equal(foreign.statusCode, 404)
      assert.equal(json(foreign).message, `Check ${api} not found`)
      assert.equal((await batch([])).statusCode, 400)
      assert.equal((await batch([api], '?quickRange=forever')).statusCode, 400)
    })

    test('lists the metrics of a check type, PLAYWRIGHT as AUTOMATION', async () => {
      const api = json(await t.call({ method: 'GET', url: '/v1/analytics/metrics?checkType=API' }))
      assert.deepEqual(api[0], {
        name: 'availability',
        unit: 'percentage',
        label: 'Availability',
        type: 'Float',
        aggregated: true,
      })
      const p95 = api.find((m: { name: string }) => m.name === 'responseTime_p95')
      assert.deepEqual(p95, {
        name: 'responseTime_p95',
        unit: 'milliseconds',
        label: 'responseTime (95th percentile)',
        type: 'Float',
        aggregated: true,
      })
      assert.equal(api.find((m: { name: string }) => m.name === 'responseTime').aggregated, false)
      const suites = json(await t.call({ method: 'GET', url: '/v1/analytics/metrics?checkType=PLAYWRIGHT' }))
      assert.ok(suites.length > 2)
      assert.deepEqual(json(await t.call({ method: 'GET', url: '/v1/analytics/metrics?checkType=GRPC' })), [])
      assert.equal((await t.call({ method: 'GET', url: '/v1/analytics/metrics' })).statusCode, 400)
    })
  })
}
