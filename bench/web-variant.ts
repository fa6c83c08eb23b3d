/**
 * bench/web-variant.ts: bench:web's `--variant`: two builds of the app compared on the same server and
 * data. Both are served by intercepting the page's own requests (index.html and /assets/*) from their
 * folders, uncompressed, so only the build differs; runs alternate so both see the same machine load.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
  '.svg': 'image/svg+xml',
}

interface Load {
  firstRow: number
  longestFrame: number
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
}

async function loadWith(browser: Browser, url: string, apiKey: string, dist: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  await context.request.post(`${url}/v1/auth/sign-in`, { data: { apiKey } })
  const page = await context.newPage()
  await page.route(
    (target) => target.pathname === '/' || target.pathname.startsWith('/assets/'),
    (route) => {
      const path = new URL(route.request().url()).pathname
      const file = path === '/' ? 'index.html' : path.slice(1)
      const type = TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream'
      return route.fulfill({ body: readFileSync(join(dist, file)), contentType: type })
    },
  )
  const start = Date.now()
  await page.goto(`${url}/`)
  await page.locator('.checks-table tbody tr').first().waitFor({ timeout: 60_000 })
  const firstRow = Date.now() - start
  const longestFrame = await page.evaluate(() =>
    Math.round(
      Math.max(0, ...performance.getEntriesByType('long-animation-frame').map((entry) => entry.duration)),
    ),
  )
  await context.close()
  return { firstRow, longestFrame }
}

/** Lines to print: each build's medians and runs, and the variant's ratio to the baseline build. */
export async function compareBuilds(
  browser: Browser,
  url: string,
  apiKey: string,
  builds: { baseline: string; variant: string; runs: number },
): Promise<string[]> {
  const loads: Record<'baseline' | 'variant', Load[]> = { baseline: [], variant: [] }
  for (let run = 0; run < builds.runs; run++) {
    loads.baseline.push(await loadWith(browser, url, apiKey, builds.baseline))
    loads.variant.push(await loadWith(browser, url, apiKey, builds.variant))
  }
  const lines: string[] = []
  const figure = (name: 'baseline' | 'variant', key: keyof Load) =>
    median(loads[name].map((load) => load[key]))
  for (const name of ['baseline', 'variant'] as const) {
    lines.push(
      `${name} build (${builds[name]}): first row median ${figure(name, 'firstRow')} ms ` +
        `(${loads[name].map((load) => load.firstRow).join(', ')}), longest frame before it median ` +
        `${figure(name, 'longestFrame')} ms (${loads[name].map((load) => load.longestFrame).join(', ')})`,
    )
  }
  const ratio = (key: keyof Load) => (figure('variant', key) / figure('baseline', key)).toFixed(2)
  lines.push(`variant / baseline: first row ${ratio('firstRow')}×, longest frame ${ratio('longestFrame')}×`)
  return lines
}
