import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { storeSeedResult } from '../analytics/testing.ts'
import { detailOfCompactBytes } from './compact-detail-bytes.ts'
import { storedIdOf } from './result-rows.ts'

const T0 = Date.parse('2026-03-02T10:00:00.000Z')
const MINUTE = 60_000

/** A URL check's detail as the runner reports it; `date` and the timings change every run. */
function urlDetail(atMs: number, tcp: number, body = 'ok', status = 200) {
  return {
    urlCheckResult: {
      request: {
        method: 'GET',
        url: 'http://127.0.0.1:1/health',
        headers: { 'user-agent': 'svc-monitor/0.1' },
      },
      response: {
        status,
        statusText: status === 200 ? 'OK' : 'Internal Server Error',
        headers: { 'content-type': 'text/plain', date: new Date(atMs).toUTCString() },
        body,
      },
      timingPhases: { wait: 0, dns: 0, tcp, tls: 0, firstByte: 20.42, download: 1.19, total: tcp + 21.61 },
      assertions: [],
      tls: null,
    },
  }
}

for (const engine of testEngines()) {
  describe(`a passing result's stored detail on ${engine.engine}`, () => {
    let t: TestApp
    let check = { id: '', accountId: '', checkType: 'URL' }
    const ids: string[] = []
    before(async () => {
      t = await createTestApp(engine)
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/url',
        payload: { name: 'site', activated: false, request: { url: 'http://127.0.0.1:1/health' } },
      })
      check = { id: json(created).id, accountId: t.owner.accountId, checkType: 'URL' }
      const runs = [
        { tcp: 24.52, failed: false },
        { tcp: 25.5, failed: false },
        { tcp: 26.25, failed: false },
        { tcp: 30, failed: false, body: 'changed' },
        { tcp: 31, failed: true, status: 500 },
        { tcp: 32, failed: false, body: 'changed' },
      ]
      for (const [i, run] of runs.entries()) {
        const atMs = T0 + i * MINUTE
        ids.push(
          await storeSeedResult(t.ctx, check, {
            atMs,
            location: 'local',
            failed: run.failed,
            responseTime: run.tcp + 21.61,
            statusCode: run.status ?? 200,
            detail: urlDetail(atMs, run.tcp, run.body, run.status),
          }),
        )
      }
      // An hour after the last kept in full: kept in full again, though unchanged.
      const laterMs = T0 + 70 * MINUTE
      ids.push(
        await storeSeedResult(t.ctx, check, {
          atMs: laterMs,
          location: 'local',
          failed: false,
          responseTime: 53,
          statusCode: 200,
          detail: urlDetail(laterMs, 31.39, 'changed'),
        }),
      )
    })
    after(() => t.close())

    const stored = async (id: string) =>
      (
        await t.store.db
          .selectFrom('check_results')
          .select('detail')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).detail
    const read = async (id: string) =>
      json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}/${id}` }))

    test('the first passing result and every change keep the full detail; repeats keep their timings only', async () => {
      const omitted = []
      for (const id of ids) omitted.push((await read(id)).detailOmitted === true)
      // Kept: the first, the changed body, the failure, the first passing after the failure... unchanged
      // since the last kept (the changed body), so its timings only; the hourly sample in full.
      assert.deepEqual(omitted, [false, true, true, false, false, true, false])
    })

    test("a repeat's stored detail is its seven timings, its certificate and the hash of the rest: 51 bytes (21 on SQLite)", async () => {
      let compact = (await stored(ids[1] as string)) as string | Uint8Array
      if (engine.engine === 'sqlite') {
        // Bytes: a format byte, the timings' hundredths as varints (11 bytes) and the hash's 9 bytes.
        assert.ok(compact instanceof Uint8Array)
        assert.equal(compact.length, 21)
        compact = detailOfCompactBytes(compact)
      }
      assert.ok(typeof compact === 'string')
      assert.match(compact, /^\[\[0,0,25\.5,0,20\.42,1\.19,47\.11\],null,"[\w-]{12}"\]$/)
      assert.equal(compact.length, 51)
      assert.ok((await stored(ids[0] as string)).length > 300)
    })

    test('a repeat reads back with its own timings, and the failure with its whole response', async () => {
      const repeat = await read(ids[2] as string)
      // The request, response and assertions of the first (kept in full), without its date header.
      const first = urlDetail(T0, 24.52).urlCheckResult
      assert.deepEqual(repeat.urlCheckResult, {
        ...first,
        response: { ...first.response, headers: { 'content-type': 'text/plain' } },
        timingPhases: { wait: 0, dns: 0, tcp: 26.25, tls: 0, firstByte: 20.42, download: 1.19, total: 47.86 },
      })
      assert.equal(repeat.detailCopiedFrom, ids[0])
      assert.equal(repeat.responseTime, 47.86)
      assert.equal(repeat.hasFailures, false)
      const failure = await read(ids[4] as string)
      assert.deepEqual(failure.urlCheckResult, urlDetail(T0 + 4 * MINUTE, 31, 'ok', 500).urlCheckResult)
      const list = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}?limit=100` }))
      assert.deepEqual(
        list.map((r: { detailOmitted?: boolean }) => r.detailOmitted === true),
        [false, true, false, false, true, true, false],
      )
    })

    test('analytics answer with the timings of repeats: aggregates and raw points', async () => {
      const tcps = [24.52, 25.5, 26.25, 30, 31, 32, 31.39]
      const window = `from=${T0 / 1000}&to=${(T0 + 80 * MINUTE) / 1000}`
      const raw = await t.call({
        method: 'GET',
        url: `/v1/analytics/url-monitors/${check.id}?${window}&metrics=tcp&limit=100`,
      })
      assert.equal(raw.statusCode, 200, raw.body)
      assert.deepEqual(
        json(raw).series[0].data.map((p: { tcp: number }) => p.tcp),
        tcps,
      )
      const aggregate = await t.call({
        method: 'GET',
        url: `/v1/analytics/url-monitors/${check.id}?${window}&metrics=tcp_max,tcp_min`,
      })
      assert.equal(aggregate.statusCode, 200, aggregate.body)
      assert.deepEqual(
        json(aggregate).series[0].data.map((p: { tcp_max: number; tcp_min: number }) => [
          p.tcp_max,
          p.tcp_min,
        ]),
        [[32, 24.52]],
      )
    })

    test('a repeat whose kept result is gone reads back with its timings only', async () => {
      await t.store.db
        .deleteFrom('results')
        .where('id', '=', storedIdOf(t.store.engine, ids[0] as string))
        .execute()
      const repeat = await read(ids[1] as string)
      assert.equal(repeat.detailOmitted, true)
      assert.equal(repeat.detailCopiedFrom, undefined)
      assert.deepEqual(repeat.urlCheckResult, {
        timingPhases: { wait: 0, dns: 0, tcp: 25.5, tls: 0, firstByte: 20.42, download: 1.19, total: 47.11 },
        tls: null,
      })
    })
  })
}
