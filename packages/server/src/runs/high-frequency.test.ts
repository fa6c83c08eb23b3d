import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { storeResult } from '../features/alerting/testing.ts'
import { exactAggregates, storeSeedResult } from '../features/analytics/testing.ts'
import { CHECK_BODIES } from '../testing/resource-maker.ts'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { unreachableWebhookChannel } from '../testing/webhook-channel.ts'
import { nextRetry } from './retry-policy.ts'
import { createScheduler } from './scheduler.ts'
import { listSchedule } from './schedules.repo.ts'

const SECOND = 1000
const MINUTE = 60_000
const EVERY_10S = { frequency: 0, frequencyOffset: 10 }

test('a retry whose backoff reaches the next run is left to that run', () => {
  const run = {
    verdict: { hasFailures: true, error: null },
    attempt: 1,
    elapsedMs: 0,
    location: 'local',
    locations: ['local'],
  }
  const fixed = (seconds: number) => ({ type: 'FIXED' as const, baseBackoffSeconds: seconds, maxRetries: 2 })
  assert.equal(nextRetry(fixed(30), { ...run, periodMs: 10 * SECOND }), null)
  assert.equal(nextRetry(fixed(10), { ...run, periodMs: 10 * SECOND }), null)
  assert.deepEqual(nextRetry(fixed(5), { ...run, periodMs: 10 * SECOND }), {
    delayMs: 5000,
    location: 'local',
  })
  assert.deepEqual(nextRetry(fixed(0), { ...run, periodMs: 10 * SECOND }), { delayMs: 0, location: 'local' })
  assert.deepEqual(nextRetry(fixed(30), { ...run, periodMs: MINUTE }), { delayMs: 30_000, location: 'local' })
})

for (const engine of testEngines()) {
  describe(`high-frequency checks on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-29T09:00:00.000Z')
    const target = createServer((request, response) => {
      response.statusCode = request.url === '/down' ? 503 : 200
      response.end('ok')
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

    const create = (path: string, payload: object) =>
      t.call({ method: 'POST', url: `/v1/checks/${path}`, payload })
    const dueTimes = async (checkId: string) =>
      (await listSchedule(t.ctx, checkId)).map((row) => Number(row.next_due_ms)).sort((a, b) => a - b)

    test('frequency 0 takes an offset of 10, 20 or 30 s on uptime types; other combinations are 400s', async () => {
      for (const type of ['api', 'url', 'tcp', 'dns', 'icmp', 'ssl'] as const) {
        const created = await create(type, { ...CHECK_BODIES[type], frequency: 0, frequencyOffset: 20 })
        assert.equal(created.statusCode, 201, `${type}: ${created.body}`)
        const body = json(created)
        assert.deepEqual([body.frequency, body.frequencyOffset], [0, 20], type)
        const read = json(await t.call({ method: 'GET', url: `/v1/checks/${body.id}` }))
        assert.deepEqual([read.frequency, read.frequencyOffset], [0, 20], type)
      }
      const refused: [string, object, RegExp][] = [
        ['url', { ...CHECK_BODIES.url, frequency: 0 }, /body\.frequencyOffset.*required with frequency 0/],
        [
          'api',
          { ...CHECK_BODIES.api, frequency: 0, frequencyOffset: 15 },
          /body\.frequencyOffset.*10, 20, 30/,
        ],
        ['tcp', { ...CHECK_BODIES.tcp, frequency: 0, frequencyOffset: 60 }, /body\.frequencyOffset/],
        ['dns', { ...CHECK_BODIES.dns, frequency: 10, frequencyOffset: 0 }, /body\.frequencyOffset/],
        ['browser', { ...CHECK_BODIES.browser, frequency: 0 }, /body\.frequency/],
        ['browser', { ...CHECK_BODIES.browser, frequencyOffset: 10 }, /frequencyOffset/],
        ['multistep', { ...CHECK_BODIES.multistep, frequency: 0 }, /body\.frequency/],
        ['heartbeat', { ...CHECK_BODIES.heartbeat, frequency: 0 }, /body\.frequency/],
      ]
      for (const [type, payload, message] of refused) {
        const res = await create(type, payload)
        assert.equal(res.statusCode, 400, `${type} ${JSON.stringify(payload)}: ${res.body}`)
        assert.match(json(res).message, message)
      }
      // A group has no sub-minute frequency (the hosted group schema has none either).
      const group = await t.call({
        method: 'POST',
        url: '/v1/check-groups',
        payload: { name: 'g', frequency: 0 },
      })
      assert.equal(group.statusCode, 400, group.body)

      // An offset with a minute frequency is kept and answered; updates are judged as a whole.
      const minute = json(await create('url', { ...CHECK_BODIES.url, frequency: 5, frequencyOffset: 7 }))
      assert.deepEqual([minute.frequency, minute.frequencyOffset], [5, 7])
      const merged = await t.call({
        method: 'PUT',
        url: `/v1/checks/${minute.id}`,
        payload: { frequency: 0 },
      })
      assert.equal(merged.statusCode, 400, merged.body)
      assert.match(json(merged).message, /body\.frequencyOffset/)
      const faster = await t.call({
        method: 'PUT',
        url: `/v1/checks/${minute.id}`,
        payload: { frequency: 0, frequencyOffset: 30 },
      })
      assert.equal(faster.statusCode, 200, faster.body)
      assert.deepEqual([json(faster).frequency, json(faster).frequencyOffset], [0, 30])
    })

    test('a 10 s check runs 6 times in a minute of fake time, in one location or in turn over two', async () => {
      const node = createScheduler(t.ctx, { locations: ['local', 'eu-west-1'], concurrency: 2 })
      for (const locations of [['local'], ['local', 'eu-west-1']]) {
        const check = json(
          await create('url', {
            name: `every 10 s in ${locations.length}`,
            ...EVERY_10S,
            locations,
            doubleCheck: false,
            request: { url: `${base}/` },
          }),
        )
        const createdAt = nowMs
        const [first] = await dueTimes(check.id)
        assert.ok(
          first !== undefined && first > createdAt && first <= createdAt + 10 * SECOND,
          'within a period',
        )
        const ranAt: number[] = []
        nowMs = first
        while (nowMs < first + MINUTE) {
          const ran = await node.runDue()
          for (let i = 0; i < ran; i++) ranAt.push(nowMs)
          assert.equal(await node.runDue(), 0, 'a slot runs once')
          const [next] = await dueTimes(check.id)
          assert.ok(next !== undefined)
          nowMs = next
        }
        assert.deepEqual(
          ranAt.map((at) => at - first),
          [0, 10, 20, 30, 40, 50].map((s) => s * SECOND),
        )
        const results = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}?limit=100` }))
        assert.equal(results.length, 6)
        const places = results.map((r: { runLocation: string }) => r.runLocation)
        assert.deepEqual(
          [...new Set(places)].sort(),
          [...locations].sort(),
          'round-robin: every location takes its turn',
        )
        await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
      }
    })

    test('a parallel run at 10 s is one run across locations: the alert opens after the configured failed runs', async () => {
      const channelId = await unreachableWebhookChannel(t)
      const created = await create('api?autoAssignAlerts=false', {
        name: 'parallel every 10 s',
        activated: false,
        ...EVERY_10S,
        runParallel: true,
        locations: ['local', 'eu-west-1'],
        request: { url: `${base}/down` },
        useGlobalAlertSettings: false,
        alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } },
        alertChannelSubscriptions: [{ alertChannelId: channelId, activated: true }],
      })
      assert.equal(created.statusCode, 201, created.body)
      const check = { id: json(created).id as string, accountId: t.owner.accountId }
      const alerts = async () =>
        json(await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` })).map(
          (n: { alertType: string }) => n.alertType,
        )
      // Run 1: both locations fail, a second apart.
      await storeResult(t.ctx, check, { status: 'failing', location: 'local' })
      nowMs += SECOND
      await storeResult(t.ctx, check, { status: 'failing', location: 'eu-west-1' })
      assert.deepEqual(await alerts(), [], 'one failed run of two needed')
      // Run 2, a period later.
      nowMs += 9 * SECOND
      await storeResult(t.ctx, check, { status: 'failing', location: 'local' })
      assert.deepEqual(await alerts(), ['ALERT_FAILURE'])
      nowMs += SECOND
      await storeResult(t.ctx, check, { status: 'failing', location: 'eu-west-1' })
      nowMs += 9 * SECOND
      await storeResult(t.ctx, check, { status: 'passing', location: 'local' })
      await storeResult(t.ctx, check, { status: 'passing', location: 'eu-west-1' })
      assert.deepEqual((await alerts()).sort(), ['ALERT_FAILURE', 'ALERT_RECOVERY'])
    })

    test('analytics of a 10 s check: each minute bucket aggregates its six results', async () => {
      const created = json(
        await create('url', {
          name: 'analytics every 10 s',
          activated: false,
          ...EVERY_10S,
          request: { url: `${base}/` },
        }),
      )
      const check = { id: created.id as string, accountId: t.owner.accountId, checkType: 'URL' }
      const start = Date.parse('2026-11-29T08:00:00.000Z')
      const minutes = [
        [120, 95, 300, 101, 88, 140],
        [400, 80, 90, 85, 2000, 92],
      ]
      const failed = (minute: number, i: number) => minute === 1 && (i === 1 || i === 4)
      for (const [minute, times] of minutes.entries()) {
        for (const [i, responseTime] of times.entries()) {
          await storeSeedResult(t.ctx, check, {
            atMs: start + minute * MINUTE + i * 10 * SECOND,
            location: 'local',
            failed: failed(minute, i),
            responseTime,
            detail: { urlCheckResult: null },
          })
        }
      }
      const metrics = [
        'availability',
        'responseTime_avg',
        'responseTime_max',
        'responseTime_p50',
        'responseTime_p95',
      ]
      const res = await t.call({
        method: 'GET',
        url: `/v1/analytics/url-monitors/${check.id}?from=${start / 1000}&to=${(start + 2 * MINUTE) / 1000}&aggregationInterval=1&metrics=${metrics.join(',')}`,
      })
      assert.equal(res.statusCode, 200, res.body)
      const body = json(res)
      assert.equal(body.frequency, 0)
      const rows = body.series[0].data as Record<string, number>[]
      assert.equal(rows.length, 2)
      for (const [minute, times] of minutes.entries()) {
        const row = rows[minute] as Record<string, number>
        const exact = exactAggregates(times)
        const passed = times.filter((_, i) => !failed(minute, i)).length
        // Answers are rounded to 3 decimals.
        assert.ok(
          Math.abs((row.availability as number) - (100 * passed) / 6) <= 0.0011,
          `minute ${minute} availability`,
        )
        assert.ok(Math.abs((row.responseTime_avg as number) - exact.avg) <= 0.0011, `minute ${minute} avg`)
        assert.equal(row.responseTime_max, exact.max)
        for (const p of ['p50', 'p95'] as const) {
          const got = row[`responseTime_${p}`] as number
          assert.ok(
            Math.abs(got - exact[p]) <= exact[p] * 0.01 + 0.001,
            `minute ${minute} ${p}: ${got} vs ${exact[p]}`,
          )
        }
      }
    })
  })
}
