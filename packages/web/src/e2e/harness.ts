import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'

import { dirname, join, resolve } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'

/** What the dashboard's end-to-end tests share: the built app, Chromium, axe and the screenshot folder. */

const WEB_ROOT = resolve(import.meta.dirname, '../..')
const APP_SOURCE = join(WEB_ROOT, 'src/app')
const DIST_INDEX = join(WEB_ROOT, 'dist/index.html')
export const SCREENSHOTS = join(WEB_ROOT, 'test-results/screenshots')
const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/** Builds the app unless dist is newer than every source file (the server serves dist). */
export function ensureBuilt(): void {
  if (existsSync(DIST_INDEX) && statSync(DIST_INDEX).mtimeMs >= newestMtime(APP_SOURCE)) return
  // This Node, not whichever `node` is first on PATH (the system's may be too old for Vite).
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js')
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'error'], {
    cwd: WEB_ROOT,
    stdio: 'inherit',
  })
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.SVC_CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-proxy-server'],
  })
}

export async function newContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL,
    colorScheme: 'light',
    viewport: { width: 1280, height: 860 },
  })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL })
  return context
}

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/** Runs axe-core on the page and fails on any serious or critical violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH })
  const violations = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected at run time
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] })
    return result.violations as AxeViolation[]
  })
  const bad = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    )
  assert.deepEqual(bad, [], `accessibility violations on ${what}`)
}

/**
 * Fails when a person would scroll sideways: the page wider than the window, or a list's table wider than
 * its box (the box scrolls, so the page alone would not show it).
 */
export async function assertNoSideScroll(page: Page, what: string): Promise<void> {
  const wide = await page.evaluate(() => {
    const found: string[] = []
    const root = document.documentElement
    if (root.scrollWidth > window.innerWidth) {
      // Name the deepest elements that stick out, so a failure says where to look.
      const out = [...document.querySelectorAll('body *')].filter(
        (element) =>
          element.getBoundingClientRect().right > window.innerWidth + 1 &&
          ![...element.children].some((child) => child.getBoundingClientRect().right > window.innerWidth + 1),
      )
      const names = out.slice(0, 3).map((element) => `${element.tagName.toLowerCase()}.${element.className}`)
      found.push(`the page: ${root.scrollWidth} px in ${window.innerWidth} px (${names.join(', ')})`)
    }
    for (const box of document.querySelectorAll('.table-wrap')) {
      const header = box.querySelector('th')?.textContent ?? ''
      if (box.scrollWidth > box.clientWidth)
        found.push(`the table headed "${header}": ${box.scrollWidth} px in ${box.clientWidth} px`)
    }
    return found
  })
  assert.deepEqual(wide, [], `${what} scrolls sideways`)
}

/**
 * Screenshots of the page in light and dark and at 375 px wide under test-results/screenshots, after
 * checking both themes with axe (colour contrast differs between them) and that the page fits a phone.
 * `narrow: false` skips the phone pass (kept for callers that still pass the old `narrow: true`).
 */
export async function capture(page: Page, name: string, options: { narrow?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.waitForLoadState('networkidle')
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await assertAccessible(page, `${name} (${scheme})`)
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`), fullPage: true })
  }
  await page.emulateMedia({ colorScheme: 'light' })
  if (options.narrow !== false) await captureNarrow(page, name)
}

async function captureNarrow(page: Page, name: string): Promise<void> {
  const size = page.viewportSize()
  await page.setViewportSize({ width: 375, height: 812 })
  // Charts redraw at the new width in a ResizeObserver callback: let two frames pass first.
  await page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(null)))),
  )
  await assertNoSideScroll(page, `${name} at 375 px`)
  await assertAccessible(page, `${name} (375 px)`)
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-375.png`), fullPage: true })
  if (size) await page.setViewportSize(size)
}

/** Signs in with an API key on the sign-in page and waits for the overview. */
export async function signInWithKey(page: Page, key: string): Promise<void> {
  await page.goto('/')
  await page.getByRole('tab', { name: 'API key' }).click()
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Checks', level: 1 }).waitFor()
}
