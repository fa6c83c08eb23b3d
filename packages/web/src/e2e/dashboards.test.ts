import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { Browser, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext, signInWithKey } from './harness.ts'
import { type Deployment, startDeployment } from './server.ts'

interface Dashboard {
  dashboardId: string
  header: string
  customUrl: string | null
  customDomain: string | null
  tags: string[]
  refreshRate: number
  paginate: boolean
  sortByStatus: boolean
  showP99: boolean
  checksPerPage: number | null
  logo: string | null
}

/**
 * Dashboards through their pages: created with the API's errors beside the fields they name (gone once the
 * field is edited), edited (a taken slug's 409 beside the slug), opened as the public page, deleted.
 */

for (const engine of testEngines()) {
  describe(`dashboards in Chromium on ${engine.engine}`, () => {
    let deployment: Deployment
    let browser: Browser
    let page: Page

    before(async () => {
      ensureBuilt()
      deployment = await startDeployment(engine)
      for (const [name, tags] of [
        ['Checkout API', ['shop']],
        ['Internal API', ['internal']],
      ] as const) {
        const created = await deployment.call('POST', '/v1/checks/api', {
          name,
          activated: false,
          tags,
          request: { url: 'http://127.0.0.1:9/', method: 'GET' },
        })
        assert.equal(created.status, 201, JSON.stringify(created.body))
      }
      browser = await launchChromium()
      page = await (await newContext(browser, deployment.url)).newPage()
      await signInWithKey(page, deployment.ownerKey)
    })

    after(async () => {
      await browser?.close()
      await deployment?.stop()
    })

    const dashboards = async () => (await deployment.call<Dashboard[]>('GET', '/v1/dashboards')).body

    test('creates a dashboard, with the API’s error beside its field until the field is edited', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboards' }).click()
      await page.getByRole('heading', { name: 'Dashboards', level: 1 }).waitFor()
      await page.getByText('No dashboards yet.').waitFor()
      await capture(page, 'dashboards-empty')
      await page.getByRole('link', { name: 'New dashboard' }).click()
      await page.getByLabel('Header', { exact: true }).fill('Shop wall')
      await page.getByLabel(/^Slug/).fill('Shop Wall!')
      await page.getByLabel('Logo URL').fill('ftp://example.com/logo.png')
      await page.getByRole('button', { name: 'Create dashboard' }).click()
      const slugError = page.locator('[data-field-error="customUrl"]')
      const logoError = page.locator('[data-field-error="logo"]')
      await slugError.waitFor()
      assert.equal(
        await slugError.textContent(),
        'must be lowercase letters, digits and -, not starting or ending with -',
      )
      assert.equal(await page.getByLabel(/^Slug/).getAttribute('aria-invalid'), 'true')
      assert.equal(await logoError.textContent(), 'must be an http:// or https:// URL')
      await capture(page, 'dashboard-form-errors')
      // Editing the slug takes its error away; the logo's stays until the logo is edited or saved.
      await page.getByLabel(/^Slug/).fill('shop-wall')
      await slugError.waitFor({ state: 'detached' })
      assert.equal(await page.getByLabel(/^Slug/).getAttribute('aria-invalid'), 'false')
      assert.equal(await logoError.count(), 1)
      await page.getByLabel('Logo URL').fill('')
      await logoError.waitFor({ state: 'detached' })
      assert.equal(await page.getByRole('alert').count(), 0)

      await page.getByLabel('Tags', { exact: true }).fill('shop')
      await page.getByLabel('Reload every').selectOption({ label: '5 minutes' })
      await page.getByLabel('Checks per page').fill('10')
      await page.getByLabel('Show p99 response time').uncheck()
      await capture(page, 'dashboard-form')
      await page.getByRole('button', { name: 'Create dashboard' }).click()
      await page.getByRole('link', { name: '/dashboards/shop-wall' }).waitFor()
      await capture(page, 'dashboards')
      const [created] = await dashboards()
      assert.deepEqual(
        [
          created?.header,
          created?.customUrl,
          created?.customDomain,
          created?.tags,
          created?.refreshRate,
          created?.checksPerPage,
          created?.showP99,
          created?.logo,
        ],
        ['Shop wall', 'shop-wall', null, ['shop'], 300, 10, false, null],
      )
    })

    test('edits the dashboard and opens its public page', async () => {
      await page.goto('/settings/dashboards')
      await page.locator('tr', { hasText: 'Shop wall' }).getByRole('link', { name: 'Edit' }).click()
      // A slug another dashboard holds: the API's 409 shows beside the slug.
      const other = await deployment.call<Dashboard>('POST', '/v1/dashboards', {
        header: 'Other',
        customUrl: 'taken-slug',
      })
      await page.getByLabel(/^Slug/).fill('taken-slug')
      await page.getByRole('button', { name: 'Save' }).click()
      assert.equal(
        await page.locator('[data-field-error="customUrl"]').textContent(),
        'taken-slug is taken by another dashboard',
      )
      await page.getByLabel(/^Slug/).fill('shop-wall')
      await deployment.call('DELETE', `/v1/dashboards/${other.body.dashboardId}`)
      await page.getByLabel('Header', { exact: true }).fill('Shop status')
      await page.getByLabel('Failing checks first').check()
      await page.getByLabel('Show the checks a page at a time').uncheck()
      // Without paging, its settings are not asked for.
      assert.equal(await page.getByLabel('Checks per page').count(), 0)
      await page.getByRole('button', { name: 'Save' }).click()
      await page.locator('tr', { hasText: 'Shop status' }).waitFor()
      const [edited] = await dashboards()
      assert.deepEqual(
        [edited?.header, edited?.sortByStatus, edited?.paginate, edited?.refreshRate, edited?.tags],
        ['Shop status', true, false, 300, ['shop']],
      )

      const [publicPage] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('link', { name: '/dashboards/shop-wall' }).click(),
      ])
      await publicPage.waitForLoadState()
      assert.equal(new URL(publicPage.url()).pathname, '/dashboards/shop-wall')
      assert.equal(await publicPage.locator('h1').textContent(), 'Shop status')
      assert.deepEqual(await publicPage.locator('li.check h2').allInnerTexts(), ['Checkout API'])
      await publicPage.close()
    })

    test('deletes the dashboard', async () => {
      await page.goto('/settings/dashboards')
      page.once('dialog', (dialog) => void dialog.accept())
      await page.getByRole('button', { name: 'Delete Shop status' }).click()
      await page.getByText('No dashboards yet.').waitFor()
      assert.deepEqual(await dashboards(), [])
    })
  })
}
