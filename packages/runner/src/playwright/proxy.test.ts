import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { after, before, describe, test } from 'node:test'
import { Scrubber } from '@svc/core'
import { type RecordingProxy, startRecordingProxy } from '../testing/recording-proxy.ts'
import { runAutomationCheck, runBrowserCheck, runMultiStepCheck } from './index.ts'
import { playwrightProxyOf } from './proxy.ts'
import {
  artifactBytes,
  browserTestsSkipReason,
  html,
  PlaywrightPool,
  type Site,
  scriptTestContext,
  startSite,
} from './testing.ts'
import type { ScriptJob } from './types.ts'

test('playwrightProxyOf: HTTPS_PROXY else HTTP_PROXY, credentials apart, NO_PROXY as bypass rules', () => {
  assert.equal(playwrightProxyOf(undefined), null)
  assert.equal(playwrightProxyOf({ noProxy: 'example.com' }), null)
  assert.deepEqual(playwrightProxyOf({ httpProxy: 'http://proxy:3128' }), { server: 'http://proxy:3128' })
  assert.deepEqual(
    playwrightProxyOf({ httpProxy: 'http://plain:1', httpsProxy: 'https://ada:p%40ss%3Aw0rd@secure:8443/' }),
    { server: 'https://secure:8443', username: 'ada', password: 'p@ss:w0rd' },
  )
  assert.deepEqual(
    playwrightProxyOf({
      httpProxy: 'http://proxy:3128',
      noProxy: 'Example.com, .internal *.corp.example other:8080 10.0.0.0/8 192.168.1.1 ::1 [fd00::1]:443',
    })?.bypass,
    [
      'example.com',
      '.example.com',
      'internal',
      '.internal',
      'corp.example',
      '.corp.example',
      'other:8080',
      '.other:8080',
      '10.0.0.0/8',
      '192.168.1.1',
      '[::1]',
      '[fd00::1]:443',
    ].join(','),
  )
  assert.equal(
    playwrightProxyOf({ httpProxy: 'http://proxy:3128', noProxy: 'a.example, *' }),
    null,
    '* is no proxy',
  )
  assert.throws(() => playwrightProxyOf({ httpProxy: 'not a url' }))
})

const skip = browserTestsSkipReason()

describe('script checks through a forward proxy', { skip }, () => {
  let site: Site
  let proxy: RecordingProxy
  let other: RecordingProxy
  let guarded: RecordingProxy
  const credentials = { username: 'ada', password: 'pr0xy-s3cret-7c1d' }
  const pool = new PlaywrightPool({ concurrency: 2 })
  const { ctx, cleanup } = scriptTestContext(pool)
  const siteHost = () => new URL(site.url).host
  const job = (script: string, extra: Partial<ScriptJob> = {}): ScriptJob => ({
    name: 'Proxied',
    runLocation: 'office',
    script,
    environmentVariables: [{ key: 'SITE', value: site.url }],
    ...extra,
  })
  const pageScript = `import { test, expect } from '@playwright/test'
test('page', async ({ page }) => {
  await page.goto(process.env.SITE + '/page')
  await expect(page.locator('h1')).toHaveText('Hello')
})
`
  /**
   * What a proxy forwarded to the site (a tunnel's requests by their first line), leaving out the
   * favicon Chromium may ask for after a page.
   */
  const forwarded = (through: RecordingProxy) =>
    through.requests
      .filter((r) => r.host === siteHost() && r.path !== '/favicon.ico')
      .map((r) =>
        r.method === 'CONNECT' ? r.bytes.toString('latin1').split('\r\n')[0] : `${r.method} ${r.path}`,
      )

  before(async () => {
    site = await startSite({ '/page': html('<h1>Hello</h1>'), '/api': html('api') })
    proxy = await startRecordingProxy()
    other = await startRecordingProxy()
    guarded = await startRecordingProxy({ credentials })
  })
  after(async () => {
    await pool.close()
    await Promise.all([site.close(), proxy.close(), other.close(), guarded.close()])
    cleanup()
  })

  test('a browser check’s page goes through the proxy, loopback targets included', async () => {
    proxy.requests.length = 0
    const result = await runBrowserCheck(job(pageScript), { ...ctx(), proxy: { httpProxy: proxy.url } })
    assert.equal(result.error, null, result.error?.message)
    assert.deepEqual(forwarded(proxy), ['GET /page'])
    assert.equal(proxy.requests[0]?.host, siteHost())
  })

  test('NO_PROXY becomes bypass: a bypassed target is reached directly', async () => {
    proxy.requests.length = 0
    const before = site.requests.length
    const result = await runBrowserCheck(job(pageScript), {
      ...ctx(),
      proxy: { httpProxy: proxy.url, noProxy: '127.0.0.1' },
    })
    assert.equal(result.error, null, result.error?.message)
    assert.deepEqual(proxy.requests, [], 'nothing went through the proxy')
    assert.deepEqual(
      site.requests.slice(before).map((r) => r.url),
      ['/page'],
      'the site was asked directly',
    )
  })

  test('credentials answer the proxy’s 407 and never reach the result, logs or trace', async () => {
    const password = encodeURIComponent(credentials.password)
    const c = ctx()
    const result = await runBrowserCheck(
      job(`import { readFileSync } from 'node:fs'
import { test, expect } from '@playwright/test'
test('page', async ({ page }) => {
  console.log(readFileSync(process.env.SVC_RUN_CONFIG, 'utf8'))
  await page.goto(process.env.SITE + '/page')
  await expect(page.locator('h1')).toHaveText('Goodbye', { timeout: 500 })
})
`),
      { ...c, proxy: { httpProxy: guarded.url.replace('://', `://ada:${password}@`) } },
    )
    assert.match(result.error?.message ?? '', /Goodbye/, 'the page loaded and the assertion failed')
    assert.ok(
      result.checkResult.logs.some((entry) => entry.text.includes('"proxy":{')),
      'the script logged the run’s proxy settings',
    )
    assert.ok(guarded.refused.length >= 1, 'Chromium was first refused with 407')
    const expected = `Basic ${Buffer.from(`ada:${credentials.password}`).toString('base64')}`
    assert.deepEqual(forwarded(guarded), ['GET /page'])
    assert.match(
      guarded.requests[0]?.bytes.toString('latin1') ?? '',
      new RegExp(`Proxy-Authorization: ${expected}`, 'i'),
    )
    assert.ok(result.checkResult.traces.length >= 1 && result.checkResult.screenshots.length >= 1)
    const stored = [
      Buffer.from(JSON.stringify(result)),
      ...artifactBytes(c.artifactsDir).map((entry) => entry.data),
    ]
    for (const form of new Scrubber([credentials.password]).forms)
      for (const bytes of stored) assert.ok(!bytes.includes(form), form)
  })

  test('one job’s proxy credentials are not another’s on the shared browser', async () => {
    guarded.requests.length = 0
    const password = encodeURIComponent(credentials.password)
    const [withCredentials, without] = await Promise.all([
      runBrowserCheck(job(pageScript), {
        ...ctx(),
        proxy: { httpProxy: guarded.url.replace('://', `://ada:${password}@`) },
      }),
      runBrowserCheck(job(pageScript), { ...ctx(), proxy: { httpProxy: guarded.url } }),
    ])
    assert.equal(withCredentials.error, null, withCredentials.error?.message)
    assert.equal(without.hasFailures, true)
    assert.deepEqual(forwarded(guarded), ['GET /page'], 'only the run with credentials got through')
  })

  test('a multi-step check’s request calls go through the proxy', async () => {
    proxy.requests.length = 0
    const result = await runMultiStepCheck(
      job(`import { test, expect } from '@playwright/test'
test('api', async ({ request, playwright }) => {
  expect((await request.get(process.env.SITE + '/api')).status()).toBe(200)
  const own = await playwright.request.newContext()
  expect((await own.get(process.env.SITE + '/api?own')).status()).toBe(200)
  await own.dispose()
})
`),
      { ...ctx(), proxy: { httpProxy: proxy.url } },
    )
    assert.equal(result.error, null, result.error?.message)
    // Playwright's request client tunnels every request, http:// too, with CONNECT.
    assert.deepEqual(forwarded(proxy), [
      `CONNECT ${siteHost()} HTTP/1.1`,
      'GET /api HTTP/1.1',
      `CONNECT ${siteHost()} HTTP/1.1`,
      'GET /api?own HTTP/1.1',
    ])
  })

  test('a plain script’s browser, launched with or without its own proxy', async () => {
    proxy.requests.length = 0
    other.requests.length = 0
    const result = await runBrowserCheck(
      job(
        `const { chromium } = require('playwright')
;(async () => {
  const browser = await chromium.launch()
  const page = await browser.newPage()
  await page.goto(process.env.SITE + '/page?run')
  await browser.close()
  const own = await chromium.launch({ proxy: { server: process.env.OTHER } })
  const second = await own.newPage()
  await second.goto(process.env.SITE + '/page?own')
  await own.close()
})()
`,
        {
          environmentVariables: [
            { key: 'SITE', value: site.url },
            { key: 'OTHER', value: other.url },
          ],
        },
      ),
      { ...ctx(), proxy: { httpProxy: proxy.url } },
    )
    assert.equal(result.error, null, result.error?.message)
    assert.equal(result.checkResult.mode, 'script')
    assert.deepEqual(forwarded(proxy), ['GET /page?run'])
    assert.deepEqual(forwarded(other), ['GET /page?own'], 'the script’s own proxy wins')
  })

  test('an AUTOMATION suite goes through the proxy unless its config names its own', async () => {
    proxy.requests.length = 0
    other.requests.length = 0
    const suite = (use: string) => [
      {
        path: 'playwright.config.ts',
        content: `import { defineConfig } from '@playwright/test'
export default defineConfig({ testDir: 'tests', use: { ${use} } })
`,
      },
      {
        path: 'tests/home.spec.ts',
        content: `import { test, expect } from '@playwright/test'
test('home', async ({ page, request }) => {
  await page.goto(process.env.SITE + '/page')
  await expect(page.locator('h1')).toHaveText('Hello')
  expect((await request.get(process.env.SITE + '/api')).ok()).toBe(true)
})
`,
      },
    ]
    const run = (use: string) =>
      runAutomationCheck(
        {
          name: 'Suite',
          runLocation: 'office',
          dependencies: suite(use),
          environmentVariables: job('').environmentVariables,
        },
        { ...ctx(), proxy: { httpProxy: proxy.url } },
      )
    const plain = await run(`baseURL: 'http://unused.example'`)
    assert.equal(plain.error, null, plain.error?.message)
    assert.deepEqual(forwarded(proxy), ['GET /page', `CONNECT ${siteHost()} HTTP/1.1`, 'GET /api HTTP/1.1'])
    proxy.requests.length = 0
    const own = await run(`proxy: { server: ${JSON.stringify(other.url)} }`)
    assert.equal(own.error, null, own.error?.message)
    assert.deepEqual(forwarded(proxy), [])
    assert.deepEqual(forwarded(other), ['GET /page', `CONNECT ${siteHost()} HTTP/1.1`, 'GET /api HTTP/1.1'])
  })
})

describe('a run without a proxy', { skip }, () => {
  const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy }
  let proxy: RecordingProxy
  let server: Server
  let pool: PlaywrightPool

  before(async () => {
    proxy = await startRecordingProxy()
    // Chromium proxies loopback only when told to: the target is on this host's other address.
    const address = Object.values(networkInterfaces())
      .flat()
      .find((info) => info && !info.internal && info.family === 'IPv4')?.address
    assert.ok(address, 'this test needs a non-loopback IPv4 address on this host')
    server = createServer(html('<h1>Hello</h1>'))
    await new Promise<void>((done) => server.listen(0, address, done))
    process.env.HTTP_PROXY = proxy.url
    process.env.http_proxy = proxy.url
    pool = new PlaywrightPool({ concurrency: 1 })
  })
  after(async () => {
    Object.assign(process.env, saved)
    for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name]
    await pool.close()
    server.closeAllConnections()
    server.close()
    await proxy.close()
  })

  test('ignores the process’s HTTP_PROXY: a data-center run stays direct, like its URL checks', async () => {
    const { ctx, cleanup } = scriptTestContext(pool)
    const { address, port } = server.address() as AddressInfo
    try {
      const result = await runBrowserCheck(
        {
          name: 'direct',
          runLocation: 'local',
          script: `import { test, expect } from '@playwright/test'
test('page', async ({ page }) => {
  await page.goto('http://${address}:${port}/page')
  await expect(page.locator('h1')).toHaveText('Hello')
})
`,
        },
        ctx(),
      )
      assert.equal(result.error, null, result.error?.message)
      assert.deepEqual(proxy.requests, [], 'the shared Chromium sent nothing through the environment’s proxy')
    } finally {
      cleanup()
    }
  })
})
