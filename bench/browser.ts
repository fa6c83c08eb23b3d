/**
 * bench/browser.ts: one simple browser check through svc's runner (child process, shared Chromium,
 * fresh context, web vitals, trace, scrubbing) versus the same steps run directly with playwright-core
 * (launch, page, goto, close), measured the same way in one run; then browser checks per minute at the
 * pool's concurrency, with the peak RSS of this process and all its descendants (Chromium included).
 * Target: svc (plain script) at most 1.25x direct. Usage: npm run bench:browser [-- --runs 5 --concurrency 2]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { chromium } from 'playwright-core'
import { CHROMIUM_ARGS } from '../packages/runner/src/playwright/browser-host.ts'
import { runBrowserCheck } from '../packages/runner/src/playwright/index.ts'
import { DEFAULT_CHROMIUM_PATH, PlaywrightPool } from '../packages/runner/src/playwright/pool.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '30' },
    chromium: { type: 'string', default: DEFAULT_CHROMIUM_PATH },
  },
})
const runs = Number(values.runs)
const concurrency = Number(values.concurrency)

const site = createServer((_request, response) => {
  response.setHeader('content-type', 'text/html')
  response.end('<!doctype html><title>bench</title><h1>Hello</h1><p>A simple page.</p>')
})
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`

const plainScript = `const { chromium } = require('playwright')
;(async () => {
  const browser = await chromium.launch()
  const page = await browser.newPage()
  await page.goto(process.env.URL)
  if ((await page.textContent('h1')) !== 'Hello') throw new Error('wrong page')
  await browser.close()
})()
`
const testScript = `import { test, expect } from '@playwright/test'
test('home', async ({ page }) => {
  await page.goto(process.env.URL)
  await expect(page.locator('h1')).toHaveText('Hello')
})
`

async function direct(): Promise<number> {
  const started = performance.now()
  const browser = await chromium.launch({ executablePath: values.chromium, args: CHROMIUM_ARGS })
  const page = await browser.newPage()
  await page.goto(url)
  if ((await page.textContent('h1')) !== 'Hello') throw new Error('wrong page')
  await browser.close()
  return performance.now() - started
}

const artifacts = mkdtempSync(join(tmpdir(), 'svc-bench-'))
const pool = new PlaywrightPool({ chromiumPath: values.chromium, concurrency })
let n = 0
async function throughSvc(script: string): Promise<number> {
  const started = performance.now()
  const result = await runBrowserCheck(
    { name: 'bench', runLocation: 'local', script, environmentVariables: [{ key: 'URL', value: url }] },
    { now: () => new Date(), playwright: pool, artifactsDir: join(artifacts, String(++n)) },
  )
  if (result.hasFailures) throw new Error(`bench check failed: ${result.error?.message}`)
  return performance.now() - started
}

let peakRss = 0
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, treeRss(process.pid))
}, 200)

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
await direct()
await throughSvc(plainScript) // starts the shared browser
const directMs: number[] = []
const plainMs: number[] = []
const testMs: number[] = []
for (let i = 0; i < runs; i++) {
  directMs.push(await direct())
  plainMs.push(await throughSvc(plainScript))
  testMs.push(await throughSvc(testScript))
}

const seconds = Number(values.seconds)
const deadline = performance.now() + seconds * 1000
let completed = 0
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      await throughSvc(n % 2 ? plainScript : testScript)
      completed++
    }
  }),
)
clearInterval(sampler)

const ratio = median(plainMs) / median(directMs)
console.log(`direct playwright-core (launch..close)  median ${median(directMs).toFixed(0)} ms`)
console.log(
  `svc plain script                        median ${median(plainMs).toFixed(0)} ms  ratio ${ratio.toFixed(2)} (target <= 1.25)`,
)
console.log(
  `svc @playwright/test script             median ${median(testMs).toFixed(0)} ms  ratio ${(median(testMs) / median(directMs)).toFixed(2)}`,
)
console.log(
  `throughput at concurrency ${concurrency}: ${((completed * 60) / seconds).toFixed(1)} checks/min (half plain, half test)`,
)
console.log(`peak RSS (this process and descendants): ${(peakRss / 1024 / 1024).toFixed(0)} MB`)

await pool.close()
site.close()
rmSync(artifacts, { recursive: true, force: true })

function treeRss(root: number): number {
  const parents = new Map<number, number>()
  const rss = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      parents.set(Number(entry), Number(fields[1]))
      rss.set(Number(entry), Number(fields[21]) * 4096)
    } catch {}
  }
  let total = 0
  for (const [pid, bytes] of rss) {
    for (let p: number | undefined = pid; p; p = parents.get(p)) {
      if (p === root) {
        total += bytes
        break
      }
    }
  }
  return total
}
