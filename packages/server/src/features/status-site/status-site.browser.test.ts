import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { missingComponent } from '@svc/core/testing'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { type Browser, chromium, type Page } from 'playwright-core'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

const CHROMIUM = process.env.SVC_CHROMIUM_PATH || '/usr/bin/chromium'
const skip = existsSync(CHROMIUM)
  ? false
  : missingComponent(`Chromium (${CHROMIUM})`, 'status page browser tests', 'apt-get install chromium')

const LIGHT_BG = 'rgb(250, 250, 250)'
const DARK_BG = 'rgb(16, 20, 24)'
const palette = (body: string, text: string) => ({
  bodyBackgroundColor: body,
  headerBackgroundColor: body,
  headerFontColor: text,
  titleFontColor: text,
  bodyFontColor: text,
  bodyFontColorMuted: text,
  navigationFontColor: text,
  linkFontColor: text,
  cardBackgroundColor: body,
  borderColor: '#888888',
  primaryButtonBackgroundColor: text,
  primaryButtonFontColor: body,
})

const [sqlite] = testEngines()

describe('the public status page in a real browser', {
  skip,
}, () => {
  let t: TestApp
  let browser: Browser
  let origin = ''
  let assets = ''
  let token = ''
  const shots = mkdtempSync(join(tmpdir(), 'svc-status-page-'))
  const logos = createServer((request, response) => {
    const color = request.url === '/dark.svg' ? '#ffffff' : '#111111'
    response.setHeader('content-type', 'image/svg+xml')
    response.end(
      `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32"><rect width="120" height="32" fill="${color}"/></svg>`,
    )
  })

  before(async () => {
    assets = (await listenOnLoopback(logos)).url
    t = await createTestApp(sqlite!)
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    const service = async (name: string) =>
      json(await t.call({ method: 'POST', url: '/v1/status-pages/services', payload: { name } })).id
    const [api, web, db] = [await service('API'), await service('Website'), await service('Database')]
    const page = json(
      await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: {
          name: 'Acme status',
          url: 'acme',
          description: 'Live status of Acme’s services',
          logo: `${assets}/light.svg`,
          logoDark: `${assets}/dark.svg`,
          redirectTo: 'https://acme.example.com',
          defaultTheme: 'AUTO',
          themeColors: { light: palette('#fafafa', '#1a1a1a'), dark: palette('#101418', '#f0f0f0') },
          cards: [
            { name: 'Platform', services: [{ id: api }, { id: db }] },
            { name: 'Product', services: [{ id: web }] },
          ],
        },
      }),
    )
    await t.call({
      method: 'POST',
      url: `/v3/status-pages/${page.id}/incidents`,
      payload: {
        name: 'Database failover',
        componentImpacts: [{ componentId: db, status: 'PARTIAL_OUTAGE' }],
        incidentUpdates: [
          {
            description: 'Writes fail for some customers.',
            status: 'INVESTIGATING',
            publicIncidentUpdateDate: new Date(Date.now() - 20 * 60_000).toISOString(),
          },
          { description: 'The primary is being replaced.', status: 'IDENTIFIED' },
        ],
      },
    })
    await t.call({
      method: 'POST',
      url: `/v3/status-pages/${page.id}/incidents`,
      payload: {
        name: 'Slow website',
        incidentUpdates: [
          {
            description: 'Pages were slow.',
            status: 'INVESTIGATING',
            publicIncidentUpdateDate: new Date(Date.now() - 3 * 86_400_000).toISOString(),
          },
          {
            description: 'A cache node was replaced.',
            status: 'RESOLVED',
            publicIncidentUpdateDate: new Date(Date.now() - 3 * 86_400_000 + 45 * 60_000).toISOString(),
          },
        ],
      },
    })
    const hidden = json(
      await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: { name: 'Internal', url: 'internal', isPrivate: true, cards: [] },
      }),
    )
    token = json(
      await t.call({
        method: 'POST',
        url: `/v3/status-pages/${hidden.id}/access-tokens`,
        payload: { name: 'browser' },
      }),
    ).token
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    })
  })
  after(async () => {
    await browser?.close()
    await t?.close()
    logos.close()
    rmSync(shots, { recursive: true, force: true })
  })

  /** Opens `path` in a fresh context of `colorScheme`, failing the test on any console error or failed request. */
  async function visit(path: string, colorScheme: 'light' | 'dark', javaScriptEnabled = true) {
    const context = await browser.newContext({
      colorScheme,
      javaScriptEnabled,
      viewport: { width: 1000, height: 900 },
    })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`))
    const response = await page.goto(`${origin}${path}`)
    return { page, context, response, problems }
  }

  const backgroundOf = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor)

  test('light and dark: themed, the incident visible, the logo for the scheme, no console errors', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, context, response, problems } = await visit('/status/acme', scheme)
      assert.equal(response?.status(), 200)
      await page.getByRole('heading', { name: 'Database failover' }).waitFor()
      assert.equal(await page.getByRole('heading', { name: 'Database failover' }).isVisible(), true)
      assert.equal(await page.getByText('The primary is being replaced.').isVisible(), true)
      assert.equal(await page.getByRole('heading', { level: 2, name: 'Partial outage' }).isVisible(), true)
      assert.equal(
        await page.getByRole('heading', { name: 'Slow website' }).isVisible(),
        true,
        'a past incident',
      )
      const database = page.locator('li.service', { hasText: 'Database' })
      assert.equal(await database.getByText('Partial outage', { exact: true }).isVisible(), true)
      const website = page.locator('li.service', { hasText: 'Website' })
      assert.equal(await website.getByText('Operational', { exact: true }).isVisible(), true)
      assert.equal(await backgroundOf(page), scheme === 'light' ? LIGHT_BG : DARK_BG)
      const logo = page.getByRole('img', { name: 'Acme status logo' })
      await logo.waitFor()
      const src = await logo.evaluate((img) => (img as HTMLImageElement).currentSrc)
      assert.equal(src, `${assets}/${scheme === 'light' ? 'light' : 'dark'}.svg`)
      assert.equal(
        await page.getByRole('img', { name: /API: no uptime data yet over the last 90 days/ }).count(),
        1,
      )
      assert.equal(await page.locator('html').getAttribute('lang'), 'en')
      const shot = await page.screenshot({ fullPage: true })
      assert.deepEqual([...shot.subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''), 'PNG')
      writeFileSync(join(shots, `status-page-${scheme}.png`), shot)
      assert.deepEqual(problems, [])
      await context.close()
    }
  })

  test('reads and subscribes without JavaScript', async () => {
    const { page, context, problems } = await visit('/status/acme', 'light', false)
    assert.equal(await page.getByRole('heading', { name: 'Database failover' }).isVisible(), true)
    await page.getByLabel('Get incident updates by email').fill('reader@example.com')
    await page.getByRole('button', { name: 'Subscribe' }).click()
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor()
    assert.deepEqual(problems, [])
    await context.close()
  })

  test('a private page is refused as unknown without its token and shown with it (then by cookie)', async () => {
    const refused = await visit('/status/internal', 'light')
    assert.equal(refused.response?.status(), 404)
    assert.equal(await refused.page.getByRole('heading', { name: 'Page not found' }).isVisible(), true)
    assert.equal(await refused.page.getByText('Internal').count(), 0)
    await refused.context.close()

    const allowed = await visit(`/status/internal?token=${token}`, 'dark')
    assert.equal(allowed.response?.status(), 200)
    assert.equal(await allowed.page.getByRole('heading', { level: 1, name: 'Internal' }).isVisible(), true)
    const again = await allowed.page.goto(`${origin}/status/internal`)
    assert.equal(again?.status(), 200, 'the token is remembered in a cookie')
    assert.deepEqual(allowed.problems, [])
    await allowed.context.close()
  })
})
