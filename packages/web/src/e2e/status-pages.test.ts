import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { Browser, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext } from './harness.ts'
import { type Deployment, startDeployment } from './server.ts'

/** Status pages and incidents through their forms: cards of services chosen by name, impacts per service. */

for (const engine of testEngines()) {
  describe(`status pages in Chromium on ${engine.engine}`, () => {
    let deployment: Deployment
    let browser: Browser
    let page: Page

    before(async () => {
      ensureBuilt()
      deployment = await startDeployment(engine)
      browser = await launchChromium()
      page = await (await newContext(browser, deployment.url)).newPage()
      await page.goto('/')
      await page.getByRole('tab', { name: 'API key' }).click()
      await page.getByLabel('API key').fill(deployment.ownerKey)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: 'Checks', level: 1 }).waitFor()
    })

    after(async () => {
      await browser?.close()
      await deployment?.stop()
    })

    test('creates a status page and an incident and sees both on the public page', async () => {
      await page.goto('/settings/services/new')
      await page.getByLabel('Name', { exact: true }).fill('Checkout')
      await page.getByRole('button', { name: 'Create service' }).click()
      await page.locator('tr', { hasText: 'Checkout' }).waitFor()
      const search = await deployment.call<{ id: string }>('POST', '/v1/status-pages/services', {
        name: 'Search',
      })
      const services = await deployment.call<{ entries: { id: string; name: string }[] }>(
        'GET',
        '/v1/status-pages/services',
      )
      const serviceId = services.body.entries.find((service) => service.name === 'Checkout')?.id as string
      await page.goto('/settings/status-pages/new')
      await page.getByLabel('Name', { exact: true }).fill('Acme status')
      await page.getByLabel(/^Slug/).fill('acme')
      await page.getByLabel('Custom domain').fill('status.acme.test')
      await page.getByLabel('Theme').selectOption('DARK')
      // Services are chosen by name, then ordered: Search ends up above Checkout.
      await page.getByLabel('Add a service').selectOption({ label: 'Checkout' })
      await page.getByLabel('Add a service').selectOption({ label: 'Search' })
      await page.getByRole('button', { name: 'Move Search up' }).click()
      await page.getByRole('button', { name: 'Add a card' }).click()
      await page.getByLabel('Card 2 name').fill('Internal')
      await page.getByLabel('Add a service').nth(1).selectOption({ label: 'Checkout' })
      await capture(page, 'status-page-form', { narrow: true })
      await page.getByRole('button', { name: 'Create status page' }).click()
      await page.getByRole('link', { name: /\/status\/acme/ }).waitFor()
      await capture(page, 'status-pages')
      const pages = await deployment.call<
        {
          id: string
          name: string
          customDomain: string
          defaultTheme: string
          cards: { name: string; services: { id: string }[] }[]
        }[]
      >('GET', '/v3/status-pages')
      const acme = pages.body.find((entry) => entry.name === 'Acme status')
      assert.deepEqual(
        [
          acme?.customDomain,
          acme?.defaultTheme,
          acme?.cards.map((card) => [card.name, card.services.map((s) => s.id)]),
        ],
        [
          'status.acme.test',
          'DARK',
          [
            ['Services', [search.body.id, serviceId]],
            ['Internal', [serviceId]],
          ],
        ],
      )
      await page.goto('/settings/incidents/new')
      await page.getByLabel('Name', { exact: true }).fill('Payments failing')
      await page.getByLabel('Add an impacted service').selectOption({ label: 'Checkout' })
      await page.getByLabel('Add an impacted service').selectOption({ label: 'Search' })
      await page.getByLabel('Impact on Search', { exact: true }).selectOption('DEGRADED_PERFORMANCE')
      await page.getByLabel('First update').fill('We are looking into failed payments.')
      await capture(page, 'incident-form', { narrow: true })
      await page.getByRole('button', { name: 'Create incident' }).click()
      await page.locator('tr', { hasText: 'Payments failing' }).waitFor()
      await capture(page, 'incidents')
      const incidents = await deployment.call<
        { name: string; componentImpacts: { componentId: string; status: string }[] }[]
      >('GET', `/v3/status-pages/${acme?.id}/incidents`)
      // Impacts are a set: the API answers them in its own order.
      const impacts = incidents.body.find(
        (incident) => incident.name === 'Payments failing',
      )?.componentImpacts
      assert.deepEqual(
        new Map(impacts?.map((impact) => [impact.componentId, impact.status])),
        new Map([
          [serviceId, 'MAJOR_OUTAGE'],
          [search.body.id, 'DEGRADED_PERFORMANCE'],
        ]),
      )
      assert.equal(impacts?.length, 2)
      await page.locator('tr', { hasText: 'Payments failing' }).getByRole('link', { name: 'Edit' }).click()
      const updates = page.locator('.card', { hasText: 'Post an update' })
      await page
        .getByRole('form', { name: 'Post an update' })
        .getByLabel('Message')
        .fill('The provider is back; watching.')
      await page.getByRole('button', { name: 'Post update' }).click()
      await updates.getByText('The provider is back; watching.').waitFor()
      // By their text, not their place: updates of one minute may come in either order.
      const update = (text: string) => updates.locator('li', { hasText: text })
      await update('The provider is back; watching.')
        .getByRole('button', { name: /^Edit the update of/ })
        .click()
      const editForm = page.getByRole('form', { name: /^Edit the update of/ })
      await editForm.getByLabel('Status').selectOption('RESOLVED')
      await editForm.getByLabel('Message').fill('Payments work again.')
      await editForm.getByRole('button', { name: 'Save update' }).click()
      await updates.getByText('Payments work again.').waitFor()
      await capture(page, 'incident-updates')
      page.once('dialog', (dialog) => void dialog.accept())
      await update('Payments work again.')
        .getByRole('button', { name: /^Delete the update of/ })
        .click()
      await updates.getByText('Payments work again.').waitFor({ state: 'detached' })
      await updates.getByText('We are looking into failed payments.').waitFor()
      const publicPage = await page.context().newPage()
      await publicPage.goto('/status/acme')
      await publicPage.getByText('Acme status').first().waitFor()
      await publicPage.getByText('Payments failing').first().waitFor()
      await publicPage.close()
    })
  })
}
