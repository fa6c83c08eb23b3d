import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'
import { storeSeedResult } from '../analytics/testing.ts'

const NOW = Date.parse('2026-11-22T12:30:00.000Z')
const at = (iso: string) => Date.parse(iso)

for (const engine of testEngines()) {
  describe(`dashboard overview on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(NOW) } })
    })
    after(() => t.close())

    const createCheck = async (name: string, extra: object = {}) =>
      json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name, request: { url: 'http://127.0.0.1:9/' }, tags: ['web'], ...extra },
        }),
      )
    const store = (checkId: string, atIso: string, failed: boolean, responseTime: number) =>
      storeSeedResult(
        t.ctx,
        { id: checkId, accountId: t.owner.accountId, checkType: 'URL' },
        {
          atMs: at(atIso),
          location: 'local',
          failed,
          responseTime,
          statusCode: failed ? 500 : 200,
          detail: {},
        },
      )

    test('every check with its status, since when, availability and hourly response times of 24 hours', async () => {
      const failing = await createCheck('a failing', { frequency: 5 })
      await store(failing.id, '2026-11-21T11:00:00.000Z', false, 1000) // before the window
      await store(failing.id, '2026-11-21T13:30:00.000Z', false, 50) // the window's first hour
      await store(failing.id, '2026-11-22T11:10:00.000Z', false, 100)
      await store(failing.id, '2026-11-22T11:20:00.000Z', false, 200)
      await store(failing.id, '2026-11-22T12:05:00.000Z', true, 300)
      await store(failing.id, '2026-11-22T12:10:00.000Z', true, 500)
      const passing = await createCheck('b passing')
      await store(passing.id, '2026-11-22T10:00:00.000Z', true, 10)
      await store(passing.id, '2026-11-22T11:00:00.000Z', false, 20)
      await store(passing.id, '2026-11-22T12:00:00.000Z', false, 40)
      const fresh = await createCheck('c fresh')
      const paused = await createCheck('d paused', { activated: false })
      await store(paused.id, '2026-11-22T12:00:00.000Z', false, 40)
      const stranger = await ownerOfAnotherAccount(t)
      await t.call({
        method: 'POST',
        url: '/v1/checks/url',
        payload: { name: 'not ours', request: { url: 'http://127.0.0.1:9/' } },
        as: stranger,
      })

      const response = await t.call({ method: 'GET', url: '/v1/dashboard/overview' })
      assert.equal(response.statusCode, 200, response.body)
      const { checks, ...rest } = json(response)
      assert.deepEqual(
        checks.map((c: { name: string }) => c.name),
        ['a failing', 'b passing', 'c fresh', 'd paused'],
      )
      assert.deepEqual(rest, {
        total: 4,
        page: 1,
        limit: 50,
        counts: { passing: 1, degraded: 0, failing: 1, paused: 1, 'no-data': 1 },
        tags: ['web'],
        groupIds: [],
        locations: ['local'],
      })
      const [a, b, c, d] = checks
      const hours = (values: Record<number, number>) =>
        Array.from({ length: 24 }, (_, hour) => values[hour] ?? null)
      assert.deepEqual(a, {
        id: failing.id,
        name: 'a failing',
        checkType: 'URL',
        activated: true,
        muted: false,
        tags: ['web'],
        groupId: null,
        locations: ['local'],
        privateLocations: [],
        frequency: 5,
        status: 'failing',
        statusSince: '2026-11-22T12:05:00.000Z',
        lastRunAt: '2026-11-22T12:10:00.000Z',
        lastResponseTime: 500,
        availability24h: 60,
        responseTimes24h: hours({ 0: 50, 22: 150, 23: 400 }),
      })
      assert.deepEqual(
        { status: b.status, statusSince: b.statusSince, availability24h: b.availability24h },
        { status: 'passing', statusSince: '2026-11-22T11:00:00.000Z', availability24h: 66.667 },
      )
      assert.deepEqual(b.responseTimes24h, hours({ 21: 10, 22: 20, 23: 40 }))
      assert.deepEqual(
        [
          c.id,
          c.status,
          c.statusSince,
          c.lastRunAt,
          c.lastResponseTime,
          c.availability24h,
          c.responseTimes24h,
        ],
        [fresh.id, 'no-data', null, null, null, null, hours({})],
      )
      assert.deepEqual([d.status, d.statusSince, d.activated], ['paused', null, false])
    })

    test('since when follows new results from poll to poll, a change and its undoing between two polls included', async () => {
      const check = await createCheck('since polls')
      const sinceOf = async () => {
        const response = await t.call({ method: 'GET', url: '/v1/dashboard/overview' })
        const found = json(response).checks.find((c: { id: string }) => c.id === check.id)
        return [found.status, found.statusSince]
      }
      await store(check.id, '2026-11-22T09:00:00.000Z', true, 10)
      await store(check.id, '2026-11-22T10:00:00.000Z', false, 10)
      assert.deepEqual(await sinceOf(), ['passing', '2026-11-22T10:00:00.000Z'])
      await store(check.id, '2026-11-22T10:10:00.000Z', false, 10)
      assert.deepEqual(await sinceOf(), ['passing', '2026-11-22T10:00:00.000Z'])
      await store(check.id, '2026-11-22T10:20:00.000Z', true, 10)
      await store(check.id, '2026-11-22T10:30:00.000Z', false, 10)
      assert.deepEqual(await sinceOf(), ['passing', '2026-11-22T10:30:00.000Z'])
      await store(check.id, '2026-11-22T10:40:00.000Z', true, 10)
      assert.deepEqual(await sinceOf(), ['failing', '2026-11-22T10:40:00.000Z'])
      await store(check.id, '2026-11-22T10:50:00.000Z', true, 10)
      assert.deepEqual(await sinceOf(), ['failing', '2026-11-22T10:40:00.000Z'])
    })

    test('filters, failing first, pages, and counts of every check whatever the filters', async () => {
      const other = await createTestApp(engine, { clock: { now: () => new Date(NOW) } })
      try {
        const group = json(
          await other.call({
            method: 'POST',
            url: '/v1/check-groups',
            payload: { name: 'shop', locations: ['eu-west-1'] },
          }),
        )
        const make = async (name: string, extra: object) =>
          json(
            await other.call({
              method: 'POST',
              url: '/v1/checks/url',
              payload: { name, request: { url: 'http://127.0.0.1:9/' }, ...extra },
            }),
          )
        const seed = (checkId: string, failed: boolean) =>
          storeSeedResult(
            other.ctx,
            { id: checkId, accountId: other.owner.accountId, checkType: 'URL' },
            {
              atMs: at('2026-11-22T12:00:00.000Z'),
              location: 'local',
              failed,
              responseTime: 5,
              statusCode: 200,
              detail: {},
            },
          )
        const names: string[] = []
        for (let index = 0; index < 7; index++) {
          const name = `Check ${index}`
          names.push(name)
          const check = await make(name, { tags: [index % 2 ? 'odd' : 'even'], activated: index !== 6 })
          if (index < 5) await seed(check.id, index === 3 || index === 4)
        }
        await make('Shop home', { groupId: group.id, tags: ['shop'] })
        await make('Shop api', { groupId: group.id, tags: ['shop'] })
        const overview = async (query: string) => {
          const response = await other.call({ method: 'GET', url: `/v1/dashboard/overview${query}` })
          assert.equal(response.statusCode, 200, response.body)
          const body = json(response)
          return { ...body, names: body.checks.map((c: { name: string }) => c.name) }
        }
        const everything = await overview('?limit=4')
        assert.deepEqual(everything.names, ['Check 3', 'Check 4', 'Check 0', 'Check 1'])
        assert.deepEqual([everything.total, everything.page, everything.limit], [9, 1, 4])
        assert.deepEqual(everything.counts, { passing: 3, degraded: 0, failing: 2, paused: 1, 'no-data': 3 })
        assert.deepEqual(everything.tags, ['even', 'odd', 'shop'])
        assert.deepEqual(everything.groupIds, [group.id])
        assert.deepEqual(everything.locations, ['eu-west-1', 'local'])
        assert.deepEqual((await overview('?limit=4&page=2')).names, [
          'Check 2',
          'Check 5',
          'Shop api',
          'Shop home',
        ])
        const past = await overview('?limit=4&page=9')
        assert.deepEqual([past.page, past.names], [3, ['Check 6']])
        const failing = await overview('?status=failing')
        assert.deepEqual(
          [failing.names, failing.total, failing.counts.passing],
          [['Check 3', 'Check 4'], 2, 3],
        )
        assert.deepEqual((await overview('?tag=odd')).names, ['Check 3', 'Check 1', 'Check 5'])
        assert.deepEqual((await overview(`?group=${group.id}`)).names, ['Shop api', 'Shop home'])
        assert.deepEqual((await overview('?location=eu-west-1')).names, ['Shop api', 'Shop home'])
        assert.deepEqual((await overview('?q=%20SHOP%20h')).names, ['Shop home'])
        assert.deepEqual((await overview('?type=API')).names, [])
        assert.deepEqual((await overview('?type=URL&status=paused')).names, ['Check 6'])
        const shopApi = (await overview('?q=shop%20api')).checks[0]
        assert.deepEqual((await overview(`?id=${shopApi.id}`)).checks, [shopApi])
        const none = await overview('?q=nothing')
        assert.deepEqual([none.names, none.total, none.page], [[], 0, 1])
        for (const bad of [
          'limit=0',
          'limit=101',
          'page=0',
          'status=broken',
          'type=FTP',
          'group=x',
          'id=1',
        ]) {
          const response = await other.call({ method: 'GET', url: `/v1/dashboard/overview?${bad}` })
          assert.equal(response.statusCode, 400, `${bad}: ${response.body}`)
          assert.equal(json(response).error, 'Bad Request', bad)
        }
      } finally {
        await other.close()
      }
    })

    test('a READ_ONLY member reads it; without a key it is 401', async () => {
      const reader = await t.addUser('READ_ONLY')
      assert.equal(
        (await t.call({ method: 'GET', url: '/v1/dashboard/overview', as: reader })).statusCode,
        200,
      )
      assert.equal((await t.call({ method: 'GET', url: '/v1/dashboard/overview', as: null })).statusCode, 401)
    })
  })
}
