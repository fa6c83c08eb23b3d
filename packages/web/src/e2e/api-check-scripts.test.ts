import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import type { Browser, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext, signInWithKey } from './harness.ts'
import { type Deployment, startDeployment } from './server.ts'

/** An API check's setup script written in the form's editor runs before the request: the target sees it. */

for (const engine of testEngines()) {
  describe(`an API check's scripts through its form in Chromium on ${engine.engine}`, () => {
    let deployment: Deployment
    let browser: Browser
    let page: Page
    let target: Server
    let targetUrl: string
    const seen: (string | undefined)[] = []

    before(async () => {
      ensureBuilt()
      deployment = await startDeployment(engine)
      target = createServer((request, response) => {
        seen.push(request.headers['x-from-setup'] as string | undefined)
        response.end('ok')
      })
      targetUrl = `${(await listenOnLoopback(target)).url}/`
      browser = await launchChromium()
      page = await (await newContext(browser, deployment.url)).newPage()
      await signInWithKey(page, deployment.ownerKey)
    })

    after(async () => {
      await browser?.close()
      target?.close()
      await deployment?.stop()
    })

    test('a setup script typed in the editor is run by Run now and saved with the check', async () => {
      await page.goto('/checks/new?type=API')
      await page.getByLabel('Name', { exact: true }).fill('Scripted API')
      await page.getByLabel('URL', { exact: true }).fill(targetUrl)
      await page.getByRole('textbox', { name: 'Setup script' }).click()
      await page.keyboard.type("request.headers['x-from-setup'] = 'yes'")
      await capture(page, 'check-form-api-scripts')
      await page.getByRole('button', { name: 'Run now' }).click()
      const outcome = page.getByRole('status').filter({ hasText: 'not saved yet' })
      await outcome.waitFor()
      assert.match(await outcome.innerText(), /passing/i)
      assert.deepEqual(seen, ['yes'])

      await page.getByRole('button', { name: 'Save check' }).click()
      await page.getByRole('heading', { name: 'Scripted API', level: 1 }).waitFor()
      const id = new URL(page.url()).pathname.split('/')[2]
      const saved = await deployment.call<{
        localSetupScript: string | null
        localTearDownScript: string | null
      }>('GET', `/v1/checks/${id}`)
      assert.deepEqual(
        [saved.body.localSetupScript, saved.body.localTearDownScript],
        ["request.headers['x-from-setup'] = 'yes'", null],
      )
    })
  })
}
