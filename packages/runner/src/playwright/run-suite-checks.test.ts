import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { REDACTED } from '@svc/core'
import { runAutomationCheck, runMultiStepCheck } from './index.ts'
import {
  artifactBytes,
  browserTestsSkipReason,
  html,
  PlaywrightPool,
  type Site,
  scriptTestContext,
  startSite,
  videoTestsSkipReason,
  WEBM_MAGIC,
} from './testing.ts'

describe('multi-step checks', () => {
  let api: Site
  const items: { id: number; name: string }[] = [{ id: 1, name: 'first' }]
  // No browser needed: API steps run on Playwright's request fixture alone.
  const pool = new PlaywrightPool({ chromiumPath: '/nonexistent/chromium' })
  const { ctx, cleanup } = scriptTestContext(pool)

  before(async () => {
    api = await startSite({
      '/api/items': (request, response) => {
        response.setHeader('content-type', 'application/json')
        if (request.headers.authorization !== 'Bearer api-key-9f8e7d') {
          response.statusCode = 401
          return response.end('{"error":"unauthorized"}')
        }
        if (request.method === 'POST') {
          let body = ''
          request.on('data', (chunk) => {
            body += chunk
          })
          request.on('end', () => {
            const item = { id: items.length + 1, name: JSON.parse(body).name }
            items.push(item)
            response.statusCode = 201
            response.end(JSON.stringify(item))
          })
          return
        }
        response.end(JSON.stringify(items))
      },
    })
  })
  after(async () => {
    await pool.close()
    await api.close()
    cleanup()
  })

  const script = `import { test, expect } from '@playwright/test'

test('items API', async ({ request }) => {
  const headers = { authorization: 'Bearer ' + process.env.API_KEY }
  await test.step('create an item', async () => {
    const created = await request.post(process.env.API + '/api/items', { headers, data: { name: 'second' } })
    expect(created.status()).toBe(201)
  })
  await test.step('list the items', async () => {
    const list = await request.get(process.env.API + '/api/items', { headers })
    expect(list.ok()).toBe(true)
    expect((await list.json()).map((item) => item.name)).toContain(process.env.EXPECTED)
  })
})
`

  test('API steps run with the request fixture; steps, timings and requests are reported', async () => {
    const result = await runMultiStepCheck(
      {
        name: 'Items API',
        runLocation: 'local',
        script,
        environmentVariables: [
          { key: 'API', value: api.url },
          { key: 'API_KEY', value: 'api-key-9f8e7d', locked: true },
          { key: 'EXPECTED', value: 'second' },
        ],
      },
      ctx(),
    )
    assert.equal(result.error, null, result.error?.message)
    assert.equal(result.hasFailures, false)
    const [itemsTest] = result.checkResult.tests
    assert.deepEqual(
      itemsTest?.steps.map((s) => [s.title, s.status]),
      [
        ['create an item', 'passed'],
        ['list the items', 'passed'],
      ],
    )
    for (const step of itemsTest?.steps ?? []) assert.ok(step.duration >= 0)
    assert.deepEqual(
      result.checkResult.network.map((n) => [n.method, n.url.replace(api.url, ''), n.status, n.resourceType]),
      [
        ['POST', '/api/items', 201, 'api'],
        ['GET', '/api/items', 200, 'api'],
      ],
    )
    for (const entry of result.checkResult.network) {
      assert.equal(entry.requestHeaders?.authorization, REDACTED)
      assert.equal(typeof entry.duration, 'number')
    }
    assert.ok(!JSON.stringify(result).includes('api-key-9f8e7d'))
    assert.equal(result.responseTime, itemsTest?.duration)
  })

  test('a failing step fails the check and names the step', async () => {
    const result = await runMultiStepCheck(
      {
        name: 'Items API',
        runLocation: 'local',
        script,
        environmentVariables: [
          { key: 'API', value: api.url },
          { key: 'API_KEY', value: 'wrong' },
          { key: 'EXPECTED', value: 'second' },
        ],
      },
      ctx(),
    )
    assert.equal(result.hasFailures, true)
    assert.equal(result.error?.type, 'ASSERTION')
    const steps = result.checkResult.tests[0]?.steps ?? []
    assert.deepEqual(
      steps.map((s) => [s.title, s.status]),
      [['create an item', 'failed']],
    )
    assert.match(steps[0]?.error?.message ?? '', /Expected: 201\s+Received: 401/)
    assert.match(result.checkResult.errors[0]?.stack ?? '', /multi-step\.spec\.js:7:/)
  })
})

describe('AUTOMATION checks (a Playwright project)', { skip: browserTestsSkipReason() }, () => {
  let site: Site
  const pool = new PlaywrightPool()
  const { ctx, cleanup } = scriptTestContext(pool)
  before(async () => {
    site = await startSite({
      '/': html('<h1>Shop</h1><a href="/cart">Cart</a>'),
      '/cart': html('<h1>Cart</h1>'),
    })
  })
  after(async () => {
    await pool.close()
    await site.close()
    cleanup()
  })

  const project = [
    {
      path: 'playwright.config.ts',
      content: `import { defineConfig } from '@playwright/test'
export default defineConfig({ testDir: './tests', use: { baseURL: process.env.SITE } })
`,
    },
    {
      path: 'tests/home.spec.ts',
      content: `import { test, expect } from '@playwright/test'
test('home shows the shop @smoke', async ({ page }) => {
  await page.goto('/')
  await expect(page.locator('h1')).toHaveText('Shop')
})
test('home shows a sale banner', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByText('Sale')).toBeVisible({ timeout: 500 })
})
`,
    },
    {
      path: 'tests/cart.spec.ts',
      content: `import { test, expect } from '@playwright/test'
test.describe('cart', () => {
  test('opens from the home page @smoke', async ({ page }) => {
    await page.goto('/')
    await page.click('text=Cart')
    await expect(page.locator('h1')).toHaveText('Cart')
  })
})
`,
    },
  ]

  test('runs the whole suite with its config and reports every test', async () => {
    const c = ctx()
    const result = await runAutomationCheck(
      {
        name: 'Shop suite',
        runLocation: 'local',
        dependencies: project,
        environmentVariables: [{ key: 'SITE', value: site.url }],
      },
      c,
    )
    assert.equal(result.hasFailures, true)
    assert.equal(result.error?.type, 'ASSERTION')
    assert.match(result.error?.message ?? '', /^home shows a sale banner: /)
    const outcomes = result.checkResult.tests.map((t) => [t.file, t.titlePath.join(' › '), t.status]).sort()
    assert.deepEqual(outcomes, [
      ['tests/cart.spec.ts', 'cart › opens from the home page @smoke', 'passed'],
      ['tests/home.spec.ts', 'home shows a sale banner', 'failed'],
      ['tests/home.spec.ts', 'home shows the shop @smoke', 'passed'],
    ])
    assert.equal(result.checkResult.traces.length, 3)
    assert.deepEqual(
      result.checkResult.screenshots.map((s) => s.onFailure),
      [true],
    )
  })

  test('grep selects the tests to run', async () => {
    const result = await runAutomationCheck(
      {
        name: 'Shop suite',
        runLocation: 'local',
        dependencies: project,
        grep: '@smoke',
        environmentVariables: [{ key: 'SITE', value: site.url }],
      },
      ctx(),
    )
    assert.equal(result.error, null, result.error?.message)
    assert.deepEqual(result.checkResult.tests.map((t) => t.title).sort(), [
      'home shows the shop @smoke',
      'opens from the home page @smoke',
    ])
  })

  test("the config's screenshot setting is honoured: Playwright's screenshots are the run's artifacts", async () => {
    const c = ctx()
    const result = await runAutomationCheck(
      {
        name: 'Shop suite',
        runLocation: 'local',
        dependencies: [
          {
            path: 'playwright.config.ts',
            content: `import { defineConfig } from '@playwright/test'
export default defineConfig({ testDir: './tests', use: { baseURL: process.env.SITE, screenshot: 'on' } })
`,
          },
          ...project.slice(2),
        ],
        environmentVariables: [{ key: 'SITE', value: site.url }],
      },
      c,
    )
    assert.equal(result.error, null, result.error?.message)
    assert.deepEqual(
      result.checkResult.screenshots.map((s) => [s.path, s.name, s.onFailure]),
      [['screenshot-1.png', 'test-finished-1.png', false]],
    )
    const [shot] = artifactBytes(c.artifactsDir).filter((f) => f.name === 'screenshot-1.png')
    assert.equal(shot?.data.subarray(1, 4).toString(), 'PNG')
  })

  const withVideo = (video: string) => [
    {
      path: 'playwright.config.ts',
      content: `import { defineConfig } from '@playwright/test'
export default defineConfig({ testDir: './tests', use: { baseURL: process.env.SITE, video: '${video}' } })
`,
    },
    ...project.slice(1),
  ]

  test("the config's video setting is honoured: each test's recording is a WebM artifact", {
    skip: videoTestsSkipReason(),
  }, async () => {
    const c = ctx()
    const result = await runAutomationCheck(
      {
        name: 'Shop suite',
        runLocation: 'local',
        dependencies: withVideo('on'),
        environmentVariables: [{ key: 'SITE', value: site.url }],
      },
      c,
    )
    assert.equal(result.checkResult.tests.length, 3)
    const videos = result.checkResult.videos
    assert.deepEqual(
      videos.map((v) => v.path),
      ['video-1.webm', 'video-2.webm', 'video-3.webm'],
    )
    const stored = artifactBytes(c.artifactsDir).filter((f) => f.name.endsWith('.webm'))
    assert.deepEqual(
      stored.map((f) => [f.name, f.data.length]),
      videos.map((v) => [v.path, v.size]),
    )
    for (const file of stored) assert.deepEqual(file.data.subarray(0, 4), WEBM_MAGIC, file.name)
    assert.equal(result.checkResult.artifactsTruncated, false)
  })

  test("video: 'retain-on-failure' keeps the recording of the failing test only", {
    skip: videoTestsSkipReason(),
  }, async () => {
    const c = ctx()
    const result = await runAutomationCheck(
      {
        name: 'Shop suite',
        runLocation: 'local',
        dependencies: withVideo('retain-on-failure'),
        environmentVariables: [{ key: 'SITE', value: site.url }],
      },
      c,
    )
    assert.deepEqual(
      result.checkResult.tests.map((t) => t.failed),
      result.checkResult.tests.map((t) => t.title === 'home shows a sale banner'),
    )
    assert.deepEqual(
      result.checkResult.videos.map((v) => v.path),
      ['video-1.webm'],
    )
    assert.deepEqual(
      artifactBytes(c.artifactsDir)
        .filter((f) => f.name.endsWith('.webm'))
        .map((f) => f.name),
      ['video-1.webm'],
    )
  })

  test('a suite stopped at its time limit names the test that was still running', async () => {
    const result = await runAutomationCheck(
      {
        name: 'slow suite',
        runLocation: 'local',
        // Long enough for the suite to reach 'hangs' on a loaded machine (alone it does in under a second).
        // This test failed at 3, 10, 20 and 60 s, which read as Playwright not reaching the test; it was the
        // stopped test reported as interrupted, which the message then left out (fixed 2026-11-28).
        timeoutMs: 20_000,
        dependencies: [
          {
            path: 'playwright.config.ts',
            content: `export default { testDir: './tests', timeout: 60_000 }\n`,
          },
          {
            path: 'tests/a.spec.ts',
            content: `import { test } from '@playwright/test'
test('quick', async () => {})
test.describe('checkout', () => {
  test('hangs', async () => { await new Promise(() => {}) })
})
`,
          },
        ],
      },
      ctx(),
    )
    assert.equal(result.error?.type, 'TIMEOUT')
    assert.equal(
      result.error?.message,
      'Timed out waiting 20s for the test suite to run (still running: checkout › hangs)',
    )
    assert.deepEqual(
      result.checkResult.tests.map((t) => [t.titlePath.join(' › '), t.status, t.failed]),
      [
        ['quick', 'passed', false],
        ['checkout › hangs', 'interrupted', true],
      ],
    )
  })

  test('a cancelled suite stops at once; it keeps its finished tests, logs and traces and says it was cancelled', async () => {
    const started = Promise.withResolvers<void>()
    const held = await startSite({
      '/': html('<h1>Shop</h1>'),
      '/hold': () => started.resolve(),
    })
    const controller = new AbortController()
    const c = { ...ctx(), signal: controller.signal }
    try {
      const running = runAutomationCheck(
        {
          name: 'cancelled suite',
          runLocation: 'local',
          dependencies: [
            {
              path: 'playwright.config.ts',
              content: `export default { testDir: './tests', timeout: 120_000 }\n`,
            },
            {
              path: 'tests/a.spec.ts',
              content: `import { test, expect } from '@playwright/test'
test('home', async ({ page }) => {
  console.log('home checked')
  await page.goto(${JSON.stringify(held.url)})
  await expect(page.locator('h1')).toHaveText('Shop')
})
test.describe('checkout', () => {
  test('waits', async ({ page }) => {
    await test.step('open the held page', async () => {
      await page.goto(${JSON.stringify(`${held.url}/hold`)}, { timeout: 0 })
    })
    await page.waitForTimeout(120_000)
  })
})
`,
            },
          ],
        },
        c,
      )
      await started.promise
      controller.abort()
      const result = await running
      assert.equal(result.isCancelled, true)
      assert.equal(result.hasFailures, false)
      assert.equal(result.hasErrors, false)
      assert.deepEqual(result.error, {
        type: 'CANCELLED',
        message: 'The run was cancelled (still running: checkout › waits)',
      })
      assert.deepEqual(
        result.checkResult.tests.map((t) => [t.titlePath.join(' › '), t.status]),
        [
          ['home', 'passed'],
          ['checkout › waits', 'interrupted'],
        ],
      )
      assert.ok(result.checkResult.logs.some((entry) => entry.text === 'home checked'))
      assert.ok(result.checkResult.traces.length >= 1, JSON.stringify(result.checkResult.traces))
      assert.equal(
        artifactBytes(c.artifactsDir).filter((f) => f.name.endsWith('.zip')).length,
        result.checkResult.traces.length,
      )
    } finally {
      await held.close()
    }
  })

  // Without a timeout, a run that waits for the slot anyway would hang the file.
  test('a suite cancelled while it waits for a free slot stops at once, without waiting for the slot', {
    timeout: 60_000,
  }, async () => {
    const busy = new PlaywrightPool({ concurrency: 1 })
    const own = scriptTestContext(busy)
    // Another run holds the only slot until this test ends.
    const held = await busy.acquire()
    const controller = new AbortController()
    try {
      const running = runAutomationCheck(
        { name: 'queued suite', runLocation: 'local', dependencies: project },
        { ...own.ctx(), signal: controller.signal },
      )
      controller.abort()
      const result = await running
      assert.equal(result.isCancelled, true)
      assert.equal(result.hasFailures, false)
      assert.equal(result.hasErrors, false)
      assert.deepEqual(result.error, { type: 'CANCELLED', message: 'The run was cancelled' })
      assert.equal(busy.running, 1, 'the held slot is the only one taken')
    } finally {
      held.release()
      assert.equal(busy.running, 0)
      await busy.close()
      own.cleanup()
    }
  })

  test("the suite's own globalTimeout applies, within the run's time limit", async () => {
    const suite = (config: string, timeoutMs?: number) =>
      runAutomationCheck(
        {
          name: 'timed suite',
          runLocation: 'local',
          ...(timeoutMs ? { timeoutMs } : {}),
          dependencies: [
            { path: 'e2e/playwright.config.ts', content: config },
            {
              path: 'e2e/tests/a.spec.ts',
              content: `import { test } from '@playwright/test'
test('takes a while', async () => { await new Promise((resolve) => setTimeout(resolve, 20_000)) })
`,
            },
          ],
          playwrightConfigPath: 'e2e/playwright.config.ts',
        },
        ctx(),
      )
    const own = await suite(
      `import { defineConfig } from '@playwright/test'
export default defineConfig({ testDir: './tests', timeout: 60_000, globalTimeout: 2_000 })
`,
    )
    // On a loaded machine the limit can come before the test has started: the limit is what counts.
    assert.match(own.error?.message ?? '', /^Timed out waiting 2s for the test suite to run\b/)
    const capped = await suite(
      `module.exports = { testDir: './tests', timeout: 60_000, globalTimeout: 600_000 }\n`,
      3000,
    )
    assert.match(capped.error?.message ?? '', /^Timed out waiting 3s for the test suite to run\b/)
  })

  test('a firefox or webkit project fails as unavailable instead of passing in Chromium', async () => {
    const result = await runAutomationCheck(
      {
        name: 'cross-browser',
        runLocation: 'local',
        dependencies: [
          {
            path: 'playwright.config.ts',
            content: `export default { testDir: './tests', projects: [{ name: 'desktop-firefox', use: { browserName: 'firefox' } }] }\n`,
          },
          {
            path: 'tests/a.spec.ts',
            content: `import { test } from '@playwright/test'\ntest('opens', async ({ page }) => { await page.setContent('<p>x</p>') })\n`,
          },
        ],
      },
      ctx(),
    )
    assert.deepEqual(
      result.checkResult.tests.map((t) => [t.title, t.status]),
      [['opens', 'failed']],
    )
    assert.match(
      result.error?.message ?? '',
      /^opens: Error: firefox is not available: only Chromium is available in svc runs/,
    )
  })

  test('a config that does not load fails with its own error, not the stack frames under it', async () => {
    const result = await runAutomationCheck(
      {
        name: 'x',
        runLocation: 'local',
        dependencies: [
          { path: 'playwright.config.ts', content: `export default { testDir: './tests'\n` },
          ...project.slice(1),
        ],
      },
      ctx(),
    )
    assert.equal(result.error?.type, 'SCRIPT')
    assert.equal(
      result.error?.message.split('\n')[0],
      'No tests ran: SyntaxError: playwright.config.ts: Unexpected token, expected "," (2:0)',
    )
    assert.doesNotMatch(result.error?.message ?? '', /\n\s+at /)
  })

  test('a project without its config is refused with a clear message', async () => {
    const result = await runAutomationCheck(
      {
        name: 'x',
        runLocation: 'local',
        dependencies: project.slice(1),
        playwrightConfigPath: 'e2e.config.ts',
      },
      ctx(),
    )
    assert.equal(result.error?.type, 'SCRIPT')
    assert.equal(result.error?.message, "e2e.config.ts is not among the project's files")
  })
})
