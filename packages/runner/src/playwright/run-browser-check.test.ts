import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { REDACTED } from '@svc/core'
import { runBrowserCheck } from './index.ts'
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
import type { ScriptJob } from './types.ts'

const skip = browserTestsSkipReason()

describe('browser checks in Chromium', { skip }, () => {
  let site: Site
  let releaseHold: (() => void) | null = null
  const pool = new PlaywrightPool({ concurrency: 2, maxPages: 10 })
  const { ctx, cleanup } = scriptTestContext(pool)
  const job = (script: string, extra: Partial<ScriptJob> = {}): ScriptJob => ({
    name: 'Login check',
    runLocation: 'eu-west-1',
    script,
    ...extra,
    environmentVariables: [{ key: 'SITE', value: site.url }, ...(extra.environmentVariables ?? [])],
  })

  before(async () => {
    site = await startSite({
      '/login': html(`
        <form action="/welcome" method="get">
          <input id="user" name="user"><input id="password" name="password" type="password">
          <button type="submit">Sign in</button>
        </form>
        <script>console.log('login page ready')</script>`),
      '/welcome': html(`<h1>Welcome</h1>`),
      '/errors': html(
        `<p>oops</p><script>console.error('broken widget'); setTimeout(() => { throw new Error('late failure') })</script>`,
      ),
      '/shift': html(`
        <p id="first" style="font-size:40px">First paragraph of text</p>
        <div id="content" style="height:300px;background:#ccc">Content that moves</div>
        <script>
          // Only after a frame with the first layout was painted: on a slow machine a fixed delay could
          // land before the first paint, and the banner would be part of the layout, not a shift of it.
          addEventListener('load', () => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
            const banner = document.createElement('div');
            banner.style.height = '200px';
            banner.textContent = 'Late banner';
            document.body.insertBefore(banner, document.body.firstChild);
            const end = performance.now() + 300; while (performance.now() < end) {}
          }, 50))));
        </script>`),
      '/never': () => {},
      '/trace-a': html('<p>A</p>'),
      '/trace-b': html('<p>B</p>'),
      '/hold': (request, response) => {
        releaseHold = () => html('<p>released</p>')(request, response)
      },
    })
  })
  after(async () => {
    await pool.close()
    await site.close()
    cleanup()
  })

  test('a passing @playwright/test script (ESM): steps with timings, logs, network, trace, variables', async () => {
    const c = ctx()
    const result = await runBrowserCheck(
      job(
        `import { test, expect } from '@playwright/test'

test('signs in', async ({ page }) => {
  await test.step('open the login page', async () => {
    await page.goto(process.env.SITE + '/login')
  })
  await test.step('sign in', async () => {
    await page.fill('#user', 'ada')
    await page.click('button')
    await expect(page.locator('h1')).toHaveText('Welcome')
  })
  console.log(JSON.stringify({ svc: process.env.SVC, ci: process.env.CI, name: process.env.SVC_CHECK_NAME, location: process.env.SVC_RUN_LOCATION, home: process.env.MY_VAR }))
})
`,
        { environmentVariables: [{ key: 'MY_VAR', value: 'from the check' }] },
      ),
      c,
    )
    assert.equal(result.error, null)
    assert.equal(result.hasFailures, false)
    assert.equal(result.checkResult.mode, 'test')
    const [signIn] = result.checkResult.tests
    assert.equal(signIn?.title, 'signs in')
    assert.equal(signIn?.status, 'passed')
    assert.deepEqual(
      signIn?.steps.map((s) => [s.title, s.status, s.location]),
      [
        ['open the login page', 'passed', 'browser-check.spec.js:4:3'],
        ['sign in', 'passed', 'browser-check.spec.js:7:3'],
      ],
    )
    for (const step of signIn?.steps ?? []) {
      assert.equal(typeof step.duration, 'number')
      assert.ok(step.duration >= 0)
      assert.ok(!Number.isNaN(Date.parse(step.startedAt)))
    }
    const logs = result.checkResult.logs.map((l) => l.text)
    assert.ok(logs.includes('login page ready'), logs.join('\n'))
    const vars = JSON.parse(logs.find((l) => l.startsWith('{"svc"')) as string)
    assert.deepEqual(vars, {
      svc: 'true',
      ci: 'true',
      name: 'Login check',
      location: 'eu-west-1',
      home: 'from the check',
    })
    const urls = result.checkResult.network.map((n) => [n.url.replace(site.url, ''), n.status, n.pageIndex])
    assert.deepEqual(urls.slice(0, 2), [
      ['/login', 200, 0],
      ['/welcome?user=ada&password=', 200, 0],
    ])
    assert.equal(result.checkResult.traces.length, 1)
    const trace = result.checkResult.traces[0]?.path as string
    assert.equal(readFileSync(join(c.artifactsDir, trace)).subarray(0, 2).toString(), 'PK')
    assert.equal(result.checkResult.screenshots.length, 0)
  })

  test('a failing CommonJS script: the error names the script line; a screenshot is taken', async () => {
    const c = ctx()
    const result = await runBrowserCheck(
      job(
        `const { test, expect } = require('@playwright/test')

test('sees the dashboard', async ({ page }) => {
  await page.goto(process.env.SITE + '/welcome')
  await expect(page.locator('h1')).toHaveText('Dashboard', { timeout: 500 })
})
`,
      ),
      c,
    )
    assert.equal(result.hasFailures, true)
    assert.equal(result.error?.type, 'ASSERTION')
    assert.match(result.error?.message ?? '', /^sees the dashboard: .*toHaveText/)
    assert.equal(result.checkResult.tests[0]?.status, 'failed')
    assert.match(result.checkResult.errors[0]?.stack ?? '', /browser-check\.spec\.js:5:/)
    const shots = result.checkResult.screenshots
    assert.equal(shots.length, 1)
    assert.equal(shots[0]?.onFailure, true)
    const png = readFileSync(join(c.artifactsDir, shots[0]?.path as string))
    assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')])
  })

  test("test.use({ video: 'on' }): the test's recording is kept as video-1.webm", {
    skip: videoTestsSkipReason(),
  }, async () => {
    const c = ctx()
    const result = await runBrowserCheck(
      job(`import { test, expect } from '@playwright/test'
test.use({ video: 'on' })
test('signs in', async ({ page }) => {
  await page.goto(process.env.SITE + '/login')
  await page.fill('#user', 'ada')
  await page.click('button')
  await expect(page.locator('h1')).toHaveText('Welcome')
})
`),
      c,
    )
    assert.equal(result.error, null, result.error?.message)
    const [video, ...more] = result.checkResult.videos
    assert.equal(video?.path, 'video-1.webm')
    assert.deepEqual(more, [])
    const bytes = readFileSync(join(c.artifactsDir, 'video-1.webm'))
    assert.equal(video?.size, bytes.length)
    assert.deepEqual(bytes.subarray(0, 4), WEBM_MAGIC)
    // Recorded beside the trace, which is kept as before.
    assert.deepEqual(
      result.checkResult.traces.map((t) => t.path),
      ['trace-1.zip'],
    )
  })

  test('a plain script that launches Chromium itself; page.screenshot calls are kept', async () => {
    const c = ctx()
    const result = await runBrowserCheck(
      job(`const { chromium } = require('playwright')

;(async () => {
  const browser = await chromium.launch({ headless: false })
  const page = await browser.newPage()
  await page.goto(process.env.SITE + '/welcome')
  console.log('title:', await page.textContent('h1'))
  await page.screenshot({ path: 'welcome.png' })
  await browser.close()
})()
`),
      c,
    )
    assert.equal(result.error, null)
    assert.equal(result.checkResult.mode, 'script')
    assert.ok(result.checkResult.logs.some((l) => l.text === 'title: Welcome'))
    assert.deepEqual(
      result.checkResult.screenshots.map((s) => [s.name, s.onFailure, s.pageIndex]),
      [['welcome.png', false, 0]],
    )
    assert.equal(result.checkResult.traces.length, 1)
    assert.ok(existsSync(join(c.artifactsDir, result.checkResult.traces[0]?.path as string)))
  })

  test('dependencies and a TypeScript scriptPath are importable; packages outside the runtime fail with a clear message', async () => {
    const ok = await runBrowserCheck(
      job(
        `import { test, expect } from '@playwright/test'
import { signIn } from './helpers/sign-in.js'
import _ from 'lodash'

test('signs in through a helper', async ({ page }) => {
  await signIn(page, process.env.SITE)
  expect(_.capitalize('welcome')).toBe(await page.textContent('h1'))
})
`,
        {
          dependencies: [
            {
              path: 'helpers/sign-in.js',
              content: `export async function signIn(page, site) {\n  await page.goto(site + '/login')\n  await page.click('button')\n}\n`,
            },
          ],
        },
      ),
      ctx(),
    )
    assert.equal(ok.error, null, ok.error?.message)
    assert.equal(ok.checkResult.tests[0]?.status, 'passed')

    const typed = await runBrowserCheck(
      job(
        `import { test, expect, type Page } from '@playwright/test'
import { WELCOME } from '../support/texts'

async function open(page: Page, path: string): Promise<void> {
  await page.goto(process.env.SITE + path)
}
test('typed', async ({ page }) => {
  await open(page, '/welcome')
  await expect(page.locator('h1')).toHaveText(WELCOME)
})
`,
        {
          scriptPath: 'tests/welcome.spec.ts',
          dependencies: [{ path: 'support/texts.ts', content: `export const WELCOME: string = 'Welcome'\n` }],
        },
      ),
      ctx(),
    )
    assert.equal(typed.error, null, typed.error?.message)
    assert.equal(typed.checkResult.tests[0]?.file, 'tests/welcome.spec.ts')

    const forbidden = await runBrowserCheck(
      job(
        `import { test } from '@playwright/test'\nimport leftPad from 'left-pad'\ntest('x', async () => {})\n`,
      ),
      ctx(),
    )
    assert.equal(forbidden.hasFailures, true)
    assert.equal(forbidden.error?.type, 'SCRIPT')
    assert.match(
      forbidden.error?.message ?? '',
      /Cannot import 'left-pad'.*runtime 2025\.04 does not provide 'left-pad'/,
    )
    assert.match(
      forbidden.error?.message ?? '',
      /Available: Node\.js built-ins \(node:\*\), .*@playwright\/test.*axios/,
    )

    // A computed name escapes the static check; the run-time guard still stops it.
    const dynamic = await runBrowserCheck(job(`const name = ['p', 'g'].join('')\nrequire(name)\n`), ctx())
    assert.equal(dynamic.error?.type, 'SCRIPT')
    assert.match(dynamic.error?.message ?? '', /Cannot import 'pg': runtime 2025\.04 does not provide 'pg'/)
  })

  test('runaway scripts are stopped at the timeout; exits and import-time throws are results', async () => {
    const loop = await runBrowserCheck(job(`while (true) {}\n`, { timeoutMs: 1500 }), ctx())
    assert.equal(loop.error?.type, 'TIMEOUT')
    assert.equal(loop.hasFailures, true)
    assert.match(loop.error?.message ?? '', /did not finish within 1\.5 s/)

    const hanging = await runBrowserCheck(
      job(
        `import { test } from '@playwright/test'\ntest('waits forever', async ({ page }) => {\n  await page.goto(process.env.SITE + '/never')\n})\n`,
        { timeoutMs: 2000 },
      ),
      ctx(),
    )
    assert.equal(hanging.error?.type, 'TIMEOUT')
    assert.equal(hanging.hasFailures, true)

    const exited = await runBrowserCheck(
      job(`import { test } from '@playwright/test'\ntest('exits', async () => {\n  process.exit(0)\n})\n`),
      ctx(),
    )
    assert.equal(exited.hasFailures, true)
    assert.equal(exited.error?.type, 'SCRIPT')

    const plainExit = await runBrowserCheck(job(`console.log('bye')\nprocess.exit(3)\n`), ctx())
    assert.equal(plainExit.hasFailures, true)
    assert.match(plainExit.error?.message ?? '', /exited with code 3/)

    const throwsAtImport = await runBrowserCheck(
      job(
        `import { test } from '@playwright/test'\nthrow new Error('broken at import')\ntest('never', async () => {})\n`,
      ),
      ctx(),
    )
    assert.equal(throwsAtImport.error?.type, 'SCRIPT')
    assert.match(throwsAtImport.error?.message ?? '', /broken at import/)

    // The shared browser is still fine for the next run.
    const after = await runBrowserCheck(
      job(
        `const { chromium } = require('playwright')\n;(async () => {\n  const b = await chromium.launch()\n  const p = await b.newPage()\n  await p.goto(process.env.SITE + '/welcome')\n  await b.close()\n})()\n`,
      ),
      ctx(),
    )
    assert.equal(after.error, null)
  })

  test('a test that hangs times out as that test: named, with its steps, screenshot and trace, after a slow start', async () => {
    const result = await runBrowserCheck(
      job(
        // Playwright's global timeout counts from its start: a worker slow to start (as on a busy machine)
        // must still leave the test its own timeout.
        `import { test as base } from '@playwright/test'
const test = base.extend({
  slowStart: [async ({}, use) => { await new Promise((r) => setTimeout(r, 6000)); await use() }, { scope: 'worker', auto: true, timeout: 10000 }],
})
test('hangs', async ({ page }) => {
  await test.step('open', async () => { await page.goto(process.env.SITE + '/welcome') })
  await test.step('wait for ever', async () => { await new Promise(() => {}) })
})
`,
        { timeoutMs: 3000 },
      ),
      ctx(),
    )
    assert.equal(result.error?.type, 'TIMEOUT')
    assert.equal(result.error?.message, 'hangs: Test timeout of 3000ms exceeded.')
    const [hung] = result.checkResult.tests
    assert.equal(hung?.status, 'timedOut')
    assert.deepEqual(
      hung?.steps.map((s) => [s.title, s.status]),
      [
        ['open', 'passed'],
        ['wait for ever', 'failed'],
      ],
    )
    assert.deepEqual(
      result.checkResult.screenshots.map((s) => s.onFailure),
      [true],
    )
    assert.equal(result.checkResult.traces.length, 1)

    // A test that never yields can't time out by itself: the run is stopped, at the check's limit.
    const spinning = await runBrowserCheck(
      job(`import { test } from '@playwright/test'\ntest('spins', async () => { for (;;) {} })\n`, {
        timeoutMs: 2000,
      }),
      ctx(),
    )
    assert.equal(spinning.error?.type, 'TIMEOUT')
    assert.equal(
      spinning.error?.message,
      'The run did not finish within 2 s and was stopped (still running: spins)',
    )
    assert.deepEqual(
      spinning.checkResult.tests.map((t) => [t.title, t.status]),
      [['spins', 'interrupted']],
    )
  })

  test('a test the script retries counts by its last attempt: passing on retry passes, and says so', async () => {
    const result = await runBrowserCheck(
      job(`const { test, expect } = require('@playwright/test')
test.describe.configure({ retries: 2 })
test('flaky', async ({}, info) => { expect(info.retry).toBe(1) })
`),
      ctx(),
    )
    assert.equal(result.hasFailures, false)
    assert.equal(result.error, null)
    assert.deepEqual(
      result.checkResult.tests.map((t) => [t.title, t.status, t.failed]),
      [
        ['flaky', 'failed', false],
        ['flaky', 'passed', false],
      ],
    )
    assert.deepEqual(result.checkResult.errors, [])
    assert.deepEqual(result.checkResult.notes, ['flaky passed on retry 1'])
  })

  test("huge output is cut: each log entry and error to 16 KiB, a run's logs to 1 MiB, with notes", async () => {
    const MiB = 1024 * 1024
    const CUT = '… (cut at 16384 characters)'
    const tested = await runBrowserCheck(
      job(`const { test } = require('@playwright/test')
test('floods', async ({ page }) => {
  for (let i = 0; i < 30; i++) console.log(i + ':' + 'x'.repeat(${MiB}))
  await page.setContent('<p>p</p>')
  await page.evaluate(() => console.log('page:' + 'y'.repeat(${MiB})))
  console.log('last line')
  throw new Error('e'.repeat(${MiB}))
})
`),
      ctx(),
    )
    const testLogs = tested.checkResult.logs.map((entry) => entry.text)
    assert.equal(testLogs.length, 32)
    assert.equal(testLogs.filter((text) => text.length === 16 * 1024 + CUT.length).length, 31)
    assert.equal(testLogs[0], `0:${'x'.repeat(16 * 1024 - 2)}${CUT}`)
    assert.ok(testLogs.includes(`page:${'y'.repeat(16 * 1024 - 5)}${CUT}`))
    assert.ok(testLogs.includes('last line'))
    assert.deepEqual(tested.checkResult.notes, ['31 log entries cut to their first 16384 characters'])
    assert.equal(tested.checkResult.errors[0]?.message, `Error: ${'e'.repeat(16 * 1024 - 7)}${CUT}`)
    assert.equal(tested.error?.message.length, 4000)

    // A plain script writing megabytes without a newline, then more lines than the run keeps.
    const plain = await runBrowserCheck(
      job(`for (let i = 0; i < 20; i++) process.stdout.write('z'.repeat(${MiB}))
console.log('end of the long line')
for (let i = 0; i < 100; i++) console.log(i + ':' + 'w'.repeat(16 * 1024))
`),
      ctx(),
    )
    const plainLogs = plain.checkResult.logs.map((entry) => entry.text)
    assert.equal(plain.error, null)
    assert.equal(plainLogs[0], `${'z'.repeat(16 * 1024)}${CUT}`)
    assert.equal(plainLogs.length, 1 + 62)
    assert.equal(plainLogs.at(-1), `61:${'w'.repeat(16 * 1024 - 3)}${CUT}`)
    assert.ok(plainLogs.join('').length <= MiB)
    assert.deepEqual(plain.checkResult.notes, [
      '63 log entries cut to their first 16384 characters',
      '38 log entries left out (at most 1000 entries, 1048576 characters)',
    ])
  })

  test('a run may not keep more pages open than the limit; a run beside it is unaffected', async () => {
    const [greedy, beside] = await Promise.all([
      runBrowserCheck(
        job(`const { chromium } = require('playwright')
;(async () => {
  const browser = await chromium.launch()
  const context = await browser.newContext()
  await Promise.all(Array.from({ length: 30 }, () => context.newPage()))
  await browser.close()
})()
`),
        ctx(),
      ),
      runBrowserCheck(
        job(`import { test, expect } from '@playwright/test'
test('welcome', async ({ page }) => {
  await page.goto(process.env.SITE + '/welcome')
  await expect(page.locator('h1')).toHaveText('Welcome')
})
`),
        ctx(),
      ),
    ])
    assert.equal(greedy.error, null)
    assert.equal(greedy.checkResult.notes.length, 20)
    assert.match(greedy.checkResult.notes[0] ?? '', /at most 10 pages open at once/)
    assert.equal(beside.error, null, beside.error?.message)
    assert.equal(beside.checkResult.tests[0]?.status, 'passed')
  })

  test('web vitals per page: LCP, CLS, TBT, FCP, TTFB with their pageIndex', async () => {
    const result = await runBrowserCheck(
      job(`import { test, expect } from '@playwright/test'

test('two pages', async ({ page, context }) => {
  await page.goto(process.env.SITE + '/shift')
  await expect(page.getByText('Late banner')).toBeVisible()
  await page.waitForTimeout(500)
  const second = await context.newPage()
  await second.goto(process.env.SITE + '/errors')
  await second.waitForTimeout(200)
})
`),
      ctx(),
    )
    assert.equal(result.error, null, result.error?.message)
    const pages = result.checkResult.pages
    assert.deepEqual(
      pages.map((p) => [p.pageIndex, p.url.replace(site.url, '')]),
      [
        [0, '/shift'],
        [1, '/errors'],
      ],
    )
    const vitals = pages[0]?.webVitals
    for (const name of ['LCP', 'FCP', 'TTFB'] as const) {
      assert.equal(typeof vitals?.[name]?.value, 'number', name)
      assert.ok((vitals?.[name]?.value as number) > 0, name)
    }
    assert.ok((vitals?.CLS?.value as number) > 0, `CLS ${vitals?.CLS?.value}`)
    assert.ok((vitals?.TBT?.value as number) > 0, `TBT ${vitals?.TBT?.value}`)
    assert.ok(['GOOD', 'NEEDS_IMPROVEMENT', 'POOR'].includes(vitals?.LCP?.score as string))
    const errorLogs = result.checkResult.logs
      .filter((l) => l.pageIndex === 1 && l.level === 'error')
      .map((l) => l.text)
    assert.ok(errorLogs.includes('broken widget'), errorLogs.join('\n'))
    assert.ok(
      errorLogs.some((l) => l.includes('late failure')),
      errorLogs.join('\n'),
    )
  })

  test('secrets are scrubbed from logs, errors, network entries and every stored artifact', async () => {
    const secret = 'Tr0ub4dor&3 horse'
    const forms = [
      secret,
      Buffer.from(secret).toString('base64'),
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%20/g, '+'),
      Buffer.from(`ada:${secret}`).toString('base64'),
    ]
    const c = ctx()
    const result = await runBrowserCheck(
      job(
        `import { test, expect } from '@playwright/test'

test('signs in with the secret', async ({ page }) => {
  const password = process.env.PASSWORD
  console.log('plain', password)
  console.log('base64', Buffer.from(password).toString('base64'))
  console.log('url', encodeURIComponent(password))
  await page.setExtraHTTPHeaders({ authorization: 'Basic ' + Buffer.from('ada:' + password).toString('base64'), 'x-token': process.env.SVC_SECRET_TOKEN })
  await page.goto(process.env.SITE + '/login?next=' + encodeURIComponent(password))
  await page.fill('#user', 'ada')
  await page.fill('#password', password)
  await page.click('button')
  await page.evaluate((p) => console.log('from the page', p), password)
  expect(page.url(), 'the password ' + password + ' was sent').toContain('nowhere')
})
`,
        {
          environmentVariables: [
            { key: 'PASSWORD', value: secret, secret: true },
            { key: 'SVC_SECRET_TOKEN', value: 'tok-5f3e9a1c' },
          ],
        },
      ),
      c,
    )
    assert.equal(result.hasFailures, true)
    const text = JSON.stringify(result)
    for (const form of [...forms, 'tok-5f3e9a1c']) assert.ok(!text.includes(form), `result holds ${form}`)
    assert.ok(result.checkResult.logs.some((l) => l.text === `plain ${REDACTED}`))
    assert.ok(result.checkResult.logs.some((l) => l.text === `base64 ${REDACTED}`))
    assert.ok(result.checkResult.logs.some((l) => l.text === `url ${REDACTED}`))
    assert.match(result.error?.message ?? '', /the password \[REDACTED\] was sent/)
    const login = result.checkResult.network.find((n) => n.url.includes('/login'))
    assert.equal(login?.requestHeaders?.authorization, REDACTED)
    assert.equal(login?.requestHeaders?.['x-token'], REDACTED)
    assert.ok(login?.url.endsWith(`next=${REDACTED}`), login?.url)
    // The site really got the secret: only what svc stores is scrubbed.
    assert.ok(site.requests.some((r) => r.url.includes(encodeURIComponent(secret))))

    const stored = artifactBytes(c.artifactsDir)
    assert.ok(
      stored.some((f) => f.name.endsWith('.png')),
      'a failure screenshot is stored',
    )
    assert.ok(
      stored.some((f) => f.name.endsWith('trace.trace')),
      'the trace is stored',
    )
    for (const file of stored) {
      for (const form of [...forms, 'tok-5f3e9a1c']) {
        assert.equal(file.data.indexOf(Buffer.from(form)), -1, `${file.name} holds ${form}`)
      }
    }
    const traceEvents = stored.find((f) => f.name.endsWith('trace.trace'))?.data.toString() ?? ''
    assert.ok(traceEvents.includes(REDACTED), 'the trace shows where the secret was')
  })
  test('a secret with quotes and backslashes logged as JSON is scrubbed from the trace too', async () => {
    // Console text and expect messages are JSON strings inside the trace's JSON lines: escaped twice.
    const secret = 'pa"ss\\wo rd'
    const c = ctx()
    const result = await runBrowserCheck(
      job(
        `import { test, expect } from '@playwright/test'
test('logs the secret as JSON', async ({ page }) => {
  await page.setContent('<p>hi</p>')
  await page.evaluate((p) => console.log(JSON.stringify({ p })), process.env.PASSWORD)
  console.log(JSON.stringify({ p: process.env.PASSWORD }))
  expect(process.env.PASSWORD).toBe('something else')
})
`,
        { environmentVariables: [{ key: 'PASSWORD', value: secret, secret: true }] },
      ),
      c,
    )
    assert.equal(result.error?.type, 'ASSERTION')
    assert.ok(result.checkResult.logs.some((l) => l.text === `{"p":"${REDACTED}"}`))
    const stored = artifactBytes(c.artifactsDir).filter((f) => f.name.endsWith('.trace'))
    assert.ok(stored.length > 0, 'traces are stored')
    for (const file of stored) {
      assert.equal(file.data.indexOf(Buffer.from('wo rd')), -1, `${file.name} holds the secret`)
    }
  })

  test('two runs of the same test at once on the shared browser each keep their own trace', async () => {
    // One file name and test title: Playwright gives both the same test id, which names its trace recording.
    const script = `import { test } from '@playwright/test'

test('visits', async ({ page }) => {
  await page.goto(process.env.SITE + process.env.VISIT)
  if (process.env.HOLD) await page.goto(process.env.SITE + '/hold')
})
`
    const [first, second] = [ctx(), ctx()]
    const held = runBrowserCheck(
      job(script, {
        environmentVariables: [
          { key: 'VISIT', value: '/trace-a' },
          { key: 'HOLD', value: 'yes' },
        ],
      }),
      first,
    )
    while (!releaseHold) await new Promise((resolve) => setTimeout(resolve, 50))
    const alongside = await runBrowserCheck(
      job(script, { environmentVariables: [{ key: 'VISIT', value: '/trace-b' }] }),
      second,
    )
    releaseHold()
    const results = [await held, alongside]
    for (const result of results) assert.equal(result.error, null, result.error?.message)
    const visited = [first, second].map(({ artifactsDir }) => {
      const events = artifactBytes(artifactsDir)
        .filter((file) => /^trace-1\.zip\/.*\.(trace|network)$/.test(file.name))
        .map((file) => file.data.toString())
        .join('\n')
      return ['/trace-a', '/trace-b', '/hold'].filter((path) => events.includes(`${site.url}${path}`))
    })
    assert.deepEqual(visited, [['/trace-a', '/hold'], ['/trace-b']])
  })
})

describe('limits of a run', { skip }, () => {
  const pool = new PlaywrightPool({ memoryLimitMb: 300, artifactLimitBytes: 1_000_000 })
  const { ctx, cleanup } = scriptTestContext(pool)
  after(async () => {
    await pool.close()
    cleanup()
  })
  const job = (script: string): ScriptJob => ({ name: 'limits', runLocation: 'local', script })

  test('a run over its memory limit is killed', async () => {
    const result = await runBrowserCheck(
      job(`const chunks = []\nsetInterval(() => chunks.push(Buffer.alloc(64 * 1024 * 1024, 1)), 20)\n`),
      ctx(),
    )
    assert.equal(result.hasFailures, true)
    assert.equal(result.error?.message, 'The run used more than 300 MB of memory and was stopped')
  })

  test('a run out of JavaScript heap says so, in a test and in a plain script', async () => {
    const heapPool = new PlaywrightPool({ heapLimitMb: 64 })
    const heap = scriptTestContext(heapPool)
    try {
      const grow = `const a = []; for (;;) a.push({ x: Math.random(), y: 'k' + Math.random() })`
      for (const script of [
        `const { test } = require('@playwright/test')\ntest('grows', async () => { ${grow} })\n`,
        `${grow}\n`,
      ]) {
        const result = await runBrowserCheck(job(script), heap.ctx())
        assert.equal(result.error?.type, 'SCRIPT')
        assert.equal(result.error?.message, 'The run used more than 64 MB of JavaScript heap and was stopped')
        assert.deepEqual(result.checkResult.notes, ['JavaScript heap limit of 64 MB reached'])
      }
    } finally {
      await heapPool.close()
      heap.cleanup()
    }
  })

  test('artifacts over the limit are left out, and the result says so', async () => {
    const c = ctx()
    const result = await runBrowserCheck(
      job(`const { chromium } = require('playwright')
;(async () => {
  const browser = await chromium.launch()
  const page = await browser.newPage({ viewport: { width: 800, height: 600 } })
  await page.setContent('<canvas id="c" width="400" height="300"></canvas>')
  await page.evaluate(() => {
    const context = document.getElementById('c').getContext('2d')
    const noise = context.createImageData(400, 300)
    for (let i = 0; i < noise.data.length; i++) noise.data[i] = i % 4 === 3 ? 255 : Math.random() * 256
    context.putImageData(noise, 0, 0)
  })
  for (let i = 0; i < 6; i++) await page.screenshot({ path: 'shot-' + i + '.png' })
  await browser.close()
})()
`),
      c,
    )
    assert.equal(result.error, null, result.error?.message)
    const stored =
      result.checkResult.screenshots.reduce((sum, s) => sum + s.size, 0) +
      result.checkResult.traces.reduce((sum, t) => sum + t.size, 0)
    assert.ok(stored <= 1_000_000, String(stored))
    assert.ok(result.checkResult.screenshots.length < 6)
    assert.equal(result.checkResult.artifactsTruncated, true)
    assert.equal(
      artifactBytes(c.artifactsDir).filter((f) => !f.name.includes('/')).length,
      result.checkResult.screenshots.length + result.checkResult.traces.length,
    )
  })

  test('videos come last within the artifact limit: one that does not fit is left out, and the result says so', {
    skip: videoTestsSkipReason(),
  }, async () => {
    const smallPool = new PlaywrightPool({ artifactLimitBytes: 4096 })
    const small = scriptTestContext(smallPool)
    try {
      const c = small.ctx()
      // A tiny screenshot fits; a second of a noisy canvas does not.
      const result = await runBrowserCheck(
        job(`import { test } from '@playwright/test'
test.use({ video: 'on', trace: 'off' })
test('noise', async ({ page }) => {
  await page.setContent('<canvas id="c" width="400" height="300"></canvas>')
  await page.screenshot({ path: 'dot.png', clip: { x: 0, y: 0, width: 4, height: 4 } })
  await page.evaluate(async () => {
    const context = document.getElementById('c').getContext('2d')
    const noise = context.createImageData(400, 300)
    for (let frame = 0; frame < 20; frame++) {
      for (let i = 0; i < noise.data.length; i++) noise.data[i] = i % 4 === 3 ? 255 : Math.random() * 256
      context.putImageData(noise, 0, 0)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })
})
`),
        c,
      )
      assert.equal(result.error, null, result.error?.message)
      assert.deepEqual(
        result.checkResult.screenshots.map((s) => s.path),
        ['screenshot-1.png'],
      )
      assert.deepEqual(result.checkResult.videos, [])
      assert.equal(result.checkResult.artifactsTruncated, true)
      assert.deepEqual(
        artifactBytes(c.artifactsDir).map((f) => f.name),
        ['screenshot-1.png'],
      )
    } finally {
      await smallPool.close()
      small.cleanup()
    }
  })

  test('an aborted run stops at once and says it was cancelled', async () => {
    const controller = new AbortController()
    const running = runBrowserCheck(job(`setInterval(() => {}, 1000)\n`), {
      ...ctx(),
      signal: controller.signal,
    })
    setTimeout(() => controller.abort(), 300)
    const result = await running
    assert.equal(result.isCancelled, true)
    assert.equal(result.hasFailures, false)
    assert.deepEqual(result.error, { type: 'CANCELLED', message: 'The run was cancelled' })
  })
})

describe('the Playwright pool', () => {
  test("a run waiting for a free slot starts when it gets one: its startedAt doesn't count the wait", async () => {
    const pool = new PlaywrightPool({ concurrency: 1 })
    const { ctx, cleanup } = scriptTestContext(pool)
    try {
      const job = (name: string): ScriptJob => ({
        name,
        runLocation: 'local',
        script: `setTimeout(() => console.log('done'), 1000)\n`,
      })
      const [first, second] = await Promise.all([
        runBrowserCheck(job('first'), ctx()),
        runBrowserCheck(job('second'), ctx()),
      ])
      assert.equal(first.error, null)
      assert.equal(second.error, null)
      // Either may get the slot first (both wait for the account's warm-up, which takes it before them).
      const [earlier, later] = first.startedAt <= second.startedAt ? [first, second] : [second, first]
      assert.ok(later.startedAt >= earlier.stoppedAt, `${later.startedAt} < ${earlier.stoppedAt}`)
    } finally {
      await pool.close()
      cleanup()
    }
  })

  test("a run's directory is gone before its slot is free: the next run in the slot keeps its own", async () => {
    const pool = new PlaywrightPool({ concurrency: 1 })
    const { ctx, cleanup } = scriptTestContext(pool)
    // What the slot's directory held when each lease was given back.
    const leftAtRelease: boolean[] = []
    const acquire = pool.acquire.bind(pool)
    pool.acquire = async (signal) => {
      const lease = await acquire(signal)
      const dir = join(pool.workRoot, `svc-run-${process.pid}-${pool.id}-${lease.slot}`)
      return {
        ...lease,
        release: () => {
          leftAtRelease.push(existsSync(dir))
          lease.release()
        },
      }
    }
    try {
      // An account of its own: no pool of this process has warmed its compile cache up yet.
      const result = await runBrowserCheck(
        { name: 'one', runLocation: 'local', accountId: 'slot-directories', script: `console.log('done')\n` },
        ctx(),
      )
      assert.equal(result.error, null)
      // The account's warm-up run and this one.
      assert.deepEqual(leftAtRelease, [false, false])
    } finally {
      await pool.close()
      cleanup()
    }
  })

  test('at most `concurrency` runs at once, each in its own slot; the rest wait their turn', async () => {
    const pool = new PlaywrightPool({ concurrency: 2 })
    const first = await pool.acquire()
    const second = await pool.acquire()
    assert.deepEqual([first.slot, second.slot], [0, 1])
    let thirdStarted = false
    const third = pool.acquire().then((lease) => {
      thirdStarted = true
      return lease
    })
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(thirdStarted, false)
    assert.equal(pool.running, 2)
    first.release()
    first.release()
    const lease = await third
    assert.equal(lease.slot, 0)
    assert.equal(pool.running, 2)
    second.release()
    lease.release()
    assert.equal(pool.running, 0)
    await pool.close()
  })

  // Without a timeout, a wait that the signal doesn't end would hang the file.
  test('a run waiting for a slot stops waiting when its signal aborts, and takes no slot', {
    timeout: 10_000,
  }, async () => {
    const pool = new PlaywrightPool({ concurrency: 1 })
    const first = await pool.acquire()
    const controller = new AbortController()
    const waiting = pool.acquire(controller.signal)
    const reason = new Error('cancelled')
    controller.abort(reason)
    await assert.rejects(waiting, (error) => error === reason)
    first.release()
    assert.equal(pool.running, 0, 'the slot freed goes to no one')
    const next = await pool.acquire(new AbortController().signal)
    assert.equal(next.slot, 0)
    next.release()
    await assert.rejects(pool.acquire(AbortSignal.abort(reason)), (error) => error === reason)
    assert.equal(pool.running, 0)
    await pool.close()
  })
})
