import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import type { Browser, Locator, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext, signInWithKey } from './harness.ts'
import { type Deployment, startDeployment } from './server.ts'

interface Snippet {
  id: number
  name: string
  script: string
}

/**
 * Snippets through their settings page (made, edited, deleted in the script editor), and chosen as the setup
 * of an API check (Run now runs it: the target sees what it set) and of a group beside the group's script.
 */

for (const engine of testEngines()) {
  describe(`snippets in Chromium on ${engine.engine}`, () => {
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
        seen.push(request.headers['x-from-snippet'] as string | undefined)
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

    const snippets = async () => (await deployment.call<Snippet[]>('GET', '/v1/snippets')).body

    test('creates a snippet in the script editor and edits it', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Snippets' }).click()
      await page.getByRole('heading', { name: 'Snippets', level: 1 }).waitFor()
      await page.getByText('No snippets yet.').waitFor()
      await page.getByRole('link', { name: 'New snippet' }).click()
      await page.getByLabel('Name', { exact: true }).fill('Tag request')
      await page.getByRole('textbox', { name: 'Script' }).click()
      await page.keyboard.type("request.headers['x-from-snippet'] = 'yes'")
      await capture(page, 'snippet-form', { narrow: true })
      await page.getByRole('button', { name: 'Create snippet' }).click()
      await page.locator('tr', { hasText: 'Tag request' }).waitFor()
      await capture(page, 'snippets', { narrow: true })
      assert.deepEqual(
        (await snippets()).map(({ name, script }) => [name, script]),
        [['Tag request', "request.headers['x-from-snippet'] = 'yes'"]],
      )

      await page.locator('tr', { hasText: 'Tag request' }).getByRole('link', { name: 'Edit' }).click()
      await page.getByLabel('Name', { exact: true }).fill('Tag requests')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.locator('tr', { hasText: 'Tag requests' }).waitFor()
      assert.deepEqual(
        (await snippets()).map(({ name }) => name),
        ['Tag requests'],
      )
    })

    test('an API check runs the setup snippet chosen in its form', async () => {
      const [snippet] = await snippets()
      await page.goto('/checks/new?type=API')
      await page.getByLabel('Name', { exact: true }).fill('Snippet API')
      await page.getByLabel('URL', { exact: true }).fill(targetUrl)
      await page.getByLabel('Setup snippet').selectOption({ label: 'Tag requests' })
      // The pickers take a column of the card, as the form's other selects do; the scripts take it all.
      const card = page.locator('section.card', {
        has: page.getByRole('heading', { name: 'Setup and teardown scripts' }),
      })
      await card.locator('.script-editor').first().waitFor()
      const widthOf = async (locator: Locator) => Math.round((await locator.boundingBox())?.width ?? 0)
      const sizes = {
        card: await widthOf(card),
        setup: await widthOf(page.getByLabel('Setup snippet')),
        teardown: await widthOf(page.getByLabel('Teardown snippet')),
        script: await widthOf(card.locator('.script-editor').first()),
      }
      assert.deepEqual(
        [sizes.setup < sizes.card / 2, sizes.teardown === sizes.setup, sizes.script > sizes.card * 0.8],
        [true, true, true],
        JSON.stringify(sizes),
      )
      await capture(page, 'check-form-api-snippets')
      await page.getByRole('button', { name: 'Run now' }).click()
      const outcome = page.getByRole('status').filter({ hasText: 'not saved yet' })
      await outcome.waitFor()
      assert.match((await outcome.textContent()) ?? '', /passing/i)
      assert.deepEqual(seen, ['yes'])

      await page.getByRole('button', { name: 'Save check' }).click()
      await page.getByRole('heading', { name: 'Snippet API', level: 1 }).waitFor()
      const id = new URL(page.url()).pathname.split('/')[2]
      const saved = await deployment.call<{
        setupSnippetId: number | null
        tearDownSnippetId: number | null
      }>('GET', `/v1/checks/${id}`)
      assert.deepEqual([saved.body.setupSnippetId, saved.body.tearDownSnippetId], [snippet?.id, null])
    })

    test('a group takes a setup snippet, a teardown script and its API checks’ defaults', async () => {
      const [snippet] = await snippets()
      await page.goto('/settings/groups/new')
      await page.getByLabel('Name', { exact: true }).fill('Scripted group')
      await page.getByLabel('Setup snippet').selectOption({ label: 'Tag requests' })
      await page.getByRole('textbox', { name: 'Teardown script' }).click()
      await page.keyboard.type('response.statusCode = 200')
      // The defaults its API checks take.
      await page.getByLabel('Base URL').fill('https://api.example.com/v2')
      await page.getByRole('button', { name: 'Add header' }).click()
      await page.getByLabel('Header 1 name').fill('x-team')
      await page.getByLabel('Header 1 value').fill('payments')
      await page.getByLabel('Basic auth user').fill('robot')
      await page.getByLabel('Basic auth password').fill('s3cret')
      await page.getByRole('button', { name: 'Add assertion' }).click()
      // Its locations are picked from the deployment's, not typed.
      const firstLocation = page.getByRole('group', { name: 'Locations' }).getByRole('checkbox').first()
      await firstLocation.check()
      const location = ((await firstLocation.locator('xpath=..').textContent()) ?? '').trim()
      await capture(page, 'group-form-scripts', { narrow: true })
      await page.getByRole('button', { name: 'Create group' }).click()
      await page.locator('tr', { hasText: 'Scripted group' }).waitFor()
      type Group = {
        id: number
        name: string
        setupSnippetId: number | null
        tearDownSnippetId: number | null
        localSetupScript: string | null
        localTearDownScript: string | null
        apiCheckDefaults: unknown
        locations: string[]
      }
      const groups = (await deployment.call<Group[]>('GET', '/v1/check-groups')).body
      const group = groups.find((entry) => entry.name === 'Scripted group')
      assert.deepEqual(
        [
          group?.setupSnippetId,
          group?.tearDownSnippetId,
          group?.localSetupScript,
          group?.localTearDownScript,
        ],
        [snippet?.id, null, null, 'response.statusCode = 200'],
      )
      assert.deepEqual(group?.locations, [location])
      assert.deepEqual(group?.apiCheckDefaults, {
        url: 'https://api.example.com/v2',
        headers: [{ key: 'x-team', value: 'payments', locked: false }],
        queryParameters: [],
        assertions: [{ source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200' }],
        basicAuth: { username: 'robot', password: 's3cret' },
      })

      // Choosing none again takes the snippet off.
      await page.locator('tr', { hasText: 'Scripted group' }).getByRole('link', { name: 'Edit' }).click()
      assert.equal(await page.getByLabel('Setup snippet').inputValue(), String(snippet?.id))
      await page.getByLabel('Setup snippet').selectOption({ label: 'None' })
      await page.getByRole('button', { name: 'Save' }).click()
      await page.locator('tr', { hasText: 'Scripted group' }).waitFor()
      const edited = (await deployment.call<Group>('GET', `/v1/check-groups/${group?.id}`)).body
      assert.deepEqual(
        [edited.setupSnippetId, edited.localTearDownScript],
        [null, 'response.statusCode = 200'],
      )
      // The defaults were kept by the edit (a PUT replaces the group).
      assert.deepEqual(edited.apiCheckDefaults, group?.apiCheckDefaults)
    })

    test('deletes the snippet', async () => {
      await page.goto('/settings/snippets')
      page.once('dialog', (dialog) => void dialog.accept())
      await page.getByRole('button', { name: 'Delete Tag requests' }).click()
      await page.getByText('No snippets yet.').waitFor()
      assert.deepEqual(await snippets(), [])
    })
  })
}
