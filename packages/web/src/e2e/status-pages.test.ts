import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { Browser, Frame, Locator, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext, signInWithKey } from './harness.ts'
import { type Deployment, startDeployment } from './server.ts'

type ThemeColors = Record<string, string>

const widthOf = async (locator: Locator) => Math.round((await locator.boundingBox())?.width ?? 0)

/**
 * Status pages and incidents through their forms (cards of services chosen by name, impacts per service,
 * theme colours), the API's errors beside the card, impact, first update or colour they name, an update's
 * status a column wide, and a maintenance window in a time zone: settings forms that share this file's one
 * server and browser.
 */

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
      await signInWithKey(page, deployment.ownerKey)
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
      await capture(page, 'status-page-form')
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
      // An empty first update is refused: the API's message shows in that field's box, and goes once it is edited.
      const firstUpdate = page.getByLabel('First update')
      const firstUpdateField = page.locator('.field', { has: firstUpdate })
      await page.getByRole('button', { name: 'Create incident' }).click()
      // The form's own message comes with the field's, so the field is read once it shows.
      await page.locator('.alert-error', { hasText: 'must NOT have fewer than 1 characters' }).waitFor()
      assert.deepEqual(
        [
          await firstUpdateField.locator('.field-error').allTextContents(),
          await firstUpdate.getAttribute('aria-invalid'),
        ],
        [['must NOT have fewer than 1 characters'], 'true'],
      )
      await capture(page, 'incident-form-error')
      await firstUpdate.fill('We are looking into failed payments.')
      await firstUpdateField.locator('.field-error').waitFor({ state: 'detached' })
      assert.equal(await firstUpdate.getAttribute('aria-invalid'), 'false')
      await capture(page, 'incident-form')
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
      // An incident opened elsewhere shows on the open list without a reload.
      const navigations: string[] = []
      const onNavigate = (frame: Frame) => navigations.push(frame.url())
      page.on('framenavigated', onNavigate)
      const opened = await deployment.call('POST', `/v3/status-pages/${acme?.id}/incidents`, {
        name: 'Search slow',
        componentImpacts: [],
        incidentUpdates: [{ description: 'Looking into it.', status: 'INVESTIGATING' }],
      })
      assert.equal(opened.status, 201)
      await page.locator('tr', { hasText: 'Search slow' }).waitFor()
      page.off('framenavigated', onNavigate)
      assert.deepEqual(navigations, [], 'the incident appeared without navigating')
      await page.locator('tr', { hasText: 'Payments failing' }).getByRole('link', { name: 'Edit' }).click()
      const updates = page.locator('.card', { hasText: 'Post an update' })
      // The status takes a column of the card, the message all of it.
      const postForm = page.getByRole('form', { name: 'Post an update' })
      await postForm.getByLabel('Status').waitFor()
      const postSizes = {
        card: await widthOf(updates),
        status: await widthOf(postForm.getByLabel('Status')),
        message: await widthOf(postForm.getByLabel('Message')),
      }
      assert.deepEqual(
        [postSizes.status < postSizes.card / 2, postSizes.message > postSizes.card * 0.8],
        [true, true],
        JSON.stringify(postSizes),
      )
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
      // Editing lays the update out as posting does (in the timeline's narrower indent).
      const editSizes = {
        card: postSizes.card,
        status: await widthOf(editForm.getByLabel('Status')),
        message: await widthOf(editForm.getByLabel('Message')),
      }
      assert.deepEqual(
        [editSizes.status < editSizes.card / 2, editSizes.message > editSizes.card * 0.8],
        [true, true],
        JSON.stringify(editSizes),
      )
      await editForm.getByLabel('Status').selectOption('RESOLVED')
      await editForm.getByLabel('Message').fill('Payments work again.')
      await editForm.getByRole('button', { name: 'Save update' }).click()
      // The form's own message would match too: the saved text counts once the form is gone.
      await editForm.waitFor({ state: 'detached' })
      await updates.getByText('Payments work again.').waitFor()
      // The next update's status follows the latest's, edited to RESOLVED since the page opened.
      const postStatus = () => postForm.getByLabel('Status').inputValue()
      assert.equal(await postStatus(), 'RESOLVED')
      await capture(page, 'incident-updates')
      page.once('dialog', (dialog) => void dialog.accept())
      await update('Payments work again.')
        .getByRole('button', { name: /^Delete the update of/ })
        .click()
      await updates.getByText('Payments work again.').waitFor({ state: 'detached' })
      await updates.getByText('We are looking into failed payments.').waitFor()
      assert.equal(await postStatus(), 'INVESTIGATING')
      const publicPage = await page.context().newPage()
      await publicPage.goto('/status/acme')
      await publicPage.getByText('Acme status').first().waitFor()
      await publicPage.getByText('Payments failing').first().waitFor()
      await publicPage.close()
    })

    test('a maintenance window in a time zone: created, listed with its zone, held by the API', async () => {
      await page.goto('/settings/maintenance/new')
      await page.getByLabel('Name', { exact: true }).fill('Berlin nightly deploy')
      await page.getByLabel('Tags').fill('checkout')
      await page.getByLabel('Starts').fill('2026-12-01T02:00')
      await page.getByLabel('Ends').fill('2026-12-01T03:00')
      await page.getByLabel('Repeat', { exact: true }).selectOption('DAY')
      await page.getByLabel('Repeat every').fill('1')
      // A zone the API doesn't know is refused beside the field.
      await page.getByLabel('Time zone').fill('Mars/Olympus_Mons')
      await page.getByRole('button', { name: 'Create maintenance window' }).click()
      await page.locator('[data-field-error="timezone"]').getByText('is not an IANA time zone').waitFor()
      await page.getByLabel('Time zone').fill('Europe/Berlin')
      await capture(page, 'maintenance-window-form')
      await page.getByRole('button', { name: 'Create maintenance window' }).click()
      const row = page.locator('tr', { hasText: 'Berlin nightly deploy' })
      await row.getByRole('cell', { name: 'Europe/Berlin', exact: true }).waitFor()
      await capture(page, 'maintenance-windows')
      // The times were typed as Berlin's wall clock (UTC+1 in December), whatever the browser's zone.
      await row.getByRole('cell', { name: 'Dec 1, 2026, 02:00 AM' }).waitFor()
      const windows = await deployment.call<
        { name: string; timezone: string | null; repeatUnit: string; tags: string[]; startsAt: string }[]
      >('GET', '/v1/maintenance-windows')
      const created = windows.body.find((window) => window.name === 'Berlin nightly deploy')
      assert.deepEqual(
        [created?.timezone, created?.startsAt, created?.repeatUnit, created?.tags],
        ['Europe/Berlin', '2026-12-01T01:00:00.000Z', 'DAY', ['checkout']],
      )
      await row.getByRole('link', { name: 'Edit' }).click()
      assert.equal(await page.getByLabel('Starts').inputValue(), '2026-12-01T02:00')
      assert.equal(await page.getByLabel('Time zone').inputValue(), 'Europe/Berlin')
    })

    test("a status page's theme colours: checked as typed, the API's error beside the field, saved", async () => {
      const created = await deployment.call<{ id: string }>('POST', '/v3/status-pages', {
        name: 'Colours',
        url: 'colours',
        cards: [],
      })
      await page.goto(`/settings/status-pages/${created.body.id}`)
      const links = page.getByLabel('Light links', { exact: true })
      await links.fill('#0059C2;')
      const linkError = page.locator('[data-field-error="themeColors.light.linkFontColor"]')
      await linkError.getByText('not a colour').waitFor()
      assert.equal(await links.getAttribute('aria-invalid'), 'true')
      // Saved anyway, the API refuses it (naming the field) and nothing is saved.
      await page.getByRole('button', { name: 'Save' }).click()
      await page
        .getByRole('alert')
        .getByText(
          'body.themeColors.light.linkFontColor must be a colour: #RRGGBB, a colour name, rgb() or hsl()',
        )
        .waitFor()
      await linkError.getByText('not a colour').waitFor()
      await links.fill('#7A1FA2')
      await page.getByLabel('Dark page background', { exact: true }).fill('#101820')
      await page.getByLabel('Dark titles', { exact: true }).fill('rgb(250, 250, 250)')
      await page.getByLabel('Light button background: pick').fill('#1a7f37')
      await capture(page, 'status-page-theme-colors')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.locator('tr', { hasText: 'Colours' }).waitFor()
      const saved = await deployment.call<{ themeColors: { light: ThemeColors; dark: ThemeColors } }>(
        'GET',
        `/v3/status-pages/${created.body.id}`,
      )
      const { light, dark } = saved.body.themeColors
      assert.deepEqual(
        [
          light.linkFontColor,
          light.primaryButtonBackgroundColor,
          dark.bodyBackgroundColor,
          dark.titleFontColor,
        ],
        ['#7A1FA2', '#1A7F37', '#101820', 'rgb(250, 250, 250)'],
      )
      assert.equal(light.bodyBackgroundColor, '#F7F9FB', 'the colours left alone keep the defaults')
    })

    test("a card's and an impact's errors show beside them", async () => {
      const created = await deployment.call<{ id: string }>('POST', '/v3/status-pages', {
        name: 'Errors',
        url: 'errors',
        cards: [{ name: 'Services', services: [] }],
      })
      await deployment.call('POST', '/v1/status-pages/services', { name: 'Ledger' })
      await deployment.call('POST', '/v1/status-pages/services', { name: 'Billing' })
      await deployment.call('POST', '/v3/status-pages', { name: 'Taken', url: 'taken-slug', cards: [] })
      await page.goto(`/settings/status-pages/${created.body.id}`)
      // A slug another page holds: the API's 409 shows beside the slug, and goes once the slug is edited.
      await page.getByLabel(/^Slug/).fill('taken-slug')
      await page.getByRole('button', { name: 'Save' }).click()
      const slugError = page.locator('[data-field-error="url"]')
      await slugError.getByText('taken-slug is taken by another status page').waitFor()
      await page.getByLabel(/^Slug/).fill('errors')
      assert.equal(await slugError.count(), 0)
      await page.getByLabel('Add a service').selectOption({ label: 'Ledger' })
      await page.getByRole('button', { name: 'Add a card' }).click()
      await page.getByLabel('Card 2 name').fill(' ')
      await page.getByRole('button', { name: 'Save' }).click()
      const cardError = page.locator('[data-field-error="cards.1.name"]')
      await cardError.getByText('must not be blank').waitFor()
      assert.equal(await page.getByLabel('Card 2 name').getAttribute('aria-invalid'), 'true')
      assert.equal(await page.locator('[data-field-error="cards.0.name"]').count(), 0)
      await capture(page, 'status-page-card-error')
      await page.getByLabel('Card 2 name').fill('Internal')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.locator('tr', { hasText: 'Errors' }).waitFor()
      // Billing isn't on the page: an impact on it is refused, beside that impact.
      await page.goto(`/settings/incidents/new?page=${created.body.id}`)
      await page.getByLabel('Name', { exact: true }).fill('Invoices late')
      await page.getByLabel('Add an impacted service').selectOption({ label: 'Ledger' })
      await page.getByLabel('Add an impacted service').selectOption({ label: 'Billing' })
      await page.getByLabel('First update').fill('Invoices are sent late.')
      await page.getByRole('button', { name: 'Create incident' }).click()
      const impactError = page.locator('[data-field-error="componentImpacts.1"]')
      await impactError.getByText('is not a service shown on this status page').waitFor()
      assert.equal(
        await page.getByLabel('Impact on Billing', { exact: true }).getAttribute('aria-invalid'),
        'true',
      )
      assert.equal(await page.locator('[data-field-error="componentImpacts.0"]').count(), 0)
      await capture(page, 'incident-impact-error')
      await page.getByRole('button', { name: 'Remove the impact on Billing' }).click()
      await page.getByRole('button', { name: 'Create incident' }).click()
      // Back on the list of the same status page (the address keeps it), not the first page's.
      await page.locator('tr', { hasText: 'Invoices late' }).waitFor()
      assert.match(page.url(), new RegExp(`/settings/incidents\\?page=${created.body.id}$`))
    })

    test("a service's checks are picked by name from the account's checks, not typed as IDs", async () => {
      const made = await Promise.all(
        ['Cart API', 'Cart page', 'Login'].map((name) =>
          deployment.call<{ id: string }>('POST', '/v1/checks/url', {
            name,
            activated: false,
            request: { url: 'http://127.0.0.1:9/' },
          }),
        ),
      )
      const [cartApi, cartPage] = made.map((check) => check.body.id)
      await page.goto('/settings/services/new')
      await page.getByLabel('Name', { exact: true }).fill('Cart')
      await page.getByLabel('Find a check by name').fill('cart')
      await page.getByLabel('Cart page').check()
      await page.getByLabel('Cart API').check()
      await page.getByText('No other check matches.').waitFor()
      assert.equal(await page.getByLabel('Login').count(), 0, 'the search left Login out')
      await capture(page, 'service-form')
      await page.getByRole('button', { name: 'Create service' }).click()
      await page.locator('tr', { hasText: 'Cart' }).first().waitFor()
      const services = await deployment.call<{ entries: { id: string; name: string; checkIds: string[] }[] }>(
        'GET',
        '/v1/status-pages/services',
      )
      const cart = services.body.entries.find((service) => service.name === 'Cart')
      assert.deepEqual(cart?.checkIds.toSorted(), [cartPage, cartApi].toSorted())
      // Editing shows the chosen checks by name; unticking one takes it out.
      await page.goto(`/settings/services/${cart?.id}`)
      await page.getByLabel('Cart page').uncheck()
      await page.getByRole('button', { name: 'Save' }).click()
      await page.locator('tr', { hasText: 'Cart' }).first().waitFor()
      const saved = await deployment.call<{ checkIds: string[] }>(
        'GET',
        `/v1/status-pages/services/${cart?.id}`,
      )
      assert.deepEqual(saved.body.checkIds, [cartApi])
    })
  })
}
