import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { Browser, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext, signInWithKey } from './harness.ts'
import { type Deployment, startDeployment } from './server.ts'

interface Incident {
  id: string
  name: string
  impact: string
  stoppedAt: string | null
  incidentUpdates: { status: string; description: string }[]
}

/**
 * A dashboard's incidents through its pages: opened from the dashboard's row, created (a refused first
 * update shown beside its field), told in updates (posted, edited, deleted), shown on the public dashboard,
 * closed (then offering no Close) and deleted; an end still ahead listed as ongoing until then.
 */

for (const engine of testEngines()) {
  describe(`dashboard incidents in Chromium on ${engine.engine}`, () => {
    let deployment: Deployment
    let browser: Browser
    let page: Page
    let dashboardId: number

    before(async () => {
      ensureBuilt()
      deployment = await startDeployment(engine)
      const board = await deployment.call<{ id: number }>('POST', '/v1/dashboards', {
        header: 'Shop wall',
        customUrl: 'shop-wall',
        enableIncidents: true,
      })
      assert.equal(board.status, 201, JSON.stringify(board.body))
      dashboardId = board.body.id
      browser = await launchChromium()
      page = await (await newContext(browser, deployment.url)).newPage()
      await signInWithKey(page, deployment.ownerKey)
    })

    after(async () => {
      await browser?.close()
      await deployment?.stop()
    })

    const incidents = async () =>
      (await deployment.call<Incident[]>('GET', `/v1/incidents?dashboardId=${dashboardId}`)).body
    const summary = (list: Incident[]) =>
      list.map((incident) => [
        incident.name,
        incident.impact,
        incident.incidentUpdates.map((update) => `${update.status}: ${update.description}`),
      ])
    // A visitor's own browser: the page is cached for 10 s, so a tab beside the dashboard's could read it stale.
    const publicIncidents = async () => {
      const visitor = await newContext(browser, deployment.url)
      const publicPage = await visitor.newPage()
      await publicPage.goto('/dashboards/shop-wall')
      const sections = await publicPage
        .locator('section', { has: publicPage.locator('.incident') })
        .evaluateAll((nodes) =>
          nodes.map((node) => [
            node.querySelector('h2')?.textContent,
            [...node.querySelectorAll('.incident h3')].map((h) => h.textContent),
          ]),
        )
      const text = await publicPage.locator('main').textContent()
      await visitor.close()
      return { sections, text: text ?? '' }
    }

    const actionsOf = (name: string) =>
      page
        .locator('tr', { hasText: name })
        .locator('td.row-actions .actions > *')
        .evaluateAll((nodes) => nodes.map((node) => node.textContent))

    test('creates an incident from the dashboard’s row; the public dashboard shows it', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboards' }).click()
      await page.getByRole('link', { name: 'Incidents of Shop wall' }).click()
      await page.getByRole('heading', { name: 'Dashboard incidents', level: 1 }).waitFor()
      await page.getByText('No dashboard incidents yet.').waitFor()
      await page.getByRole('link', { name: 'New incident' }).click()
      await page.getByLabel('Name', { exact: true }).fill('Checkout errors')
      await page.getByLabel('Impact').selectOption({ label: 'Major' })
      await page.getByLabel('Status').selectOption('INVESTIGATING')
      // A first update the API refuses: its message shows in that field's box, and goes once it is edited.
      const firstUpdate = page.getByLabel('First update')
      const firstUpdateField = page.locator('.field', { has: firstUpdate })
      await firstUpdate.fill('x'.repeat(10_001))
      await page.getByRole('button', { name: 'Create incident' }).click()
      // The form's own message comes with the field's, so the field is read once it shows.
      await page.locator('.alert-error', { hasText: 'must NOT have more than 10000 characters' }).waitFor()
      assert.deepEqual(
        [
          await firstUpdateField.locator('.field-error').allTextContents(),
          await firstUpdate.getAttribute('aria-invalid'),
        ],
        [['must NOT have more than 10000 characters'], 'true'],
      )
      await capture(page, 'dashboard-incident-form-error')
      await firstUpdate.fill('Payments fail.')
      await firstUpdateField.locator('.field-error').waitFor({ state: 'detached' })
      assert.equal(await firstUpdate.getAttribute('aria-invalid'), 'false')
      await capture(page, 'dashboard-incident-form', { narrow: true })
      await page.getByRole('button', { name: 'Create incident' }).click()
      const row = page.locator('tr', { hasText: 'Checkout errors' })
      await row.waitFor()
      assert.deepEqual(
        await row.locator('td').evaluateAll((cells) => cells.slice(0, 3).map((cell) => cell.textContent)),
        ['Checkout errors', 'Major', 'INVESTIGATING'],
      )
      assert.equal(await row.locator('td:nth-child(5)').textContent(), 'Ongoing')
      await capture(page, 'dashboard-incidents', { narrow: true })
      assert.deepEqual(summary(await incidents()), [
        ['Checkout errors', 'MAJOR', ['INVESTIGATING: Payments fail.']],
      ])

      const shown = await publicIncidents()
      assert.deepEqual(shown.sections, [['Ongoing incidents', ['Checkout errors']]])
      assert.match(shown.text, /Payments fail\./)
    })

    test('posts, edits and deletes updates; a new update’s status follows the latest until one is chosen or a message begun', async () => {
      await page.goto(`/settings/dashboard-incidents?dashboard=${dashboardId}`)
      await page.locator('tr', { hasText: 'Checkout errors' }).getByRole('link', { name: 'Edit' }).click()
      await page.getByRole('heading', { name: 'Checkout errors', level: 1 }).waitFor()
      const post = page.getByRole('form', { name: 'Post an update' })
      const postStatus = () => post.getByLabel('Status').inputValue()
      assert.equal(await postStatus(), 'INVESTIGATING')
      await post.getByLabel('Status').selectOption('IDENTIFIED')
      await post.getByLabel('Message').fill('A bad deploy.')
      assert.equal(await post.getByLabel('Notify subscribers').count(), 0)
      await post.getByRole('button', { name: 'Post update' }).click()
      const timeline = page.locator('ol.timeline > li')
      await timeline.filter({ hasText: 'A bad deploy.' }).waitFor()
      await capture(page, 'dashboard-incident', { narrow: true })

      await timeline
        .filter({ hasText: 'A bad deploy.' })
        .getByRole('button', { name: /^Edit the update/ })
        .click()
      const edit = page.getByRole('form', { name: /^Edit the update/ })
      await edit.getByLabel('Status').selectOption('MONITORING')
      await edit.getByLabel('Message').fill('A bad deploy of v42.')
      await edit.getByRole('button', { name: 'Save update' }).click()
      // The form's own message would match too: the saved text counts once the form is gone.
      await edit.waitFor({ state: 'detached' })
      await timeline.filter({ hasText: 'A bad deploy of v42.' }).waitFor()
      // The latest update now says MONITORING: so does the form, once the list is read again.
      assert.equal(await postStatus(), 'MONITORING')

      // Once a message is begun, its status stays put when the list is read again.
      await post.getByLabel('Message').fill('Still watching.')
      await timeline
        .filter({ hasText: 'A bad deploy of v42.' })
        .getByRole('button', { name: /^Edit the update/ })
        .click()
      await edit.getByLabel('Status').selectOption('IDENTIFIED')
      await edit.getByRole('button', { name: 'Save update' }).click()
      await timeline
        .filter({ hasText: 'A bad deploy of v42.' })
        .locator('.chip', { hasText: 'IDENTIFIED' })
        .waitFor()
      assert.equal(await postStatus(), 'MONITORING')

      // A status chosen in the form stays when the list is read again.
      await post.getByLabel('Status').selectOption('RESOLVED')
      page.once('dialog', (dialog) => void dialog.accept())
      await timeline
        .filter({ hasText: 'Payments fail.' })
        .getByRole('button', { name: /^Delete the update/ })
        .click()
      await timeline.filter({ hasText: 'Payments fail.' }).waitFor({ state: 'detached' })
      assert.equal(await postStatus(), 'RESOLVED')
      assert.deepEqual(summary(await incidents()), [
        ['Checkout errors', 'MAJOR', ['IDENTIFIED: A bad deploy of v42.']],
      ])
    })

    test('closes the incident: the public dashboard lists it as recent; then deletes it', async () => {
      await page.goto(`/settings/dashboard-incidents?dashboard=${dashboardId}`)
      const row = page.locator('tr', { hasText: 'Checkout errors' })
      await row.getByRole('button', { name: 'Close' }).click()
      await row.getByRole('status').filter({ hasText: 'Closed.' }).waitFor()
      await page.waitForFunction(
        () => document.querySelector('tbody tr td:nth-child(5)')?.textContent !== 'Ongoing',
      )
      const [closed] = await incidents()
      assert.equal(typeof closed?.stoppedAt, 'string')
      // Ended, it offers no Close: the row says so in its place.
      assert.deepEqual(await actionsOf('Checkout errors'), ['Edit', 'Ended', 'Delete'])
      assert.deepEqual((await publicIncidents()).sections, [['Recent incidents', ['Checkout errors']]])

      page.once('dialog', (dialog) => void dialog.accept())
      await row.getByRole('button', { name: 'Delete Checkout errors' }).click()
      await page.getByText('No dashboard incidents yet.').waitFor()
      assert.deepEqual(await incidents(), [])
    })

    test('an ended incident offers no Close; one whose end is still ahead does, and reads as ongoing until resolved', async () => {
      const hour = 3_600_000
      const at = (offset: number) => new Date(Date.now() + offset).toISOString()
      const ends = { old: at(-hour), planned: at(hour), fixed: at(hour) }
      for (const [name, stoppedAt, status] of [
        ['Old outage', ends.old, 'MAINTENANCE'],
        ['Planned work', ends.planned, 'MAINTENANCE'],
        // Resolved by its update before the end it was planned with.
        ['Fixed early', ends.fixed, 'RESOLVED'],
      ] as const) {
        const made = await deployment.call('POST', '/v1/incidents', {
          name,
          impact: 'MAINTENANCE',
          dashboardId,
          startedAt: at(-2 * hour),
          stoppedAt,
          incidentUpdates: [{ status, description: `${name}.` }],
        })
        assert.equal(made.status, 200, JSON.stringify(made.body))
      }
      await page.goto(`/settings/dashboard-incidents?dashboard=${dashboardId}`)
      await page.locator('tr', { hasText: 'Planned work' }).waitFor()
      assert.deepEqual(
        [await actionsOf('Old outage'), await actionsOf('Planned work')],
        [
          ['Edit', 'Ended', 'Delete'],
          ['Edit', 'Close', 'Delete'],
        ],
      )
      // An end still ahead is no end yet: the Ended column says so. Times are the account's zone's (UTC).
      const shown = (iso: string) =>
        page.evaluate(
          (at) =>
            new Intl.DateTimeFormat(undefined, {
              timeZone: 'UTC',
              year: 'numeric',
              month: 'short',
              day: 'numeric',
              hour: '2-digit',
              minute: '2-digit',
            }).format(new Date(at)),
          iso,
        )
      const endedOf = (name: string) =>
        page.locator('tr', { hasText: name }).locator('td[data-label="Ended"]').textContent()
      assert.deepEqual(
        [await endedOf('Old outage'), await endedOf('Planned work'), await endedOf('Fixed early')],
        [
          await shown(ends.old),
          `Ongoing, ends ${await shown(ends.planned)}`,
          `Resolved, ends ${await shown(ends.fixed)}`,
        ],
      )
      await capture(page, 'dashboard-incidents-ended')

      // The public dashboard words each end as the list does.
      const shownPublicly = await publicIncidents()
      assert.deepEqual(
        shownPublicly.sections.map(([title, names]) => [title, [...(names as string[])].sort()]),
        [
          ['Ongoing incidents', ['Planned work']],
          ['Recent incidents', ['Fixed early', 'Old outage']],
        ],
      )
      assert.match(shownPublicly.text, /Planned workMaintenance · started [^·]+ · ends /)
      assert.match(shownPublicly.text, /Old outageMaintenance · started [^·]+ · stopped /)

      // A dashboard's update may be MAINTENANCE: the next one offers it, as the latest's status.
      await page.locator('tr', { hasText: 'Planned work' }).getByRole('link', { name: 'Edit' }).click()
      const status = page.getByRole('form', { name: 'Post an update' }).getByLabel('Status')
      await status.waitFor()
      assert.deepEqual(
        [await status.inputValue(), await status.locator('option:checked').textContent()],
        ['MAINTENANCE', 'MAINTENANCE'],
      )
    })
  })
}
