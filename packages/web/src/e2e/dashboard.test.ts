import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext, SCREENSHOTS } from './harness.ts'
import { type Deployment, startDeployment, startReceiver, startTarget } from './server.ts'

const PASSWORD = 'correct horse battery staple'
const EMAIL = 'ada@example.com'

async function signInWithPassword(page: Page): Promise<void> {
  await page.goto('/')
  await page.getByLabel('Email').fill(EMAIL)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Checks', level: 1 }).waitFor()
}

function overviewRow(page: Page, name: string) {
  return page.locator('tr', { has: page.getByRole('link', { name, exact: true }) })
}

for (const engine of testEngines()) {
  describe(`dashboard in Chromium on ${engine.engine}`, () => {
    let deployment: Deployment
    let browser: Browser
    let context: BrowserContext
    let page: Page

    before(async () => {
      ensureBuilt()
      deployment = await startDeployment(engine)
      browser = await launchChromium()
      const user = await deployment.admin<{ id: string }>('POST', '/admin/v1/users', {
        email: EMAIL,
        name: 'Ada Lovelace',
      })
      await deployment.admin('POST', '/admin/v1/memberships', {
        userId: user.id,
        accountId: deployment.accountId,
        role: 'ADMIN',
      })
      const link = await deployment.admin<{ url: string }>('POST', `/admin/v1/users/${user.id}/password-link`)
      context = await newContext(browser, deployment.url)
      page = await context.newPage()
      await page.goto(new URL(link.url).pathname + new URL(link.url).search)
      await capture(page, 'set-password')
      await page.getByLabel('New password').fill(PASSWORD)
      await page.getByLabel('Repeat password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Set password' }).click()
      await page.getByText('Your password is set.').waitFor()
    })

    after(async () => {
      await browser?.close()
      await deployment?.stop()
    })

    test('signs in with a password and out again', async () => {
      await page.goto('/')
      await capture(page, 'sign-in')
      // The tabs follow the ARIA pattern: arrows choose and focus, and only the chosen tab is a Tab stop.
      const passwordTab = page.getByRole('tab', { name: 'Password' })
      const keyTab = page.getByRole('tab', { name: 'API key' })
      await passwordTab.focus()
      await page.keyboard.press('ArrowRight')
      assert.equal(await keyTab.getAttribute('aria-selected'), 'true')
      assert.equal(await keyTab.evaluate((tab) => tab === document.activeElement), true)
      assert.deepEqual(
        [await passwordTab.getAttribute('tabindex'), await keyTab.getAttribute('tabindex')],
        ['-1', '0'],
      )
      await page.getByLabel('API key').waitFor()
      await page.keyboard.press('Home')
      assert.equal(await passwordTab.getAttribute('aria-selected'), 'true')
      await page.getByLabel('Email').fill(EMAIL)
      await page.getByLabel('Password').fill('a wrong password')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByText('Wrong email, password or key.').waitFor()
      await signInWithPassword(page)
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('heading', { name: 'Sign in' }).waitFor()
      const status = await page.evaluate(async () => (await fetch('/v1/auth/session')).status)
      assert.equal(status, 401)
      await signInWithPassword(page)
    })

    test('refuses a cookie-session write without the CSRF token', async () => {
      const answers = await page.evaluate(async () => {
        const session = await (await fetch('/v1/auth/session')).json()
        const body = JSON.stringify({ name: 'CSRF group' })
        const headers = { 'content-type': 'application/json' }
        const without = await fetch('/v1/check-groups', { method: 'POST', headers, body })
        const withToken = await fetch('/v1/check-groups', {
          method: 'POST',
          headers: { ...headers, 'x-csrf-token': session.csrfToken },
          body,
        })
        return { without: without.status, withoutBody: await without.json(), withToken: withToken.status }
      })
      assert.equal(answers.without, 403)
      assert.equal(answers.withoutBody.statusCode, 403)
      assert.equal(answers.withToken, 201)
    })

    test('creates a URL check through the form, runs it, sees it pass, then go red without a reload', async () => {
      const target = await startTarget()
      try {
        await page.getByRole('link', { name: 'Checks', exact: true }).click()
        await page.locator('summary', { hasText: 'New check' }).click()
        await page.getByRole('link', { name: 'URL monitor' }).click()
        await page.getByLabel('Name', { exact: true }).fill('Shop front')
        await page.getByLabel('URL', { exact: true }).fill(target.url)
        await capture(page, 'check-form-url')
        // Run now on the unsaved form runs the definition as it stands, and saves nothing.
        await page.getByRole('button', { name: 'Run now' }).click()
        const outcome = page.getByRole('status').filter({ hasText: 'not saved yet' })
        await outcome.waitFor()
        assert.match(await outcome.innerText(), /passing/i)
        await capture(page, 'check-form-run-now')
        const unsaved = await deployment.call<{ name: string }[]>('GET', '/v1/checks?limit=100')
        assert.equal(
          unsaved.body.some((check) => check.name === 'Shop front'),
          false,
        )
        await page.getByRole('button', { name: 'Save check' }).click()
        await page.getByRole('heading', { name: 'Shop front', level: 1 }).waitFor()
        await page.getByRole('button', { name: 'Run now' }).click()
        await page.getByText('Ran now.').waitFor()
        await page.getByRole('link', { name: 'See the result' }).click()
        await page.getByRole('heading', { name: /^Result of/ }).waitFor()
        await capture(page, 'result-url')
        await page.getByRole('link', { name: 'Checks', exact: true }).first().click()
        const row = overviewRow(page, 'Shop front')
        await row.locator('.status-passing').waitFor()
        await capture(page, 'overview')
        target.fail(true)
        const checks = await deployment.call<{ id: string; name: string }[]>('GET', '/v1/checks?limit=100')
        const id = checks.body.find((check) => check.name === 'Shop front')?.id
        assert.ok(id)
        const reloads: string[] = []
        page.on('framenavigated', (frame) => reloads.push(frame.url()))
        const run = await deployment.call<{ hasFailures: boolean }>('POST', `/v1/checks/${id}/trigger`)
        assert.equal(run.body.hasFailures, true)
        await row.locator('.status-failing').waitFor()
        assert.deepEqual(reloads, [], 'the overview turned red without navigating')
        await page.getByRole('link', { name: 'Shop front', exact: true }).click()
        await page.getByRole('heading', { name: 'Response time by location (p50 / p95 / p99)' }).waitFor()
        await capture(page, 'check')
      } finally {
        await target.close()
      }
    })

    test("a heartbeat's copied ping URL, pinged, turns it green", async () => {
      await page.goto('/checks/new?type=HEARTBEAT')
      await page.getByLabel('Name', { exact: true }).fill('Nightly backup')
      await page.getByRole('button', { name: 'Save check' }).click()
      await page.getByRole('heading', { name: 'Ping URL' }).waitFor()
      await capture(page, 'check-heartbeat')
      await page.getByRole('button', { name: 'Copy Ping URL' }).click()
      const copied = await page.evaluate(() => navigator.clipboard.readText())
      assert.match(copied, new RegExp(`^${deployment.url}/ping/`))
      const ping = await fetch(copied)
      assert.equal(ping.status, 200)
      await page.getByRole('link', { name: 'Checks', exact: true }).first().click()
      await overviewRow(page, 'Nightly backup').locator('.status-passing').waitFor()
    })

    test("an API check's form shows the API's validation error next to the field", async () => {
      await page.goto('/checks/new?type=API')
      await page.getByLabel('Name', { exact: true }).fill('Orders API')
      await page.getByLabel('URL', { exact: true }).fill('ftp://orders.example.com')
      await page.getByRole('button', { name: 'Save check' }).click()
      const error = page.locator('[data-field-error="request.url"]')
      await error.waitFor()
      assert.match((await error.textContent()) ?? '', /pattern|https?/i)
      assert.equal(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid'), 'true')
      await capture(page, 'check-form-api-invalid')
    })

    test("an SSL monitor's form saves the certificate settings the API reads back", async () => {
      await page.goto('/checks/new?type=SSL')
      await page.getByLabel('Name', { exact: true }).fill('Shop certificate')
      await page.getByLabel('Host name', { exact: true }).fill('127.0.0.1')
      await page.getByLabel('Degraded this many days before expiry').fill('30')
      await capture(page, 'check-form-ssl')
      await page.getByRole('button', { name: 'Save check' }).click()
      await page.getByRole('heading', { name: 'Shop certificate', level: 1 }).waitFor()
      const checks = await deployment.call<
        { name: string; checkType: string; request: { sslConfig: object } }[]
      >('GET', '/v1/checks?limit=100')
      const saved = checks.body.find((check) => check.name === 'Shop certificate')
      assert.equal(saved?.checkType, 'SSL')
      assert.deepEqual(
        pickKeys(saved?.request.sslConfig ?? {}, ['hostname', 'port', 'alertDaysBeforeExpiry']),
        { hostname: '127.0.0.1', port: 443, alertDaysBeforeExpiry: 30 },
      )
    })

    test("a check's form saves retries, alerting, its own variables and an incident trigger", async () => {
      const service = await deployment.call<{ id: string }>('POST', '/v1/status-pages/services', {
        name: 'Billing',
      })
      await page.goto('/checks/new?type=API')
      await page.getByLabel('Name', { exact: true }).fill('Billing API')
      await page.getByLabel('URL', { exact: true }).fill('http://127.0.0.1:9/')
      // Alone in its card, the strategy still takes one column, not the card's width.
      const retries = page.locator('section.card', {
        has: page.getByRole('heading', { name: 'Retries', exact: true }),
      })
      const widthOf = async (locator: Locator) => Math.round((await locator.boundingBox())?.width ?? 0)
      const alone = {
        card: await widthOf(retries),
        strategy: await widthOf(page.getByLabel('Retry strategy')),
      }
      assert.equal(alone.strategy < alone.card / 2, true, JSON.stringify(alone))
      await page.getByLabel('Retry strategy').selectOption('LINEAR')
      // With its limits beside it, it keeps that width.
      assert.equal(await widthOf(page.getByLabel('Retry strategy')), alone.strategy)
      await page.getByLabel('Retries at most').fill('3')
      await page.getByLabel("Use the account's alert settings").uncheck()
      await page.getByLabel('Alert when').selectOption('TIME_BASED')
      await page.getByLabel('Minutes failing').fill('10')
      await page.getByLabel('Reminders', { exact: true }).fill('2')
      await page.getByRole('button', { name: 'Add variable' }).click()
      await page.getByLabel('Name of variable 1').fill('1BAD')
      await page.getByLabel('Value of variable 1').fill('s3cret')
      await page.getByLabel('Open an incident on a status page when this check fails').check()
      await page.getByLabel('Service', { exact: true }).selectOption(service.body.id)
      await page.getByLabel('Severity').selectOption('CRITICAL')
      await page.getByRole('button', { name: 'Save check' }).click()
      const error = page.locator('[data-field-error="environmentVariables.0.key"]')
      await error.waitFor()
      assert.equal(await page.getByLabel('Name of variable 1').getAttribute('aria-invalid'), 'true')
      await capture(page, 'check-form-api-behaviour')
      await page.getByLabel('Name of variable 1').fill('BILLING_TOKEN')
      await page.getByLabel('Secret (never readable again), variable 1', { exact: true }).check()
      await page.getByRole('button', { name: 'Save check' }).click()
      await page.getByRole('heading', { name: 'Billing API', level: 1 }).waitFor()
      const id = new URL(page.url()).pathname.split('/')[2]
      const saved = await deployment.call<Record<string, unknown>>('GET', `/v1/checks/${id}`)
      const body = saved.body as {
        retryStrategy: { type: string; maxRetries: number; baseBackoffSeconds: number }
        useGlobalAlertSettings: boolean
        alertSettings: {
          escalationType: string
          timeBasedEscalation: { minutesFailingThreshold: number }
          reminders: { amount: number }
        }
        environmentVariables: { key: string; secret: boolean }[]
        triggerIncident: { serviceId: string; severity: string; name: string }
      }
      assert.deepEqual(
        [body.retryStrategy.type, body.retryStrategy.maxRetries, body.retryStrategy.baseBackoffSeconds],
        ['LINEAR', 3, 60],
      )
      assert.equal(body.useGlobalAlertSettings, false)
      assert.equal(body.alertSettings.escalationType, 'TIME_BASED')
      assert.equal(body.alertSettings.timeBasedEscalation.minutesFailingThreshold, 10)
      assert.equal(body.alertSettings.reminders.amount, 2)
      assert.deepEqual(
        body.environmentVariables.map((variable) => [variable.key, variable.secret]),
        [['BILLING_TOKEN', true]],
      )
      assert.deepEqual(
        [body.triggerIncident.serviceId, body.triggerIncident.severity, body.triggerIncident.name],
        [service.body.id, 'CRITICAL', 'Billing API is failing'],
      )
      await deployment.call('DELETE', `/v1/checks/${id}`)
    })

    test('creates an alert channel and sends a test to a local receiver', async () => {
      const receiver = await startReceiver()
      try {
        await page.goto('/settings/alert-channels/new')
        await page.getByLabel('Name', { exact: true }).fill('Ops hook')
        await page.getByLabel('URL', { exact: true }).fill(receiver.url)
        await capture(page, 'alert-channel-form')
        await page.getByRole('button', { name: 'Create alert channel' }).click()
        const row = page.locator('tr', { hasText: 'Ops hook' })
        await row.getByRole('button', { name: 'Send test' }).click()
        const body = await receiver.next()
        assert.ok(body.length > 0)
        await row.getByText('Test sent').waitFor()
        await capture(page, 'alert-channels')
        await page.goto('/settings/alert-log')
        await page.locator('[data-status="DELIVERED"]').first().waitFor()
        await capture(page, 'alert-log')
      } finally {
        await receiver.close()
      }
    })

    test('a browser check result shows its screenshot', async () => {
      const script = [
        "const { test } = require('@playwright/test')",
        "test('hello', async ({ page }) => {",
        '  await page.setContent(\'<h1 style="font-size:64px">Hello from svc</h1>\')',
        "  await page.screenshot({ path: 'hello.png' })",
        '})',
      ].join('\n')
      const created = await deployment.call<{ id: string }>('POST', '/v1/checks/browser', {
        name: 'Hello page',
        activated: false,
        script,
      })
      assert.equal(created.status, 201)
      const run = await deployment.call<{ id: string; hasFailures: boolean }>(
        'POST',
        `/v1/checks/${created.body.id}/trigger`,
      )
      assert.equal(run.body.hasFailures, false)
      const stored = await deployment.call<{ browserCheckResult?: { screenshots?: unknown[] } }>(
        'GET',
        `/v1/check-results/${created.body.id}/${run.body.id}`,
      )
      assert.equal(
        stored.body.browserCheckResult?.screenshots?.length,
        1,
        JSON.stringify(stored.body).slice(0, 2000),
      )
      await page.goto(`/checks/${created.body.id}/results/${run.body.id}`)
      const image = page.locator('img.screenshot').first()
      await image.waitFor()
      await page.waitForFunction(() => {
        const img = document.querySelector<HTMLImageElement>('img.screenshot')
        return img?.complete && img.naturalWidth > 0
      })
      await capture(page, 'result-browser')
      const [viewer] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('link', { name: 'Open in the trace viewer' }).click(),
      ])
      // The viewer's action list shows the script's steps once it has read the trace through svc.
      await viewer
        .getByText(/Set content/i)
        .first()
        .waitFor({ timeout: 120_000 })
      await viewer.screenshot({ path: join(SCREENSHOTS, 'trace-viewer.png') })
      await viewer.close()
      await page.goto(`/checks/${created.body.id}/edit`)
      await page.locator('.cm-editor').waitFor()
      await capture(page, 'check-form-browser')
    })

    test('every settings page passes axe in light and dark', async () => {
      for (const path of [
        'groups',
        'maintenance',
        'variables',
        'private-locations',
        'api-keys',
        'members',
        'account',
        'services',
      ]) {
        await page.goto(`/settings/${path}`)
        await page.getByRole('heading', { level: 1 }).waitFor()
        await capture(page, `settings-${path}`)
      }
      await page.goto('/settings/groups/new')
      await capture(page, 'settings-groups-new')
    })

    test('signs in with a READ_ONLY key and sees no edit buttons', async () => {
      const key = await deployment.admin<{ key: string }>('POST', '/admin/v1/api-keys', {
        name: 'viewer',
        accountId: deployment.accountId,
        role: 'READ_ONLY',
      })
      const viewer = await newContext(browser, deployment.url)
      const viewerPage = await viewer.newPage()
      try {
        await viewerPage.goto('/')
        await viewerPage.getByRole('tab', { name: 'API key' }).click()
        await viewerPage.getByLabel('API key').fill(key.key)
        await viewerPage.getByRole('button', { name: 'Sign in' }).click()
        await viewerPage.getByRole('heading', { name: 'Checks', level: 1 }).waitFor()
        await overviewRow(viewerPage, 'Shop front').waitFor()
        assert.equal(await viewerPage.locator('summary', { hasText: 'New check' }).count(), 0)
        await viewerPage.getByRole('link', { name: 'Shop front', exact: true }).click()
        await viewerPage.getByRole('heading', { name: 'Shop front', level: 1 }).waitFor()
        for (const name of ['Edit', 'Delete', 'Pause', 'Run now', 'Duplicate'])
          assert.equal(await viewerPage.getByRole('button', { name, exact: true }).count(), 0, name)
        assert.equal(await viewerPage.getByRole('link', { name: 'Edit', exact: true }).count(), 0)
        await viewerPage.goto('/settings/alert-channels')
        await viewerPage.locator('tr', { hasText: 'Ops hook' }).waitFor()
        assert.equal(await viewerPage.getByRole('link', { name: /^New / }).count(), 0)
        assert.equal(await viewerPage.getByRole('button', { name: /^Delete/ }).count(), 0)
        await capture(viewerPage, 'read-only-alert-channels')
      } finally {
        await viewer.close()
      }
    })

    test('the overview pages a long list: 50 rows a page, failing first, a filter back to page 1', async () => {
      for (let index = 0; index < 55; index += 11)
        await Promise.all(
          Array.from({ length: 11 }, (_, offset) =>
            deployment.call('POST', '/v1/checks/url', {
              name: `Bulk ${String(index + offset).padStart(2, '0')}`,
              activated: false,
              request: { url: 'http://127.0.0.1:9/' },
            }),
          ),
        )
      const total = (await deployment.call<{ total: number }>('GET', '/v1/dashboard/overview')).body.total
      // The page asks the server for one page at a time, never for the whole list.
      const asked: { query: string; rows: number }[] = []
      page.on('response', async (response) => {
        const url = new URL(response.url())
        if (url.pathname === '/v1/dashboard/overview' && response.ok())
          asked.push({ query: url.search, rows: (await response.json()).checks.length })
      })
      await page.goto('/')
      const pager = page.getByRole('navigation', { name: 'Pages of checks' })
      await pager.getByText(`1–50 of ${total} · page 1 of 2`).waitFor()
      assert.equal(await page.locator('.checks-table tbody tr').count(), 50)
      // Paused checks come last: "Shop front", which runs, is on page 1, the last paused ones on page 2.
      await overviewRow(page, 'Shop front').waitFor()
      assert.equal(await overviewRow(page, 'Bulk 54').count(), 0)
      await pager.getByRole('button', { name: 'Next' }).click()
      await overviewRow(page, 'Bulk 54').waitFor()
      assert.equal(new URL(page.url()).searchParams.get('page'), '2')
      assert.equal(await page.locator('.checks-table tbody tr').count(), total - 50)
      assert.ok(asked.some((answer) => answer.query === `?limit=50&page=2` && answer.rows === total - 50))
      assert.ok(
        asked.every((answer) => answer.rows <= 50 && answer.query.startsWith('?limit=50')),
        JSON.stringify(asked),
      )
      await capture(page, 'overview-page-2')
      await page.getByLabel('Search by name').fill('Bulk 5')
      // Page 2 stays on screen (it holds "Bulk 50" too) until the server's filtered answer replaces it.
      await pager.waitFor({ state: 'detached' })
      assert.equal(new URL(page.url()).searchParams.get('page'), null)
      assert.equal(await page.locator('.checks-table tbody tr').count(), 5)
      assert.equal(await pager.count(), 0)
      // A status tile filters on the server too; its count is of every check, whatever the filters.
      const pausedTile = page.getByRole('button', { name: /paused/i }).first()
      await page.getByLabel('Search by name').fill('')
      await pausedTile.click()
      const paused = (await deployment.call<{ total: number }>('GET', '/v1/dashboard/overview?status=paused'))
        .body.total
      await pager.getByText(`1–50 of ${paused} · page 1 of 2`).waitFor()
      assert.equal(new URL(page.url()).searchParams.get('status'), 'paused')
      assert.equal(await pausedTile.locator('.summary-count').innerText(), String(paused))
      assert.equal(await page.locator('.checks-table tbody tr.row-paused').count(), 50)
    })
  })
}

function pickKeys(object: object, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, (object as Record<string, unknown>)[key]]))
}
