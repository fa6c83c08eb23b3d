import { runAutomationCheck } from './index.ts'
import { PlaywrightPool, scriptTestContext } from './testing.ts'

const pool = new PlaywrightPool({ concurrency: 2 })
const { ctx, cleanup } = scriptTestContext(pool)
const r: any = await runAutomationCheck(
  {
    name: 'x',
    runLocation: 'l',
    dependencies: [
      {
        path: 'playwright.config.ts',
        content:
          "export default { testDir: './t', projects: [{ name: 'ff', use: { browserName: 'firefox' } }, { name: 'wk', use: { browserName: 'webkit' } }] }\n",
      },
      {
        path: 't/a.spec.ts',
        content:
          "import { test } from '@playwright/test'\ntest('ua', async ({ page, browserName }) => { await page.setContent('<p>x</p>'); console.log(browserName, await page.evaluate(() => navigator.userAgent)) })\n",
      },
    ],
  },
  ctx(),
)
console.log(
  JSON.stringify({
    error: r.error,
    tests: r.checkResult.tests.map((t: any) => [t.title, t.status]),
    logs: r.checkResult.logs.map((l: any) => l.text),
  }),
)
await pool.close()
cleanup()
