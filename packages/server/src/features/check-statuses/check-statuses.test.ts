import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`check statuses on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-22T12:00:00.000Z')
    const target = createServer((request, response) => {
      response.statusCode = request.url === '/down' ? 500 : 200
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

    const runAt = async (checkId: string, atMs: number) => {
      nowMs = atMs
      return json(await t.call({ method: 'POST', url: `/v1/checks/${checkId}/trigger` }))
    }

    test('status follows the latest result; since is when the current streak began', async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 's', request: { url: `${base}/` } },
        }),
      )
      const status = async () => json(await t.call({ method: 'GET', url: `/v1/check-statuses/${check.id}` }))
      assert.deepEqual(
        {
          status: (await status()).status,
          since: (await status()).since,
          lastRunAt: (await status()).lastRunAt,
        },
        { status: null, since: null, lastRunAt: null },
      )

      const t0 = Date.parse('2026-11-22T12:01:00.000Z')
      await runAt(check.id, t0)
      await runAt(check.id, t0 + 60_000)
      assert.equal((await status()).status, 'passing')
      assert.equal((await status()).since, new Date(t0).toISOString())

      await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { request: { url: `${base}/down` } },
      })
      const failedRun = await runAt(check.id, t0 + 120_000)
      await runAt(check.id, t0 + 180_000)
      const failing = await status()
      assert.equal(failing.status, 'failing')
      assert.equal(failing.hasFailures, true)
      assert.equal(failing.since, failedRun.startedAt)
      assert.equal(failing.lastRunAt, new Date(t0 + 180_000).toISOString())
      assert.equal(failing.lastRunLocation, 'local')

      const list = json(await t.call({ method: 'GET', url: '/v1/check-statuses' }))
      assert.equal(list.find((s: { checkId: string }) => s.checkId === check.id).status, 'failing')
      assert.equal(
        (await t.call({ method: 'GET', url: '/v1/check-statuses/00000000-0000-4000-8000-000000000000' }))
          .statusCode,
        404,
      )
    })
  })
}
