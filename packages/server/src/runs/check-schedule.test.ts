import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { listSchedule } from './schedules.repo.ts'

const NOW = Date.parse('2026-11-22T12:00:00.000Z')
const MINUTE = 60_000

for (const engine of testEngines()) {
  describe(`check schedules follow the API on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(NOW) } })
    })
    after(() => t.close())

    const create = async (payload: object) =>
      json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { request: { url: 'http://127.0.0.1/' }, ...payload },
        }),
      )
    const dueTimes = async (id: string) =>
      (await listSchedule(t.ctx, id)).map((row) => ({
        location: row.location,
        dueMs: Number(row.next_due_ms),
      }))

    test('a new check gets one row per location, first run within one period, spread round-robin', async () => {
      const check = await create({ name: 'rr', frequency: 5, locations: ['local', 'eu-west-1'] })
      const rows = await dueTimes(check.id)
      assert.deepEqual(rows.map((r) => r.location).sort(), ['eu-west-1', 'local'])
      const first = Math.min(...rows.map((r) => r.dueMs))
      assert.ok(first > NOW && first <= NOW + 5 * MINUTE, 'first run within one period')
      const gap = Math.abs((rows[0]?.dueMs ?? 0) - (rows[1]?.dueMs ?? 0))
      assert.equal(gap % (5 * MINUTE), 0)
      assert.notEqual(gap % (10 * MINUTE), 0, 'locations take turns, one per period')

      const parallel = await create({
        name: 'par',
        frequency: 5,
        locations: ['local', 'eu-west-1'],
        runParallel: true,
      })
      const parallelRows = await dueTimes(parallel.id)
      assert.equal(parallelRows[0]?.dueMs, parallelRows[1]?.dueMs)
    })

    test('deactivating stops the runs; reactivating plans them again; a heartbeat gets its deadline', async () => {
      const check = await create({ name: 'toggle', frequency: 1 })
      await t.call({ method: 'PUT', url: `/v1/checks/${check.id}`, payload: { activated: false } })
      assert.deepEqual(await dueTimes(check.id), [])
      await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { activated: true, frequency: 10 },
      })
      const [row] = await dueTimes(check.id)
      assert.ok(row && row.dueMs > NOW && row.dueMs <= NOW + 10 * MINUTE)

      const heartbeat = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/heartbeat',
          payload: {
            name: 'hb',
            heartbeat: { period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' },
          },
        }),
      )
      assert.deepEqual(await dueTimes(heartbeat.id), [{ location: 'heartbeat', dueMs: NOW + 65 * MINUTE }])
    })

    test('a deactivated group stops its checks; reactivating it resumes them', async () => {
      const group = json(await t.call({ method: 'POST', url: '/v1/check-groups', payload: { name: 'g' } }))
      const member = await create({ name: 'member', groupId: group.id })
      assert.equal((await dueTimes(member.id)).length, 1)
      await t.call({
        method: 'PUT',
        url: `/v1/check-groups/${group.id}`,
        payload: { name: 'g', activated: false },
      })
      assert.deepEqual(await dueTimes(member.id), [])
      await t.call({
        method: 'PUT',
        url: `/v1/check-groups/${group.id}`,
        payload: { name: 'g', activated: true },
      })
      assert.equal((await dueTimes(member.id)).length, 1)
    })
  })
}
