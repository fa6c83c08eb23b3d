/**
 * bench/web.ts: the dashboard's budgets. (1) The gzipped JavaScript the first page loads (index.html's
 * entry script and the chunks it preloads; target < 250 KB). (2) The first load of the overview with
 * 1,000 checks, in a fresh browser context each time (cold cache): from navigation to the first screen
 * of the table (target < 1 s), and to its first page complete (50 rows: the overview pages its list).
 * Baseline, measured in the same run before the checks are made: the same first load of an account with
 * no checks (the app's start, the session and an empty overview), so the cost of 1,000 checks shows apart
 * from how busy the machine is. Usage: npm run bench:web [-- --checks 1000 --runs 5] (SQLite;
 * DATABASE_URL=postgres://... for PostgreSQL). With `--variant <dir>` (another build of the app, e.g.
 * `vite build --outDir /tmp/variant` of a changed tree), it also loads the overview with that build's
 * index.html and assets and with dist's, runs interleaved and both served the same way, and compares
 * the first row and the longest animation frame before it (the first render).
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { startServerProcess } from '../packages/server/src/testing/server-process.ts'
import { OVERVIEW_PAGE_SIZE } from '../packages/web/src/app/overview-page-size.ts'
import { ensureBuilt, launchChromium } from '../packages/web/src/e2e/harness.ts'
import { benchEngine, benchStore } from './store.ts'
import { profileLoad } from './web-profile.ts'
import { compareBuilds } from './web-variant.ts'

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '5' },
    variant: { type: 'string' },
  },
})
const CHECKS = Number(values.checks)
const RUNS = Number(values.runs)
const DIST = join(import.meta.dirname, '../packages/web/dist')
const JS_BUDGET_KB = 250
const LOAD_BUDGET_MS = 1000
const PAGE_SIZE = OVERVIEW_PAGE_SIZE

/** What a long-animation-frame entry says of each script that ran in it. */
interface LoafScript {
  invoker: string
  sourceFunctionName: string
  sourceURL: string
  startTime: number
  duration: number
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
}

function firstPageJavaScript(): { files: string[]; gzipBytes: number } {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8')
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1] as string)
  const gzipBytes = files.reduce(
    (sum, file) => sum + gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length,
    0,
  )
  return { files, gzipBytes }
}

ensureBuilt()
const js = firstPageJavaScript()
console.log(
  `first page JavaScript: ${(js.gzipBytes / 1024).toFixed(1)} KB gzipped in ${js.files.length} files ` +
    `(budget ${JS_BUDGET_KB} KB) ${js.gzipBytes / 1024 < JS_BUDGET_KB ? 'OK' : 'OVER'}`,
)

const store = await benchStore()
const adminToken = randomBytes(24).toString('hex')
// A busy machine can take longer than the default 30 s to start a server.
const server = await startServerProcess({ ...store.env, SVC_ADMIN_TOKEN: adminToken })
const call = async (key: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response.json()
}
try {
  const account = await call(server.apiKey as string, 'GET', '/v1/accounts/me')
  // 600 requests a minute per key: creating 1,000 checks takes a few service keys.
  const keys: string[] = []
  for (let index = 0; index < Math.ceil(CHECKS / 500); index++) {
    const created = await call(adminToken, 'POST', '/admin/v1/api-keys', {
      name: `bench ${index}`,
      accountId: account.id,
      role: 'READ_WRITE',
    })
    keys.push(created.key)
  }
  const browser = await launchChromium()
  const signedInPage = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    const response = await context.request.post(`${server.url}/v1/auth/sign-in`, {
      data: { apiKey: server.apiKey },
    })
    if (!response.ok()) throw new Error(`sign-in: ${response.status()} ${await response.text()}`)
    return { context, page: await context.newPage() }
  }
  const emptyLoads: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const { context, page } = await signedInPage()
    const start = Date.now()
    await page.goto(`${server.url}/`)
    await page.getByRole('heading', { name: 'No checks yet' }).waitFor({ timeout: 60_000 })
    emptyLoads.push(Date.now() - start)
    await context.close()
  }
  const baseline = median(emptyLoads)
  console.log(
    `baseline, first load of the overview with no checks: median ${baseline} ms, runs ${emptyLoads.join(', ')} ms`,
  )
  const started = Date.now()
  const statuses = ['ok', 'slow', 'down']
  for (let index = 0; index < CHECKS; index += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, CHECKS - index) }, (_, offset) =>
        call(keys[Math.floor((index + offset) / 500)] as string, 'POST', '/v1/checks/url', {
          name: `Check ${String(index + offset).padStart(4, '0')}`,
          frequency: 1440,
          activated: (index + offset) % 10 !== 0,
          tags: [statuses[(index + offset) % 3] as string, `team-${(index + offset) % 7}`],
          request: { url: 'http://127.0.0.1:9/' },
        }),
      ),
    )
  }
  console.log(`${CHECKS} checks created in ${((Date.now() - started) / 1000).toFixed(1)} s (${benchEngine})`)
  const apiTimings: number[] = []
  let apiBytes = 0
  {
    const context = await browser.newContext()
    await context.request.post(`${server.url}/v1/auth/sign-in`, { data: { apiKey: server.apiKey } })
    for (let run = 0; run < RUNS; run++) {
      const start = Date.now()
      // The page the app asks first (overview-query.ts).
      const answer = await context.request.get(`${server.url}/v1/dashboard/overview?limit=${PAGE_SIZE}`)
      if (!answer.ok()) throw new Error(`overview: ${answer.status()}`)
      apiBytes = (await answer.body()).length
      apiTimings.push(Date.now() - start)
    }
    await context.close()
  }
  console.log(
    `GET /v1/dashboard/overview?limit=${PAGE_SIZE} alone (${(apiBytes / 1024).toFixed(0)} KB): ` +
      `median ${median(apiTimings)} ms, runs ${apiTimings.join(', ')} ms`,
  )
  const firstRows: number[] = []
  const timings: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const { context, page } = await signedInPage()
    const start = Date.now()
    await page.goto(`${server.url}/`)
    await page.locator('.checks-table tbody tr').first().waitFor({ timeout: 60_000 })
    firstRows.push(Date.now() - start)
    await page.waitForFunction(
      (count) => document.querySelectorAll('.checks-table tbody tr').length === count,
      Math.min(CHECKS, PAGE_SIZE),
      {
        polling: 'raf',
        timeout: 60_000,
      },
    )
    timings.push(Date.now() - start)
    if (process.env.BENCH_WEB_DEBUG)
      console.log(
        await page.evaluate(() =>
          performance
            .getEntries()
            .map(
              (entry) =>
                `${entry.entryType} ${entry.name.replace(location.origin, '')} ${Math.round(entry.startTime)}+${Math.round(entry.duration)}` +
                // A long frame's scripts: what ran in it, and for how long.
                ((entry as PerformanceEntry & { scripts?: LoafScript[] }).scripts ?? [])
                  .map(
                    (script) =>
                      `\n    ${script.invoker} ${script.sourceFunctionName} ${script.sourceURL.split('/').pop()} ` +
                      `${Math.round(script.startTime)}+${Math.round(script.duration)}`,
                  )
                  .join(''),
            )
            .join('\n'),
        ),
      )
    await context.close()
  }
  if (process.env.BENCH_WEB_PROFILE) {
    // One more load, traced: not timed (tracing slows it), only where its main-thread time goes.
    const { context, page } = await signedInPage()
    const profile = await profileLoad(browser, page, `${server.url}/`, () =>
      page.locator('.checks-table tbody tr').first().waitFor({ timeout: 60_000 }),
    )
    await context.close()
    console.log('profiled load to the first row, main thread by kind of work (ms):')
    for (const [name, ms] of profile.work) console.log(`  ${String(ms).padStart(6)}  ${name}`)
    console.log('JavaScript functions by self time (ms):')
    for (const [name, ms] of profile.functions) console.log(`  ${String(ms).padStart(6)}  ${name}`)
  }
  if (values.variant) {
    const comparison = await compareBuilds(browser, server.url, server.apiKey as string, {
      baseline: DIST,
      variant: values.variant,
      runs: RUNS,
    })
    for (const line of comparison) console.log(line)
  }
  await browser.close()
  const first = median(firstRows)
  console.log(
    `overview first load with ${CHECKS} checks (first screen of rows shown): median ${first} ms, ` +
      `runs ${firstRows.join(', ')} ms (budget ${LOAD_BUDGET_MS} ms) ${first < LOAD_BUDGET_MS ? 'OK' : 'OVER'}; ` +
      `${(first / baseline).toFixed(2)}× the baseline (+${first - baseline} ms for ${CHECKS} checks)`,
  )
  console.log(
    `first page of ${Math.min(CHECKS, PAGE_SIZE)} rows complete: median ${median(timings)} ms, runs ${timings.join(', ')} ms`,
  )
} finally {
  await server.stop()
  await store.dispose()
}
