import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import {
  createTestApp,
  json,
  ownerOfAnotherAccount,
  type Tenant,
  type TestApp,
} from '../../testing/test-app.ts'
import { pruneResults } from '../retention/retention.service.ts'
import { countRollups } from './analytics.repo.ts'
import { exactAggregates, PERCENTILES, random, type SeedResult, storeSeedResult } from './testing.ts'

const HOUR = 3_600_000
const MINUTE = 60_000
const LOCATIONS = ['local', 'eu-west-1']
const iso = (ms: number) => new Date(ms).toISOString()

interface Seeded extends SeedResult {
  phases: { wait: number; dns: number; tcp: number; tls: number; firstByte: number; download: number }
}

/** Months of URL results with known distributions: every 157 minutes (so every hour of the day sees some) in two locations, some failing. */
function seedModel(): Seeded[] {
  const next = random(20260410)
  const results: Seeded[] = []
  const start = Date.parse('2026-01-20T00:05:00Z')
  const end = Date.parse('2026-04-10T11:00:00Z')
  for (let at = start; at < end; at += 157 * MINUTE) {
    for (const [i, location] of LOCATIONS.entries()) {
      const slow = next() < 0.04 ? 2_000 + next() * 3_000 : 0
      const phases = {
        wait: 0,
        dns: next() < 0.3 ? 0 : Math.round(next() * 2000) / 100,
        tcp: Math.round((2 + next() * 10) * 100) / 100,
        tls: Math.round((5 + next() * 20) * 100) / 100,
        firstByte: Math.round((20 + next() * 150 + slow) * 100) / 100,
        download: Math.round(next() * 3000) / 100,
      }
      const responseTime = Math.round(
        phases.dns + phases.tcp + phases.tls + phases.firstByte + phases.download,
      )
      const roll = next()
      const statusCode = roll < 0.06 ? 500 : roll < 0.09 ? 404 : 200
      const failed = statusCode >= 400
      const attempts = failed ? (next() < 0.5 ? 2 : 1) : next() < 0.05 ? 3 : 1
      results.push({
        atMs: at + i * 47 * MINUTE,
        location,
        failed,
        responseTime,
        attempts,
        statusCode,
        phases,
        detail: {
          urlCheckResult: {
            request: { method: 'GET', url: 'https://shop.test/', headers: {} },
            response: { status: statusCode, statusText: '', headers: {}, body: '' },
            timingPhases: { ...phases, total: responseTime },
            assertions: [],
            tls: null,
          },
        },
      })
    }
  }
  return results
}

type Metric = string
function expectedOf(results: Seeded[], metric: Metric): number | null {
  if (results.length === 0) return null
  if (metric === 'availability') return (100 * results.filter((r) => !r.failed).length) / results.length
  if (metric === 'retries') return results.reduce((a, r) => a + (r.attempts ?? 1) - 1, 0)
  const [base, aggregation] = metric.split('_') as [string, keyof ReturnType<typeof exactAggregates>]
  const values = results.map((r) =>
    base === 'responseTime' ? r.responseTime : r.phases[base as keyof Seeded['phases']],
  )
  return exactAggregates(values)[aggregation]
}

function assertRow(actual: Record<string, unknown>, expected: Seeded[], metrics: Metric[], label: string) {
  for (const metric of metrics) {
    const want = expectedOf(expected, metric)
    const got = actual[metric] as number | null
    const where = `${label} ${metric}: got ${got}, want ${want}`
    if (want === null) {
      assert.equal(got, null, where)
      continue
    }
    assert.equal(typeof got, 'number', where)
    const aggregation = metric.split('_')[1] ?? ''
    if (PERCENTILES.has(aggregation)) {
      assert.ok(Math.abs((got as number) - want) <= want * 0.01 + 0.001, where)
    } else {
      assert.ok(Math.abs((got as number) - want) <= 0.0011, where)
    }
  }
}

/** The results in [from, to) of a bucket, as the test itself sees them. */
const within = (results: Seeded[], fromMs: number, toMs: number) =>
  results.filter((r) => r.atMs >= fromMs && r.atMs < toMs)

/** Local midnight in Berlin for Jan–Apr 2026: CET (UTC+1) until DST starts on 29 March, CEST (UTC+2) after. */
const berlinMidnight = (month: number, day: number) =>
  Date.UTC(2026, month - 1, day) - (month > 3 || (month === 3 && day >= 30) ? 2 : 1) * HOUR

for (const engine of testEngines()) {
  describe(`analytics on ${engine.engine}`, () => {
    let t: TestApp
    const nowMs = Date.parse('2026-04-10T12:00:00.000Z')
    const model = seedModel()
    let check: { id: string; accountId: string; checkType: string }
    let calls = 0
    let reader: Tenant
    const target = createServer((_request, response) => response.end('ok'))

    // The analytics limit is 30 per minute per key and the clock stands still: a fresh key every 25 queries.
    const query = async (path: string) => {
      if (calls++ % 25 === 0) reader = await t.addUser('READ_ONLY')
      return t.call({ method: 'GET', url: path, as: reader })
    }
    const ok = async (path: string) => {
      const res = await query(path)
      assert.equal(res.statusCode, 200, res.body)
      return json(res)
    }

    before(async () => {
      const { url } = await listenOnLoopback(target)
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      const res = await t.call({
        method: 'POST',
        url: '/v1/checks/url?autoAssignAlerts=false',
        payload: {
          name: 'Shop',
          activated: false,
          tags: ['shop'],
          locations: LOCATIONS,
          frequency: 1,
          request: { url: `${url}/` },
        },
      })
      assert.equal(res.statusCode, 201, res.body)
      check = { id: json(res).id, accountId: t.owner.accountId, checkType: 'URL' }
      // Results fold into day rows of the account's zone at the time: Berlin's here (UTC queries use hours).
      const patched = await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { timezone: 'Europe/Berlin' } },
      })
      assert.equal(patched.statusCode, 200, patched.body)
      for (const result of model) await storeSeedResult(t.ctx, check, result)
    })
    after(async () => {
      target.close()
      await t.close()
    })

    test('lastMonth per local day in Berlin: 31 buckets, the DST day 23 hours, every metric', async () => {
      const metrics = [
        'availability',
        'retries',
        ...['avg', 'min', 'max', 'sum', 'stddev', 'median', 'p50', 'p90', 'p95', 'p99'].map(
          (a) => `responseTime_${a}`,
        ),
        'dns_avg',
        'dns_p50',
        'wait_max',
        'tcp_p90',
        'firstByte_p99',
        'download_sum',
      ]
      const body = await ok(
        `/v1/analytics/url-monitors/${check.id}?quickRange=lastMonth&aggregationInterval=1440&metrics=${metrics.join(',')}`,
      )
      assert.equal(body.from, iso(berlinMidnight(3, 1)))
      assert.equal(body.to, iso(berlinMidnight(4, 1)))
      assert.deepEqual(
        [body.checkId, body.name, body.checkType, body.activated, body.muted, body.frequency, body.tags],
        [check.id, 'Shop', 'URL', false, false, 1, ['shop']],
      )
      assert.deepEqual(body.pagination, { page: 1, limit: 100 })
      assert.deepEqual(body.metadata.responseTime_p95, {
        unit: 'milliseconds',
        label: 'responseTime (95th percentile)',
        aggregation: 'p95',
      })
      assert.deepEqual(body.metadata.availability, {
        unit: 'percentage',
        label: 'Availability',
        aggregation: 'avg',
      })
      assert.equal(body.series.length, 1)
      const rows = body.series[0].data
      const edges = Array.from({ length: 32 }, (_, i) =>
        i < 31 ? berlinMidnight(3, i + 1) : berlinMidnight(4, 1),
      )
      assert.deepEqual(
        rows.map((row: { timestamp: string }) => row.timestamp),
        edges.slice(0, 31).map(iso),
      )
      assert.equal(edges[29]! - edges[28]!, 23 * HOUR, '29 March is 23 hours long')
      rows.forEach((row: Record<string, unknown>, i: number) => {
        assertRow(row, within(model, edges[i]!, edges[i + 1]!), metrics, `day ${row.timestamp}`)
      })
    })

    test('hour buckets by location across a month end, from a window start inside an hour', async () => {
      const from = Date.parse('2026-02-27T20:37:30Z')
      const to = Date.parse('2026-03-01T03:10:00Z')
      const metrics = [
        'availability',
        'responseTime_avg',
        'responseTime_p95',
        'dns_max',
        'tcp_min',
        'retries',
      ]
      const body = await ok(
        `/v1/analytics/url-monitors/${check.id}?from=${from / 1000}&to=${to / 1000}&aggregationInterval=60&groupBy=runLocation&metrics=${metrics.join(',')}`,
      )
      assert.equal(body.from, '2026-02-27T20:37:00.000Z', 'windows are whole minutes')
      assert.deepEqual(
        body.series.map((s: { runLocation: string }) => s.runLocation),
        ['eu-west-1', 'local'],
      )
      const edges = [Date.parse('2026-02-27T20:37:00Z')]
      for (let at = Date.parse('2026-02-27T21:00:00Z'); at < to; at += HOUR) edges.push(at)
      edges.push(to)
      for (const series of body.series) {
        assert.equal(series.data.length, edges.length - 1)
        const mine = model.filter((r) => r.location === series.runLocation)
        series.data.forEach((row: Record<string, unknown>, i: number) => {
          assert.equal(row.timestamp, iso(edges[i]!))
          assertRow(
            row,
            within(mine, edges[i]!, edges[i + 1]!),
            metrics,
            `${series.runLocation} ${row.timestamp}`,
          )
        })
      }
    })

    test('30-day buckets grouped by status code follow local midnights', async () => {
      const from = berlinMidnight(1, 21)
      const metrics = ['availability', 'retries', 'responseTime_avg', 'responseTime_p99', 'download_stddev']
      const body = await ok(
        `/v1/analytics/url-monitors/${check.id}?from=${from / 1000}&to=${nowMs / 1000}&aggregationInterval=43200&groupBy=statusCode&metrics=${metrics.join(',')}`,
      )
      const edges = [berlinMidnight(1, 21), berlinMidnight(2, 20), berlinMidnight(3, 22), nowMs]
      assert.deepEqual(
        body.series.map((s: { statusCode: number }) => s.statusCode),
        [200, 404, 500],
      )
      for (const series of body.series) {
        const mine = model.filter((r) => r.statusCode === series.statusCode)
        assert.deepEqual(
          series.data.map((row: { timestamp: string }) => row.timestamp),
          edges.slice(0, 3).map(iso),
        )
        series.data.forEach((row: Record<string, unknown>, i: number) => {
          assertRow(
            row,
            within(mine, edges[i]!, edges[i + 1]!),
            metrics,
            `${series.statusCode} ${row.timestamp}`,
          )
        })
      }
    })

    test('filterByStatus keeps only failing or only passing results', async () => {
      const metrics = ['availability', 'responseTime_avg', 'responseTime_max']
      for (const filter of ['failure', 'success']) {
        const body = await ok(
          `/v1/analytics/url-monitors/${check.id}?quickRange=thisMonth&aggregationInterval=1440&filterByStatus=${filter}&metrics=${metrics.join(',')}`,
        )
        assert.equal(body.from, iso(berlinMidnight(4, 1)))
        assert.equal(body.to, iso(nowMs))
        const edges = Array.from({ length: 10 }, (_, i) => berlinMidnight(4, i + 1)).concat(nowMs)
        const kept = model.filter((r) => r.failed === (filter === 'failure'))
        body.series[0].data.forEach((row: Record<string, unknown>, i: number) => {
          assertRow(row, within(kept, edges[i]!, edges[i + 1]!), metrics, `${filter} ${row.timestamp}`)
          if (row.availability !== null) assert.equal(row.availability, filter === 'failure' ? 0 : 100)
        })
      }
    })

    test('without aggregationInterval, one bucket over the whole window (as the hosted CLI reads it)', async () => {
      const metrics: Metric[] = ['availability', 'responseTime_avg', 'responseTime_p95', 'responseTime_max']
      const body = await ok(
        `/v1/analytics/url-monitors/${check.id}?quickRange=lastMonth&metrics=${metrics.join(',')}`,
      )
      assert.equal(body.series[0].data.length, 1)
      const [row] = body.series[0].data
      assert.equal(row.timestamp, body.from)
      assertRow(row, within(model, Date.parse(body.from), Date.parse(body.to)), metrics, 'whole window')
    })

    test('UTC month ends, the default metrics, and a window starting and ending on a result', async () => {
      await t.call({ method: 'PATCH', url: '/v1/accounts/me', payload: { settings: { timezone: 'UTC' } } })
      try {
        const body = await ok(
          `/v1/analytics/url-monitors/${check.id}?quickRange=lastMonth&aggregationInterval=1440`,
        )
        assert.deepEqual(Object.keys(body.metadata), [
          'availability',
          'responseTime_avg',
          'responseTime_p50',
          'responseTime_p95',
          'responseTime_p99',
        ])
        const rows = body.series[0].data
        assert.equal(rows.length, 31)
        assert.equal(rows[0].timestamp, '2026-03-01T00:00:00.000Z')
        assert.equal(rows[30].timestamp, '2026-03-31T00:00:00.000Z')
        rows.forEach((row: Record<string, unknown>, i: number) => {
          const start = Date.UTC(2026, 2, i + 1)
          assertRow(
            row,
            within(model, start, start + 24 * HOUR),
            Object.keys(body.metadata),
            row.timestamp as string,
          )
        })

        // `from` is inclusive, `to` exclusive: a result exactly at either edge.
        const first = model[100]!
        const last = model[160]!
        const edgeBody = await ok(
          `/v1/analytics/url-monitors/${check.id}?from=${first.atMs / 1000}&to=${last.atMs / 1000}&aggregationInterval=1440&metrics=responseTime_sum,availability`,
        )
        const total = edgeBody.series[0].data.reduce(
          (sum: number, row: { responseTime_sum: number | null }) => sum + (row.responseTime_sum ?? 0),
          0,
        )
        const expected = within(model, first.atMs, last.atMs)
        assert.equal(expected.length, 60)
        assert.ok(Math.abs(total - expected.reduce((a, r) => a + r.responseTime, 0)) < 0.01)
      } finally {
        await t.call({
          method: 'PATCH',
          url: '/v1/accounts/me',
          payload: { settings: { timezone: 'Europe/Berlin' } },
        })
      }
    })

    test('after a time zone change, days of the new zone are right before and after the change', async () => {
      await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { timezone: 'America/New_York' } },
      })
      try {
        // Three more days of results (after "now": any window may be asked for), folded in New York days.
        const next = random(7)
        const extra: Seeded[] = []
        const nyMidnight = (day: number) => Date.UTC(2026, 3, day) + 4 * HOUR
        for (let at = nyMidnight(11); at < nyMidnight(14); at += 45 * MINUTE) {
          const responseTime = Math.round(100 + next() * 400)
          const phases = { wait: 0, dns: 1, tcp: 2, tls: 3, firstByte: responseTime - 10, download: 4 }
          const failed = next() < 0.1
          extra.push({
            atMs: at,
            location: 'local',
            failed,
            responseTime,
            statusCode: failed ? 500 : 200,
            phases,
            detail: { urlCheckResult: { timingPhases: { ...phases, total: responseTime } } },
          })
        }
        for (const result of extra) await storeSeedResult(t.ctx, check, result)
        const all = [...model, ...extra]
        const metrics = ['availability', 'responseTime_avg', 'responseTime_p90', 'firstByte_max']
        const body = await ok(
          `/v1/analytics/url-monitors/${check.id}?from=${nyMidnight(8) / 1000}&to=${nyMidnight(14) / 1000}&aggregationInterval=1440&metrics=${metrics.join(',')}`,
        )
        const rows = body.series[0].data
        assert.deepEqual(
          rows.map((row: { timestamp: string }) => row.timestamp),
          [8, 9, 10, 11, 12, 13].map((day) => iso(nyMidnight(day))),
        )
        rows.forEach((row: Record<string, unknown>, i: number) => {
          assertRow(row, within(all, nyMidnight(8 + i), nyMidnight(9 + i)), metrics, `NY ${row.timestamp}`)
        })
      } finally {
        await t.call({
          method: 'PATCH',
          url: '/v1/accounts/me',
          payload: { settings: { timezone: 'Europe/Berlin' } },
        })
      }
    })

    test('bare metric names answer raw points, paged, grouped like aggregates', async () => {
      const from = Date.parse('2026-03-10T00:00:00Z')
      const to = Date.parse('2026-03-12T00:00:00Z')
      const inWindow = within(model, from, to).sort((a, b) => a.atMs - b.atMs)
      const res = await query(
        `/v1/analytics/url-monitors/${check.id}?from=${from / 1000}&to=${to / 1000}&metrics=responseTime,dns&metrics=availability&limit=5&page=2`,
      )
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.headers['content-range'], `items 5-9/${inWindow.length}`)
      const body = json(res)
      assert.deepEqual(body.metadata.responseTime, {
        unit: 'milliseconds',
        label: 'responseTime',
        aggregation: 'none',
      })
      assert.deepEqual(
        body.series[0].data,
        inWindow.slice(5, 10).map((r) => ({
          timestamp: iso(r.atMs),
          responseTime: r.responseTime,
          dns: r.phases.dns,
          availability: r.failed ? 0 : 100,
        })),
      )
      const grouped = await ok(
        `/v1/analytics/url-monitors/${check.id}?from=${from / 1000}&to=${to / 1000}&metrics[]=tcp&groupBy=runLocation&limit=100`,
      )
      for (const series of grouped.series) {
        assert.deepEqual(
          series.data.map((p: { tcp: number }) => p.tcp),
          inWindow.filter((r) => r.location === series.runLocation).map((r) => r.phases.tcp),
        )
      }
    })

    test('bad queries are 400 in the error shape; another account is 404', async () => {
      const base = `/v1/analytics/url-monitors/${check.id}`
      const cases: [string, RegExp][] = [
        [`${base}?metrics=responseTime_p42`, /unknown metric "responseTime_p42"/],
        [`${base}?metrics=availability,TTFB_avg`, /unknown metric "TTFB_avg"/],
        [`${base}?from=1775000000&to=1774000000`, /must be before `to`/],
        [`${base}?aggregationInterval=0`, /aggregationInterval/],
        [`${base}?aggregationInterval=43201`, /aggregationInterval/],
        [`${base}?aggregationInterval=1.5`, /aggregationInterval/],
        [`${base}?groupBy=pageIndex`, /groupBy/],
        [`${base}?quickRange=lastYear`, /quickRange/],
        [`${base}?filterByStatus=FAILING`, /filterByStatus/],
        [`${base}?metrics=responseTime,responseTime_avg`, /mixes raw points/],
        [`${base}?quickRange=last30Days&aggregationInterval=1&from=1700000000`, /buckets/],
        // Billions of buckets: refused before any of them is laid out (was a 500 after seconds of work).
        [`${base}?from=0&to=253402300799&aggregationInterval=1`, /more than 50000 buckets/],
        [`${base}?from=0&to=253402300799&aggregationInterval=7`, /more than 50000 buckets/],
        [`${base}?from=0&to=253402300799&aggregationInterval=1440`, /more than 50000 buckets/],
        [`/v1/analytics/api-checks/${check.id}`, /is a URL check/],
        [`/v1/analytics/heartbeat-checks/${check.id}?groupBy=runLocation`, /groupBy/],
        [
          `${base}?from=1000000000000000000000000000000&to=10000000000000000000000000000000`,
          /querystring\.from/,
        ],
        [`${base}?from=0&to=99999999999999`, /querystring\.to/],
        [`${base}?metrics=responseTime&page=99999999999999999999`, /querystring\.page/],
      ]
      for (const [path, message] of cases) {
        const res = await query(path)
        assert.equal(res.statusCode, 400, `${path}: ${res.body}`)
        const body = json(res)
        assert.equal(body.error, 'Bad Request')
        assert.match(body.message, message, path)
      }
      const stranger = await ownerOfAnotherAccount(t)
      const res = await t.call({ method: 'GET', url: base, as: stranger })
      assert.equal(res.statusCode, 404)
    })

    test('30 analytics queries per minute per key, then 429', async () => {
      const key = await t.addUser('READ_ONLY')
      const statuses: number[] = []
      for (let i = 0; i < 31; i++) {
        const res = await t.call({ method: 'GET', url: `/v1/analytics/url-monitors/${check.id}`, as: key })
        statuses.push(res.statusCode)
      }
      assert.deepEqual(statuses.slice(0, 30), Array(30).fill(200))
      const limited = await t.call({ method: 'GET', url: `/v1/analytics/dns/${check.id}`, as: key })
      assert.equal(limited.statusCode, 429)
      assert.equal(json(limited).attributes.limit, 30)
    })

    test('a triggered run is in analytics at once; rollups go with old results and with the check', async () => {
      const path = `/v1/analytics/url-monitors/${check.id}?aggregationInterval=1440&groupBy=runLocation&metrics=availability`
      const today = (body: any) =>
        body.series.find((s: { runLocation: string }) => s.runLocation === 'local').data.at(-1)
      const earlier = within(model, berlinMidnight(4, 10), nowMs).filter((r) => r.location === 'local')
      const passing = earlier.filter((r) => !r.failed).length
      const before = today(await ok(path))
      assert.equal(before.timestamp, iso(berlinMidnight(4, 10)))
      assert.ok(Math.abs(before.availability - (100 * passing) / earlier.length) < 0.001)
      const run = await t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      assert.equal(run.statusCode, 200, run.body)
      assert.equal(json(run).hasFailures, false)
      const after = today(await ok(path))
      assert.ok(Math.abs(after.availability - (100 * (passing + 1)) / (earlier.length + 1)) < 0.001)

      const rollups = await countRollups(t.ctx, check.id)
      assert.ok(rollups > 0)
      // The account keeps 30 days by default: everything before 11 March goes, rollups with it.
      await pruneResults(t.ctx, 400)
      const pruned = await ok(
        `/v1/analytics/url-monitors/${check.id}?from=${Date.parse('2026-02-01T00:00:00Z') / 1000}&to=${nowMs / 1000}&aggregationInterval=43200&metrics=availability`,
      )
      assert.ok((await countRollups(t.ctx, check.id)) < rollups)
      assert.equal(pruned.series[0].data.length, 3)
      assert.equal(pruned.series[0].data[0].availability, null, 'nothing is left of early February')
      const deleted = await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
      assert.equal(deleted.statusCode, 204)
      assert.equal(await countRollups(t.ctx, check.id), 0)
    })
  })
}
