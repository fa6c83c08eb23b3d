import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { Browser, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext, signInWithKey } from './harness.ts'
import { type Deployment, startDeployment, startTarget } from './server.ts'

/**
 * A test session's page, as a CLI's link opens it: the session's verdict and each run, and a failed run's
 * whole result a click away.
 */

for (const engine of testEngines()) {
  describe(`a test session's page in Chromium on ${engine.engine}`, () => {
    let deployment: Deployment
    let target: Awaited<ReturnType<typeof startTarget>>
    let browser: Browser
    let page: Page
    let sessionId: string

    before(async () => {
      ensureBuilt()
      deployment = await startDeployment(engine)
      target = await startTarget()
      const ok = [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }]
      const job = (name: string, url: string) => ({
        checkType: 'API',
        logicalId: name.toLowerCase().replaceAll(' ', '-'),
        name,
        request: { method: 'GET', url, assertions: ok },
      })
      const run = await deployment.call<{ testSessionId: string }>('POST', '/v1/test-sessions/run', {
        name: 'Pull request 42',
        runLocation: 'local',
        checkRunJobs: [job('Home API', target.url), job('Closed port API', 'http://127.0.0.1:9/')],
      })
      assert.equal(run.status, 201, JSON.stringify(run.body))
      sessionId = run.body.testSessionId
      const done = await deployment.call<{ status: string }>(
        'GET',
        `/v1/test-sessions/${sessionId}/completion?maxWaitSeconds=30`,
      )
      assert.equal(done.status, 200, JSON.stringify(done.body))
      // A later session, so the list's order (newest first) shows.
      const later = await deployment.call<{ testSessionId: string }>('POST', '/v1/test-sessions/run', {
        name: 'Nightly',
        runLocation: 'local',
        checkRunJobs: [job('Home API', target.url)],
      })
      assert.equal(later.status, 201, JSON.stringify(later.body))
      await deployment.call(
        'GET',
        `/v1/test-sessions/${later.body.testSessionId}/completion?maxWaitSeconds=30`,
      )
      browser = await launchChromium()
      page = await (await newContext(browser, deployment.url)).newPage()
      await signInWithKey(page, deployment.ownerKey)
    })

    after(async () => {
      await browser?.close()
      await target?.close()
      await deployment?.stop()
    })

    test('lists every session newest first with its counts, and opens one', async () => {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Test sessions' })
        .click()
      await page.getByRole('heading', { name: 'Test sessions', level: 1 }).waitFor()
      const rows = page.locator('table tbody tr')
      await rows.nth(1).waitFor()
      assert.deepEqual(await rows.locator('td:nth-child(1)').allTextContents(), [
        'Nightly',
        'Pull request 42',
      ])
      assert.deepEqual(await rows.locator('td:nth-child(2)').allTextContents(), ['Passed', 'Failed'])
      assert.deepEqual(await rows.locator('td:nth-child(3)').allTextContents(), [
        '1 passed',
        '1 passed, 1 failed',
      ])
      assert.deepEqual(await rows.locator('td:nth-child(6)').allTextContents(), [
        'Run (CLI or API)',
        'Run (CLI or API)',
      ])
      assert.match(
        (await rows.first().locator('td:nth-child(5)').textContent()) ?? '',
        /^\d+ ms$|^\d+\.\d s$/,
      )
      await capture(page, 'test-sessions', { narrow: true })
      await page.getByRole('link', { name: 'Pull request 42' }).click()
      await page.getByRole('heading', { name: 'Pull request 42', level: 1 }).waitFor()
      assert.equal(new URL(page.url()).pathname, `/test-sessions/${sessionId}`)
      await page
        .getByRole('navigation', { name: 'Breadcrumb' })
        .getByRole('link', { name: 'Test sessions' })
        .click()
      await page.getByRole('heading', { name: 'Test sessions', level: 1 }).waitFor()
    })

    test('shows the session and each run; a run opens its whole result', async () => {
      await page.goto(`/test-sessions/${sessionId}`)
      await page.getByRole('heading', { name: 'Pull request 42', level: 1 }).waitFor()
      const rows = page.locator('table tbody tr')
      assert.equal(await rows.count(), 2)
      assert.deepEqual((await rows.locator('td:nth-child(2)').allTextContents()).sort(), [
        'Closed port API',
        'Home API',
      ])
      await capture(page, 'test-session')

      assert.equal(await page.getByRole('link', { name: 'Passed: result of Home API' }).count(), 1)
      await page.getByRole('link', { name: 'Failed: result of Closed port API' }).click()
      await page.getByRole('heading', { name: /^Result of / }).waitFor()
      assert.match((await page.getByRole('alert').first().textContent()) ?? '', /NETWORK_ERROR|CONNECTION/)
      await capture(page, 'test-session-result')
      await page
        .getByRole('navigation', { name: 'Breadcrumb' })
        .getByRole('link', { name: 'Pull request 42' })
        .click()
      await page.getByRole('heading', { name: 'Pull request 42', level: 1 }).waitFor()
    })
  })
}
