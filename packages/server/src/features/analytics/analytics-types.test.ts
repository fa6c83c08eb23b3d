import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { storeHeartbeatResult } from '../../runs/heartbeat-results.ts'
import { createTestApp, json, type Tenant, type TestApp } from '../../testing/test-app.ts'
import { findCheckById } from '../checks/checks.repo.ts'
import { exactAggregates, PERCENTILES, random, storeSeedResult } from './testing.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const SCRIPT = "const { test } = require('@playwright/test'); test('t', async () => {})"
const iso = (ms: number) => new Date(ms).toISOString()

/** A result of the test's own model: when, where, pass or fail, and the metric values it reported. */
interface Point {
  atMs: number
  location: string
  failed: boolean
  values: Record<string, number>
}

function assertClose(got: unknown, values: number[], aggregation: string, label: string) {
  const want = values.length === 0 ? null : exactAggregates(values)[aggregation as 'avg']
  if (want === null) return assert.equal(got, null, label)
  assert.equal(typeof got, 'number', `${label}: ${got}`)
  const tolerance = PERCENTILES.has(aggregation) ? want * 0.01 + 0.001 : 0.0011
  assert.ok(Math.abs((got as number) - want) <= tolerance, `${label}: got ${got}, want ${want}`)
}

for (const engine of testEngines()) {
  describe(`analytics of every check type on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-07-20T12:00:00.000Z')
    let calls = 0
    let reader: Tenant
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    const ok = async (path: string) => {
      if (calls++ % 25 === 0) reader = await t.addUser('READ_ONLY')
      const res = await t.call({ method: 'GET', url: path, as: reader })
      assert.equal(res.statusCode, 200, res.body)
      return json(res)
    }
    const createCheck = async (path: string, body: object) => {
      const res = await t.call({
        method: 'POST',
        url: `/v1/checks/${path}?autoAssignAlerts=false`,
        payload: { activated: false, ...body },
      })
      assert.equal(res.statusCode, 201, res.body)
      const check = json(res)
      return { id: check.id as string, accountId: t.owner.accountId, checkType: check.checkType as string }
    }

    /** Seeds a week of results (every 2 hours, two locations) whose details come from `detailOf`. */
    async function seedWeek(
      check: { id: string; accountId: string; checkType: string },
      seed: number,
      detailOf: (next: () => number) => {
        values: Record<string, number>
        detail: Record<string, unknown>
        responseTime: number
      },
    ): Promise<Point[]> {
      const next = random(seed)
      const points: Point[] = []
      for (let at = Date.parse('2026-07-13T00:10:00Z'); at < nowMs; at += 2 * HOUR) {
        for (const location of ['local', 'eu-west-1']) {
          const { values, detail, responseTime } = detailOf(next)
          const failed = next() < 0.1
          const atMs = at + (location === 'local' ? 0 : 31 * 60_000)
          await storeSeedResult(t.ctx, check, {
            atMs,
            location,
            failed,
            responseTime,
            errorType: failed ? 'NETWORK_ERROR' : null,
            errorMessage: failed ? 'Connection refused: connect ECONNREFUSED 10.0.0.1:5432' : null,
            detail,
          })
          points.push({ atMs, location, failed, values: { ...values, responseTime } })
        }
      }
      return points
    }

    /** Asserts every daily bucket of a whole-week query, per location, against the model. */
    async function assertWeek(segment: string, checkId: string, points: Point[], metrics: string[]) {
      const from = Date.parse('2026-07-13T00:00:00Z')
      const body = await ok(
        `/v1/analytics/${segment}/${checkId}?from=${from / 1000}&to=${nowMs / 1000}&aggregationInterval=1440&groupBy=runLocation&metrics=${metrics.join(',')}`,
      )
      assert.deepEqual(
        body.series.map((s: { runLocation: string }) => s.runLocation),
        ['eu-west-1', 'local'],
      )
      for (const series of body.series) {
        assert.equal(series.data.length, 8)
        series.data.forEach((row: Record<string, unknown>, day: number) => {
          const start = from + day * DAY
          const inBucket = points.filter(
            (p) =>
              p.location === series.runLocation && p.atMs >= start && p.atMs < Math.min(start + DAY, nowMs),
          )
          assert.equal(row.timestamp, iso(start))
          for (const metric of metrics) {
            const label = `${segment} ${series.runLocation} ${row.timestamp} ${metric}`
            if (metric === 'availability') {
              const passed = inBucket.filter((p) => !p.failed).length
              assert.ok(Math.abs((row[metric] as number) - (100 * passed) / inBucket.length) < 0.001, label)
              continue
            }
            const [base, aggregation] = metric.split('_') as [string, string]
            assertClose(
              row[metric],
              inBucket.flatMap((p) => (base in p.values ? [p.values[base] as number] : [])),
              aggregation,
              label,
            )
          }
        })
      }
      return body
    }

    test('TCP: total, dns, connection and data', async () => {
      const check = await createCheck('tcp', { name: 'db', request: { hostname: 'db.test', port: 5432 } })
      const points = await seedWeek(check, 1, (next) => {
        const phases = { dns: next() * 5, connection: 1 + next() * 20, data: next() * 50 }
        const total = phases.dns + phases.connection + phases.data
        return {
          values: { ...phases, total },
          responseTime: Math.round(total),
          detail: { tcpCheckResult: { hostname: 'db.test', port: 5432, timingPhases: { ...phases, total } } },
        }
      })
      const body = await assertWeek('tcp-checks', check.id, points, [
        'availability',
        'total_avg',
        'total_p95',
        'dns_max',
        'connection_p50',
        'data_sum',
        'connection_stddev',
      ])
      assert.equal(body.checkType, 'TCP')
      assert.deepEqual(body.metadata.connection_p50.unit, 'milliseconds')
      const defaults = await ok(`/v1/analytics/tcp-checks/${check.id}`)
      assert.deepEqual(Object.keys(defaults.metadata), [
        'availability',
        'total_avg',
        'total_p50',
        'total_p95',
        'total_p99',
      ])
    })

    test('DNS: total', async () => {
      const check = await createCheck('dns', {
        name: 'dns',
        request: { query: 'shop.test', recordType: 'A' },
      })
      const points = await seedWeek(check, 2, (next) => {
        const total = Math.round(next() * 8000) / 100
        return {
          values: { total },
          responseTime: Math.round(total),
          detail: {
            dnsCheckResult: { query: 'shop.test', responseCode: 'NOERROR', timingPhases: { total } },
          },
        }
      })
      await assertWeek('dns', check.id, points, ['availability', 'total_avg', 'total_min', 'total_p99'])
    })

    test('ICMP: packet loss and latencies', async () => {
      const check = await createCheck('icmp', { name: 'ping', request: { hostname: 'gw.test' } })
      const points = await seedWeek(check, 3, (next) => {
        const avg = 5 + next() * 30
        const latency = { min: avg * 0.8, avg, max: avg * 1.5, stdDev: avg * 0.1 }
        const packetLoss = next() < 0.7 ? 0 : Math.round(next() * 100)
        return {
          values: {
            packetLoss,
            latencyMin: latency.min,
            latencyAvg: latency.avg,
            latencyMax: latency.max,
            latencyStdDev: latency.stdDev,
          },
          responseTime: Math.round(avg),
          detail: {
            icmpCheckResult: {
              hostname: 'gw.test',
              summary: { transmitted: 10, received: 10, packetLoss, latency },
            },
          },
        }
      })
      const body = await assertWeek('icmp', check.id, points, [
        'availability',
        'packetLoss_avg',
        'packetLoss_p90',
        'latencyAvg_p50',
        'latencyMin_min',
        'latencyMax_max',
        'latencyStdDev_avg',
      ])
      assert.equal(body.metadata.packetLoss_avg.unit, 'percentage')
    })

    test('multi-step and Playwright suites: response time; only runLocation grouping', async () => {
      for (const [path, segment, body] of [
        ['multistep', 'multistep-checks', { name: 'steps', script: SCRIPT }],
        [
          'automation',
          'playwright-checks',
          {
            name: 'suite',
            dependencies: [
              { path: 'playwright.config.ts', content: 'export default {}' },
              { path: 'tests/a.spec.ts', content: SCRIPT },
            ],
          },
        ],
      ] as const) {
        const check = await createCheck(path, body)
        const key = path === 'multistep' ? 'multiStepCheckResult' : 'playwrightCheckResult'
        const points = await seedWeek(check, 4, (next) => ({
          values: {},
          responseTime: Math.round(1000 + next() * 5000),
          detail: { [key]: { tests: [], errors: [], logs: [], network: [], pages: [] } },
        }))
        await assertWeek(segment, check.id, points, ['availability', 'responseTime_avg', 'responseTime_p95'])
        const grouped = await t.call({
          method: 'GET',
          url: `/v1/analytics/${segment}/${check.id}?groupBy=pageIndex`,
          as: await t.addUser('READ_ONLY'),
        })
        assert.equal(grouped.statusCode, 400)
      }
    })

    test('browser: web vitals and error counts per page and per run', async () => {
      const check = await createCheck('browser', { name: 'shop', script: SCRIPT })
      const next = random(5)
      interface PageModel {
        vitals: Record<string, number>
        console: number
        document: number
        network: number
      }
      const runs: {
        atMs: number
        location: string
        responseTime: number
        scriptErrors: number
        pages: PageModel[]
      }[] = []
      for (let at = Date.parse('2026-07-19T00:20:00Z'); at < nowMs; at += 90 * 60_000) {
        const pageCount = next() < 0.5 ? 1 : 2
        const pages: PageModel[] = Array.from({ length: pageCount }, () => ({
          vitals: {
            TTFB: 50 + next() * 200,
            FCP: 300 + next() * 900,
            LCP: 800 + next() * 3000,
            CLS: Math.round(next() * 300) / 1000,
            TBT: next() * 400,
          },
          console: Math.floor(next() * 3),
          document: Math.floor(next() * 2),
          network: Math.floor(next() * 3),
        }))
        const run = {
          atMs: at,
          location: 'local',
          responseTime: Math.round(2000 + next() * 4000),
          scriptErrors: next() < 0.2 ? 1 : 0,
          pages,
        }
        runs.push(run)
        await storeSeedResult(t.ctx, check, {
          atMs: at,
          location: 'local',
          failed: run.scriptErrors > 0,
          responseTime: run.responseTime,
          errorType: run.scriptErrors > 0 ? 'SCRIPT' : null,
          errorMessage: run.scriptErrors > 0 ? 'Error: element #buy not found' : null,
          detail: {
            browserCheckResult: {
              errors: Array.from({ length: run.scriptErrors }, () => ({ message: 'Error', stack: null })),
              logs: [
                { level: 'info', text: 'hello', pageIndex: null },
                { level: 'error', text: 'script stderr', pageIndex: null },
                ...pages.flatMap((page, pageIndex) => [
                  ...Array.from({ length: page.console }, () => ({
                    level: 'error',
                    text: 'Failed',
                    pageIndex,
                  })),
                  ...Array.from({ length: page.document }, () => ({
                    level: 'error',
                    text: 'Uncaught TypeError: x is undefined',
                    pageIndex,
                  })),
                  { level: 'warning', text: 'deprecated', pageIndex },
                ]),
              ],
              network: pages.flatMap((page, pageIndex) => [
                { pageIndex, url: 'https://shop.test/', status: 200, failure: null },
                ...Array.from({ length: page.network }, (_, i) => ({
                  pageIndex,
                  url: 'https://shop.test/missing',
                  status: i === 0 ? 404 : null,
                  failure: i === 0 ? null : 'net::ERR_CONNECTION_REFUSED',
                })),
              ]),
              pages: pages.map((page, pageIndex) => ({
                pageIndex,
                url: 'https://shop.test/',
                webVitals: Object.fromEntries(
                  Object.entries(page.vitals).map(([name, value]) => [name, { value, score: 'GOOD' }]),
                ),
              })),
            },
          },
        })
      }
      const from = Date.parse('2026-07-19T00:00:00Z')
      const metrics = [
        'availability',
        'responseTime_avg',
        'LCP_avg',
        'LCP_p95',
        'CLS_max',
        'TTFB_min',
        'FCP_median',
        'TBT_sum',
        'consoleErrors_sum',
        'documentErrors_sum',
        'networkErrors_sum',
        'userScriptErrors_sum',
      ]
      const window = `from=${from / 1000}&to=${nowMs / 1000}&aggregationInterval=1440&metrics=${metrics.join(',')}`
      const day = (row: { timestamp: string }) =>
        runs.filter(
          (r) =>
            r.atMs >= Date.parse(row.timestamp) && r.atMs < Math.min(Date.parse(row.timestamp) + DAY, nowMs),
        )
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)

      // Per run: the vitals of all its pages, error counts summed over its pages.
      const whole = await ok(`/v1/analytics/browser-checks/${check.id}?${window}`)
      assert.equal(whole.series[0].data.length, 2)
      for (const row of whole.series[0].data) {
        const inDay = day(row)
        const pages = inDay.flatMap((r) => r.pages)
        assertClose(
          row.LCP_avg,
          pages.map((p) => p.vitals.LCP as number),
          'avg',
          `${row.timestamp} LCP_avg`,
        )
        assertClose(
          row.LCP_p95,
          pages.map((p) => p.vitals.LCP as number),
          'p95',
          `${row.timestamp} LCP_p95`,
        )
        assertClose(
          row.CLS_max,
          pages.map((p) => p.vitals.CLS as number),
          'max',
          'CLS_max',
        )
        assertClose(
          row.TTFB_min,
          pages.map((p) => p.vitals.TTFB as number),
          'min',
          'TTFB_min',
        )
        assertClose(
          row.FCP_median,
          pages.map((p) => p.vitals.FCP as number),
          'median',
          'FCP_median',
        )
        assertClose(
          row.TBT_sum,
          pages.map((p) => p.vitals.TBT as number),
          'sum',
          'TBT_sum',
        )
        assertClose(
          row.responseTime_avg,
          inDay.map((r) => r.responseTime),
          'avg',
          'responseTime_avg',
        )
        assert.equal(row.consoleErrors_sum, sum(pages.map((p) => p.console)))
        assert.equal(row.documentErrors_sum, sum(pages.map((p) => p.document)))
        assert.equal(row.networkErrors_sum, sum(pages.map((p) => p.network)))
        assert.equal(row.userScriptErrors_sum, sum(inDay.map((r) => r.scriptErrors)))
        assert.ok(
          Math.abs(
            row.availability - (100 * inDay.filter((r) => r.scriptErrors === 0).length) / inDay.length,
          ) < 0.001,
        )
      }

      // Per page: each page's own vitals and errors; the run's response time and script errors.
      const byPage = await ok(`/v1/analytics/browser-checks/${check.id}?${window}&groupBy=pageIndex`)
      assert.deepEqual(
        byPage.series.map((s: { pageIndex: number }) => s.pageIndex),
        [0, 1],
      )
      for (const series of byPage.series) {
        for (const row of series.data) {
          const inDay = day(row).filter((r) => r.pages.length > series.pageIndex)
          const pages = inDay.map((r) => r.pages[series.pageIndex] as PageModel)
          assertClose(
            row.LCP_avg,
            pages.map((p) => p.vitals.LCP as number),
            'avg',
            `page ${series.pageIndex} LCP`,
          )
          assert.equal(row.consoleErrors_sum, sum(pages.map((p) => p.console)))
          assert.equal(row.documentErrors_sum, sum(pages.map((p) => p.document)))
          assert.equal(row.networkErrors_sum, sum(pages.map((p) => p.network)))
          assert.equal(row.userScriptErrors_sum, sum(inDay.map((r) => r.scriptErrors)))
          assertClose(
            row.responseTime_avg,
            inDay.map((r) => r.responseTime),
            'avg',
            'page responseTime',
          )
        }
      }

      // Raw points per page.
      const raw = await ok(
        `/v1/analytics/browser-checks/${check.id}?from=${from / 1000}&to=${nowMs / 1000}&metrics=LCP,consoleErrors&groupBy=pageIndex&limit=3`,
      )
      const firstRuns = runs.slice(0, 3)
      assert.deepEqual(
        raw.series.find((s: { pageIndex: number }) => s.pageIndex === 0).data,
        firstRuns.map((r) => ({
          timestamp: iso(r.atMs),
          LCP: r.pages[0]?.vitals.LCP,
          consoleErrors: r.pages[0]?.console,
        })),
      )
    })

    test('heartbeats: availability and retries; filterByStatus by how each ping came', async () => {
      const check = await createCheck('heartbeat', {
        name: 'nightly',
        activated: true,
        heartbeat: { period: 1, periodUnit: 'hours', grace: 30, graceUnit: 'minutes' },
      })
      const row = await findCheckById(t.ctx, check.id)
      const path = `/ping/${row?.heartbeat_token}`
      const at = (iso: string) => {
        nowMs = Date.parse(iso)
      }
      const ping = async (suffix = '') => {
        const res = await t.app.inject({ method: 'GET', url: `${path}${suffix}` })
        assert.equal(res.statusCode, 200)
      }
      // One event per hour bucket: RECEIVED, EARLY, GRACE, FAILING (/fail), missed (FAILING), LATE, RECEIVED.
      at('2026-07-21T00:05:00Z')
      await ping() // first: RECEIVED
      at('2026-07-21T01:00:00Z')
      await ping() // 55 min after: RECEIVED
      at('2026-07-21T01:10:00Z')
      await ping() // 10 min after: EARLY
      at('2026-07-21T02:25:00Z')
      await ping() // 75 min after: GRACE
      at('2026-07-21T03:20:00Z')
      await ping('/fail') // FAILING
      at('2026-07-21T05:00:00Z')
      await storeHeartbeatResult(t.ctx, (await findCheckById(t.ctx, check.id))!, {
        jobId: `missed:${check.id}:1`,
        kind: 'MISSED',
        message: 'No ping within period and grace',
      })
      at('2026-07-21T06:15:00Z')
      await ping() // after a missed deadline: LATE
      at('2026-07-21T07:00:00Z')
      const window = `from=${Date.parse('2026-07-21T00:00:00Z') / 1000}&to=${nowMs / 1000}&aggregationInterval=60`
      const all = await ok(`/v1/analytics/heartbeat-checks/${check.id}?${window}`)
      assert.deepEqual(Object.keys(all.metadata), ['availability', 'retries'])
      assert.deepEqual(
        all.series[0].data.map((r: { availability: number | null }) => r.availability),
        [100, 100, 100, 0, null, 0, 100],
      )
      const hoursWith = async (status: string) =>
        (
          await ok(`/v1/analytics/heartbeat-checks/${check.id}?${window}&filterByStatus=${status}`)
        ).series[0].data
          .map((r: { availability: number | null }, hour: number) => (r.availability === null ? null : hour))
          .filter((hour: number | null) => hour !== null)
      assert.deepEqual(await hoursWith('RECEIVED'), [0, 1])
      assert.deepEqual(await hoursWith('EARLY'), [1])
      assert.deepEqual(await hoursWith('GRACE'), [2])
      assert.deepEqual(await hoursWith('FAILING'), [3, 5])
      assert.deepEqual(await hoursWith('LATE'), [6])
      // Minute buckets of a heartbeat come from its minute rows (a ping's status depends on the one before).
      const minutes = `from=${Date.parse('2026-07-21T01:00:00Z') / 1000}&to=${Date.parse('2026-07-21T01:15:00Z') / 1000}&aggregationInterval=5`
      const early = await ok(`/v1/analytics/heartbeat-checks/${check.id}?${minutes}&filterByStatus=EARLY`)
      assert.deepEqual(
        early.series[0].data.map((r: { availability: number | null }) => r.availability),
        [null, null, 100],
      )
      const bad = await t.call({
        method: 'GET',
        url: `/v1/analytics/heartbeat-checks/${check.id}?metrics=responseTime_avg`,
        as: await t.addUser('READ_ONLY'),
      })
      assert.equal(bad.statusCode, 400)
      const wrongFilter = await t.call({
        method: 'GET',
        url: `/v1/analytics/heartbeat-checks/${check.id}?filterByStatus=success`,
        as: await t.addUser('READ_ONLY'),
      })
      assert.equal(wrongFilter.statusCode, 400)
    })
  })
}
