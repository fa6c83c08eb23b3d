import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import {
  browserTestsSkipReason,
  ffmpegSkipReason,
  listenOnLoopback,
  selfSignedCertificate,
} from '@svc/runner/testing'
import { holdingServer } from '../testing/holding-page.ts'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../testing/test-app.ts'
import { createScheduler } from './scheduler.ts'
import { listSchedule } from './schedules.repo.ts'

const skip = browserTestsSkipReason()
const noFfmpeg = ffmpegSkipReason()

const PASSING = `
const { test, expect } = require('@playwright/test')
test('home page', async ({ page }) => {
  console.log('token is ' + process.env.API_TOKEN + ' in ' + process.env.SVC_RUN_LOCATION)
  await page.goto(process.env.SITE_URL)
  await expect(page.locator('h1')).toHaveText('Hello')
})`

const FAILING = `
import { test, expect } from '@playwright/test'
test('wrong heading', async ({ page }) => {
  await page.goto(process.env.SITE_URL)
  await expect(page.locator('h1')).toHaveText('Goodbye', { timeout: 500 })
})`

for (const engine of testEngines()) {
  describe(`browser checks through the API and the scheduler on ${engine.engine}`, { skip }, () => {
    let t: TestApp
    let site = ''
    const server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html')
      response.end('<!doctype html><html><head><title>t</title></head><body><h1>Hello</h1></body></html>')
    })
    before(async () => {
      site = `${(await listenOnLoopback(server)).url}/`
      t = await createTestApp(engine)
      await t.call({ method: 'POST', url: '/v1/variables', payload: { key: 'SITE_URL', value: site } })
      await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'API_TOKEN', value: 'tok-7c1e-secret', secret: true },
      })
    })
    after(async () => {
      server.closeAllConnections()
      server.close()
      await t.close()
    })
    const createBrowserCheck = async (name: string, script: string) => {
      const response = await t.call({
        method: 'POST',
        url: '/v1/checks/browser',
        payload: { name, script, doubleCheck: false, locations: ['eu-west-1'] },
      })
      assert.equal(response.statusCode, 201, response.body)
      return json(response)
    }
    const download = (url: string) => t.call({ method: 'GET', url: url.replace(t.ctx.publicUrl, '') })

    test('a triggered browser check runs in Chromium; its trace and logs come back, secrets scrubbed', async () => {
      const check = await createBrowserCheck('home', PASSING)
      const triggered = await t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      assert.equal(triggered.statusCode, 200, triggered.body)
      const result = json(triggered)
      assert.equal(result.hasFailures, false, JSON.stringify(result.browserCheckResult?.errors))
      assert.equal(result.checkType, 'BROWSER')
      const detail = result.browserCheckResult
      assert.equal(detail.tests[0].title, 'home page')
      assert.equal(detail.tests[0].status, 'passed')
      const log = detail.logs.map((entry: { text: string }) => entry.text).join('\n')
      assert.match(log, /token is \[REDACTED\] in eu-west-1/)
      assert.ok(!triggered.body.includes('tok-7c1e-secret'))
      assert.equal(detail.pages[0].url, site)
      // It ran in its account's own browser.
      assert.deepEqual(
        t.ctx.scripts.pool.browsers.map((browser) => browser.accountId),
        [t.owner.accountId],
      )
      assert.match(
        detail.traceUrl,
        /^http:\/\/svc\.test\/v1\/check-results\/[0-9a-f-]+\/[0-9a-f-]+\/artifacts\//,
      )
      const trace = await download(detail.traceUrl)
      assert.equal(trace.statusCode, 200)
      assert.equal(trace.headers['content-type'], 'application/zip')
      assert.equal(trace.rawPayload.subarray(0, 2).toString(), 'PK')
      assert.ok(!trace.rawPayload.includes('tok-7c1e-secret'), 'the trace is scrubbed too')

      const traversal = await t.call({
        method: 'GET',
        url: `/v1/check-results/${check.id}/${result.id}/artifacts/..%2F..%2Fsvc.db`,
      })
      assert.equal(traversal.statusCode, 404)
      const other = await ownerOfAnotherAccount(t)
      assert.equal(
        (await t.call({ method: 'GET', url: detail.traceUrl.replace(t.ctx.publicUrl, ''), as: other }))
          .statusCode,
        404,
      )

      const stored = async () =>
        (await t.ctx.scripts.artifacts.listResults()).filter((r) => r.checkId === check.id).length
      assert.equal(await stored(), 1)
      await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
      assert.equal(await stored(), 0, 'deleting the check deletes its artifacts')
    })

    test('a scheduled failing browser check stores the failure with its screenshot', async () => {
      const check = await createBrowserCheck('wrong heading', FAILING)
      const [slot] = await listSchedule(t.ctx, check.id)
      assert.equal(slot?.location, 'eu-west-1', 'browser checks are scheduled like any other')
      await t.store.db
        .updateTable('check_schedules')
        .set({ next_due_ms: 0 })
        .where('check_id', '=', check.id)
        .execute()
      await createScheduler(t.ctx, { locations: ['eu-west-1'], concurrency: 2 }).runDue()
      const [result] = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` }))
      assert.equal(result.hasFailures, true)
      assert.equal(result.error.type, 'ASSERTION')
      const shot = result.browserCheckResult.screenshots.find((s: { onFailure: boolean }) => s.onFailure)
      assert.ok(shot, 'a screenshot on failure')
      const image = await download(shot.url)
      assert.equal(image.statusCode, 200)
      assert.equal(image.headers['content-type'], 'image/png')

      // The hosted manifest lists the same files with their links, by type and name.
      const assetsUrl = `/v1/check-results/${check.id}/${result.id}/assets`
      const manifest = json(await t.call({ method: 'GET', url: `${assetsUrl}?type=screenshot` }))
      const listed = manifest.assets.find((a: { name: string }) => a.name === shot.path)
      assert.deepEqual(listed, {
        type: 'screenshot',
        name: shot.path,
        url: shot.url,
        contentType: 'image/png',
        size: shot.size ?? null,
        source: { type: 'check-result', checkId: check.id, checkType: 'BROWSER', resultId: result.id },
      })
      assert.equal(manifest.entriesTotal, manifest.assets.length)
      const none = json(await t.call({ method: 'GET', url: `${assetsUrl}?type=video&name=${shot.path}` }))
      assert.deepEqual(none, { assets: [], truncated: false, entriesReturned: 0, entriesTotal: 0 })
    })

    test("a browser check's video is linked from its result and downloads as video/webm", {
      skip: noFfmpeg,
    }, async () => {
      const check = await createBrowserCheck(
        'recorded',
        `const { test, expect } = require('@playwright/test')
test.use({ video: 'on' })
test('home page', async ({ page }) => {
  await page.goto(process.env.SITE_URL)
  await expect(page.locator('h1')).toHaveText('Hello')
})`,
      )
      const triggered = await t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      const result = json(triggered)
      assert.equal(result.hasFailures, false, JSON.stringify(result.browserCheckResult?.errors))
      const { videos, playwrightTestVideos } = result.browserCheckResult
      const base = `${t.ctx.publicUrl}/v1/check-results/${check.id}/${result.id}/artifacts/`
      assert.deepEqual(
        videos.map((video: { path: string; url: string }) => [video.path, video.url]),
        [['video-1.webm', `${base}video-1.webm`]],
      )
      assert.deepEqual(playwrightTestVideos, [`${base}video-1.webm`])
      // Listed the same way when read back.
      const read = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}/${result.id}` }))
      assert.deepEqual(read.browserCheckResult.videos, videos)

      const video = await download(videos[0].url)
      assert.equal(video.statusCode, 200)
      assert.equal(video.headers['content-type'], 'video/webm')
      assert.deepEqual([...video.rawPayload.subarray(0, 4)], [0x1a, 0x45, 0xdf, 0xa3])
      assert.equal(video.rawPayload.length, videos[0].size)

      // Only the result's own files: nothing outside it, nothing it doesn't have.
      for (const path of [
        '..%2Fvideo-1.webm',
        `..%2F${result.id}%2Fvideo-1.webm`,
        'video-1.webm%2F..%2F..%2F..%2Fsvc.db',
        '.%2Fvideo-1.webm',
        'video-1.webm%5C..',
        'video-2.webm',
      ]) {
        const refused = await t.call({
          method: 'GET',
          url: `/v1/check-results/${check.id}/${result.id}/artifacts/${path}`,
        })
        assert.equal(refused.statusCode, 404, path)
        assert.equal(json(refused).error, 'Not Found')
      }
    })

    test('a check deleted while its triggered run is in flight answers 404; the runner is free after', async () => {
      const { url: holdUrl, inFlight, release, close } = await holdingServer()
      try {
        const check = await createBrowserCheck(
          'deleted meanwhile',
          `const { test } = require('@playwright/test')
test('waits', async ({ page }) => {
  await page.goto(${JSON.stringify(holdUrl)})
})`,
        )
        const triggering = t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
        await inFlight
        assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })).statusCode, 204)
        release('<h1>late</h1>')
        const triggered = await triggering
        assert.equal(triggered.statusCode, 404, triggered.body)
        assert.deepEqual(json(triggered), {
          statusCode: 404,
          error: 'Not Found',
          message: `Check ${check.id} not found: it was deleted while it ran`,
        })
        assert.equal(t.ctx.scripts.pool.running, 0)
        const artifacts = (await t.ctx.scripts.artifacts.listResults()).filter((r) => r.checkId === check.id)
        assert.deepEqual(artifacts, [], 'the run leaves no artifacts behind')
        const next = await createBrowserCheck('after the deleted one', PASSING)
        const result = json(await t.call({ method: 'POST', url: `/v1/checks/${next.id}/trigger` }))
        assert.equal(result.hasFailures, false, JSON.stringify(result.browserCheckResult?.errors))
      } finally {
        close()
      }
    })

    test('a group trigger answers the results of its checks, leaving out one deleted while it ran', async () => {
      const { url: holdUrl, inFlight, release, close } = await holdingServer()
      try {
        const group = json(
          await t.call({ method: 'POST', url: '/v1/check-groups', payload: { name: 'journeys' } }),
        )
        const create = async (name: string, script: string, groupOrder: number) => {
          const response = await t.call({
            method: 'POST',
            url: '/v1/checks/browser',
            payload: { name, script, doubleCheck: false, groupId: group.id, groupOrder },
          })
          assert.equal(response.statusCode, 201, response.body)
          return json(response)
        }
        const doomed = await create(
          'deleted meanwhile',
          `const { test } = require('@playwright/test')
test('waits', async ({ page }) => {
  await page.goto(${JSON.stringify(holdUrl)})
})`,
          1,
        )
        const kept = await create('kept', PASSING, 2)
        const triggering = t.call({ method: 'POST', url: `/v1/check-groups/${group.id}/trigger` })
        await inFlight
        assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${doomed.id}` })).statusCode, 204)
        release('<h1>late</h1>')
        const triggered = await triggering
        assert.equal(triggered.statusCode, 200, triggered.body)
        assert.deepEqual(
          json(triggered).map((r: { checkId: string; hasFailures: boolean }) => [r.checkId, r.hasFailures]),
          [[kept.id, false]],
        )
      } finally {
        close()
      }
    })

    test("a browser check's sslCheckDomain is read on each run and raises ALERT_SSL near expiry", async (context) => {
      const certificate = selfSignedCertificate('shop.test', 5)
      const tlsServer = createHttpsServer(certificate, (_request, response) => response.end('ok'))
      const { port } = await listenOnLoopback(tlsServer, context)
      const domain = `127.0.0.1:${port}`
      const channel = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: {
          type: 'WEBHOOK',
          sslExpiry: true,
          sslExpiryThreshold: 30,
          config: { name: 'ssl', url: 'http://127.0.0.1:9/hook' },
        },
      })
      assert.equal(channel.statusCode, 201, channel.body)
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/browser',
          payload: { name: 'shop', script: PASSING, sslCheckDomain: domain, doubleCheck: false },
        }),
      )
      const result = json(await t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` }))
      assert.equal(result.browserCheckResult.tls.domain, domain)
      assert.equal(result.browserCheckResult.tls.subject, 'shop.test')
      assert.ok([4, 5].includes(result.browserCheckResult.tls.daysRemaining))
      const notifications = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${check.id}` }),
      )
      const ssl = notifications.find((n: any) => n.alertType === 'ALERT_SSL')
      assert.ok(ssl, JSON.stringify(notifications))
      assert.match(ssl.title, /^The SSL certificate of shop expires soon: [45] days left$/)
      const stored = await t.store.db
        .selectFrom('alert_notifications')
        .select('event')
        .where('id', '=', ssl.id)
        .executeTakeFirstOrThrow()
      assert.equal(JSON.parse(stored.event).variables.SSL_CHECK_DOMAIN, domain)
    })
  })
}
