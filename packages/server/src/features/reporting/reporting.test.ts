import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { exactAggregates, storeSeedResult } from '../analytics/testing.ts'

const NOW = Date.parse('2026-11-22T12:00:00.000Z')
const HOUR = 3_600_000

/** Parses RFC 4180 CSV (quoted cells, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += c
  }
  return rows
}

for (const engine of testEngines()) {
  describe(`reporting on ${engine.engine}`, () => {
    let t: TestApp
    const ids: Record<string, string> = {}
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(NOW) } })
      const make = async (key: string, body: object) => {
        const res = await t.call({ method: 'POST', url: '/v1/checks/url', payload: body })
        assert.equal(res.statusCode, 201, res.body)
        ids[key] = json(res).id
      }
      await make('shop', {
        name: 'Shop, "main" page',
        activated: true,
        tags: ['prod', 'web'],
        request: { url: 'http://127.0.0.1:9/' },
      })
      await make('old', {
        name: '=HYPERLINK("x")',
        activated: false,
        tags: ['legacy'],
        request: { url: 'http://127.0.0.1:9/' },
      })
      await make('quiet', {
        name: 'Quiet',
        activated: true,
        tags: ['prod'],
        request: { url: 'http://127.0.0.1:9/' },
      })
      const seed = (key: string, atMs: number, failed: boolean, responseTime: number) =>
        storeSeedResult(
          t.ctx,
          { id: ids[key] as string, accountId: t.owner.accountId, checkType: 'URL' },
          { atMs, location: 'local', failed, responseTime, statusCode: failed ? 500 : 200, detail: {} },
        )
      // Shop: 3 of 4 pass today, plus one failure yesterday evening (outside the last 12 hours).
      await seed('shop', NOW - 4 * HOUR, false, 100)
      await seed('shop', NOW - 3 * HOUR, false, 200)
      await seed('shop', NOW - 2 * HOUR, true, 300)
      await seed('shop', NOW - 1 * HOUR, false, 400)
      await seed('shop', NOW - 15 * HOUR, true, 1000)
      await seed('old', NOW - 5 * HOUR, true, 50)
    })
    after(() => t.close())

    const report = async (query: string, headers: Record<string, string> = {}) => {
      const res = await t.call({ method: 'GET', url: `/v1/reporting${query}`, headers })
      assert.equal(res.statusCode, 200, res.body)
      return res
    }
    const near = (actual: number, expected: number, label: string) =>
      assert.ok(Math.abs(actual - expected) <= expected * 0.02, `${label}: ${actual} vs ${expected}`)

    test('availability and response times per check over a window, from the rollups', async () => {
      const from = (NOW - 12 * HOUR) / 1000
      const rows = json(await report(`?from=${from}&to=${NOW / 1000}`))
      const byId = (key: string) => rows.find((r: { checkId: string }) => r.checkId === ids[key])
      assert.equal(rows.length, 3)
      const [shop, old, quiet] = [byId('shop'), byId('old'), byId('quiet')]
      assert.deepEqual(
        { ...shop, aggregate: undefined },
        {
          name: 'Shop, "main" page',
          checkId: ids.shop,
          checkType: 'URL',
          deactivated: false,
          tags: ['prod', 'web'],
          aggregate: undefined,
        },
      )
      assert.equal(shop.aggregate.successRatio, 75)
      assert.equal(shop.aggregate.avg, 250)
      // Percentiles come from the rollups' sketches: within their accuracy of the exact nearest rank.
      const exact = exactAggregates([100, 200, 300, 400])
      near(shop.aggregate.p95, exact.p95, 'p95')
      near(shop.aggregate.p99, exact.p99, 'p99')
      assert.deepEqual(old.aggregate, {
        successRatio: 0,
        avg: 50,
        p95: old.aggregate.p95,
        p99: old.aggregate.p99,
      })
      assert.equal(old.deactivated, true)
      assert.deepEqual(quiet.aggregate, { successRatio: 0, avg: 0, p95: 0, p99: 0 })

      // The default window (last24Hrs) takes yesterday evening's failure in: 3 of 5.
      const [day] = json(await report('?quickRange=last24Hrs&filterByTags=web'))
      assert.equal(day.aggregate.successRatio, 60)
      assert.equal(day.aggregate.avg, 400)
    })

    test('filters by tags (any of them) and by activation', async () => {
      const names = async (query: string) =>
        json(await report(query))
          .map((r: { checkId: string }) => Object.keys(ids).find((k) => ids[k] === r.checkId))
          .sort()
      assert.deepEqual(await names('?filterByTags=prod'), ['quiet', 'shop'])
      assert.deepEqual(await names('?filterByTags=legacy&filterByTags=web'), ['old', 'shop'])
      assert.deepEqual(await names('?filterByTags=legacy,web'), ['old', 'shop'])
      assert.deepEqual(await names('?deactivated=true'), ['old'])
      assert.deepEqual(await names('?deactivated=false&filterByTags=prod'), ['quiet', 'shop'])
      assert.deepEqual(await names('?filterByTags=none'), [])
    })

    test('splits the window into calendar buckets with granularity', async () => {
      const from = Date.parse('2026-11-21T00:00:00.000Z') / 1000
      const [shop] = json(await report(`?from=${from}&to=${NOW / 1000}&granularity=day&filterByTags=web`))
      assert.equal(shop.aggregate, undefined)
      assert.deepEqual(
        shop.aggregates.map((b: { from: string; to: string; successRatio: number }) => [
          b.from,
          b.to,
          b.successRatio,
        ]),
        [
          ['2026-11-21T00:00:00.000Z', '2026-11-22T00:00:00.000Z', 0],
          ['2026-11-22T00:00:00.000Z', '2026-11-22T12:00:00.000Z', 75],
        ],
      )
      // In Tokyo (UTC+9) the day turns at 15:00 UTC: yesterday's 21:00 failure is on the 22nd there.
      const [tokyo] = json(
        await report(`?from=${from}&to=${NOW / 1000}&granularity=day&timezone=Asia/Tokyo&filterByTags=web`),
      )
      assert.deepEqual(
        tokyo.aggregates.map((b: { from: string; successRatio: number }) => [b.from, b.successRatio]),
        [
          ['2026-11-21T00:00:00.000Z', 0],
          ['2026-11-21T15:00:00.000Z', 60],
        ],
      )
      const [month] = json(await report('?quickRange=last30Days&granularity=month&filterByTags=web'))
      assert.deepEqual(
        month.aggregates.map((b: { from: string; to: string }) => [b.from, b.to]),
        [
          ['2026-10-23T12:00:00.000Z', '2026-11-01T00:00:00.000Z'],
          ['2026-11-01T00:00:00.000Z', '2026-11-22T12:00:00.000Z'],
        ],
      )
    })

    test('answers CSV for Accept: text/csv, parsed back to the same figures', async () => {
      const from = (NOW - 12 * HOUR) / 1000
      const res = await report(`?from=${from}&to=${NOW / 1000}`, { accept: 'text/csv' })
      assert.match(String(res.headers['content-type']), /^text\/csv/)
      const [header, ...lines] = parseCsv(res.body)
      assert.deepEqual(header, [
        'name',
        'checkId',
        'checkType',
        'deactivated',
        'tags',
        'from',
        'to',
        'successRatio',
        'avg',
        'p95',
        'p99',
      ])
      assert.equal(lines.length, 3)
      const line = (key: string) => (lines as string[][]).find((cells) => cells[1] === ids[key])
      const [shop, old, quiet] = [line('shop'), line('old'), line('quiet')]
      assert.deepEqual(shop?.slice(0, 9), [
        'Shop, "main" page',
        ids.shop,
        'URL',
        'false',
        'prod web',
        '2026-11-22T00:00:00.000Z',
        '2026-11-22T12:00:00.000Z',
        '75',
        '250',
      ])
      // A name a spreadsheet would run as a formula is kept as text.
      assert.equal(old?.[0], `'=HYPERLINK("x")`)
      assert.deepEqual(quiet?.slice(7), ['0', '0', '0', '0'])
      const buckets = parseCsv(
        (await report(`?from=${from}&to=${NOW / 1000}&granularity=day`, { accept: 'text/csv' })).body,
      )
      assert.equal(buckets.length, 1 + 3, 'one line per check and bucket')
      const plain = await report('', { accept: 'application/json, text/csv' })
      assert.match(String(plain.headers['content-type']), /^application\/json/)
    })

    test('refuses bad windows, zones and values with a 400 naming the parameter', async () => {
      const bad = async (query: string, path: string) => {
        const res = await t.call({ method: 'GET', url: `/v1/reporting${query}` })
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`)
        assert.equal(json(res).attributes.errors[0].path, path, query)
      }
      await bad('?quickRange=last24Hours', 'querystring.quickRange')
      await bad(`?from=${NOW / 1000}&to=${NOW / 1000 - 60}`, 'querystring.from')
      await bad('?granularity=day&timezone=%2B05:00', 'querystring.timezone')
      await bad('?granularity=day&timezone=Mars/Base', 'querystring.timezone')
      await bad('?granularity=hour', 'querystring.granularity')
      await bad(
        `?from=${NOW / 1000 - 401 * 86_400}&to=${NOW / 1000}&granularity=day`,
        'querystring.granularity',
      )
      await bad(
        `?from=${NOW / 1000 - 200 * 86_400}&to=${NOW / 1000}&granularity=day`,
        'querystring.granularity',
      )
      await bad('?deactivated=maybe', 'querystring.deactivated')
    })
  })
}
