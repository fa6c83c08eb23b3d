import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { testEngines } from '@svc/db/testing'
import { deploymentEnv, type ServerProcess, startServerProcess } from '../../testing/server-process.ts'

const REPO_ROOT = resolve(import.meta.dirname, '../../../../..')
const HOSTED_CLI = join(REPO_ROOT, 'node_modules/checkly/bin/run.cjs')
const PLAYWRIGHT_VERSION: string = JSON.parse(
  readFileSync(join(REPO_ROOT, 'node_modules/@playwright/test/package.json'), 'utf8'),
).version

/** A project as a team migrating from the hosted product has it: its own CLI's constructs. */
function writeHostedProject(dir: string) {
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  symlinkSync(join(REPO_ROOT, 'node_modules/checkly'), join(dir, 'node_modules/checkly'))
  // Its Playwright checks want the workspace's @playwright/test installed and locked.
  symlinkSync(join(REPO_ROOT, 'node_modules/@playwright'), join(dir, 'node_modules/@playwright'))
  const devDependencies = { '@playwright/test': PLAYWRIGHT_VERSION }
  const manifest = { name: 'hosted-project', private: true, type: 'module', devDependencies }
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest))
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({
      name: manifest.name,
      lockfileVersion: 3,
      packages: { '': { name: manifest.name, devDependencies } },
    }),
  )
  writeSuites(dir)
  writeFileSync(
    join(dir, 'checkly.config.ts'),
    `import { defineConfig } from 'checkly'
export default defineConfig({
  projectName: 'Hosted CLI project',
  logicalId: 'hosted-cli',
  checks: { locations: ['local'], checkMatch: '**/*.check.ts', frequency: 10, tags: ['hosted'] },
})
`,
  )
}

/**
 * A Playwright check suite (the CLI uploads it as a code bundle), a browser and a multi-step check.
 * JavaScript files: this CLI's dependency parser can't read TypeScript beside the repo's TypeScript 7.
 */
function writeSuites(dir: string) {
  mkdirSync(join(dir, 'tests'))
  writeFileSync(
    join(dir, 'playwright.config.mjs'),
    "export default { testDir: './tests', testMatch: '**/*.spec.mjs' }\n",
  )
  const spec = (title: string, body: string) =>
    `import { expect, test } from '@playwright/test'\ntest('${title}', async ({ page }) => {\n${body}\n})\n`
  const shop = `  await page.setContent('<title>Shop</title><h1>Shop</h1>')\n  await expect(page.locator('h1')).toHaveText('Shop')`
  writeFileSync(join(dir, 'tests/shop.spec.mjs'), spec('shop @smoke', shop))
  writeFileSync(join(dir, 'tests/other.spec.mjs'), spec('not run', '  throw new Error("grep missed")'))
  writeFileSync(join(dir, 'browser.spec.mjs'), spec('browser', shop))
  writeFileSync(
    join(dir, 'suites.check.ts'),
    `import { BrowserCheck, MultiStepCheck, PlaywrightCheck } from 'checkly/constructs'
new PlaywrightCheck('suite', { name: 'Suite', playwrightConfigPath: './playwright.config.mjs', pwTags: '@smoke' })
new BrowserCheck('browser', { name: 'Browser', activated: false, code: { entrypoint: './browser.spec.mjs' } })
new MultiStepCheck('steps', { name: 'Steps', activated: false, code: { entrypoint: './browser.spec.mjs' } })
`,
  )
}

function writeChecks(dir: string, apiName: string) {
  writeFileSync(
    join(dir, 'main.check.ts'),
    `import { ApiCheck, AssertionBuilder, CheckGroupV2, DnsMonitor, HeartbeatMonitor, IcmpMonitor, TcpMonitor,
  UrlAssertionBuilder, UrlMonitor, WebhookAlertChannel } from 'checkly/constructs'

const hook = new WebhookAlertChannel('ops-hook', { name: 'Ops', url: 'http://127.0.0.1:9/hook', method: 'POST' })
const group = new CheckGroupV2('shop-group', { name: 'Shop', alertChannels: [hook] })
new ApiCheck('api-health', {
  name: ${JSON.stringify(apiName)}, group, alertChannels: [hook], activated: false,
  request: { method: 'GET', url: 'http://127.0.0.1:9/health', assertions: [AssertionBuilder.statusCode().equals(200)] },
})
new UrlMonitor('home', { name: 'Home', activated: false,
  request: { url: 'http://127.0.0.1:9/', assertions: [UrlAssertionBuilder.statusCode().equals(200)] } })
new TcpMonitor('db-port', { name: 'DB port', activated: false, request: { hostname: '127.0.0.1', port: 9 } })
new DnsMonitor('dns', { name: 'DNS', activated: false, request: { recordType: 'A', query: 'localhost' } })
new IcmpMonitor('ping', { name: 'Ping', activated: false, request: { hostname: '127.0.0.1' } })
new HeartbeatMonitor('nightly', { name: 'Nightly job', period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' })
`,
  )
}

for (const engine of testEngines()) {
  describe(`the hosted product's CLI against svc on ${engine.engine}`, () => {
    let server: ServerProcess
    let project: string
    let dispose: () => Promise<void>
    let key: string
    before(async () => {
      const store = await engine.createUrl()
      dispose = store.dispose
      const env = deploymentEnv(store.url)
      key = env.SVC_BOOTSTRAP_API_KEY
      server = await startServerProcess(env)
      project = mkdtempSync(join(tmpdir(), 'svc-hosted-cli-'))
      writeHostedProject(project)
      mkdirSync(join(project, '.tmp'))
      writeChecks(project, 'API health')
    })
    after(async () => {
      await server?.stop()
      await dispose?.()
      rmSync(project, { recursive: true, force: true })
    })

    const checkly = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(process.execPath, [HOSTED_CLI, ...args], {
        cwd: project,
        env: {
          PATH: process.env.PATH,
          HOME: project,
          XDG_CONFIG_HOME: join(project, '.config'),
          // It stages bundles in temporary folders it doesn't remove: keep them in the project's, removed after.
          TMPDIR: join(project, '.tmp'),
          CHECKLY_ENV: 'local',
          CHECKLY_API_URL: server.url,
          CHECKLY_API_KEY: key,
          CHECKLY_ACCOUNT_ID: server.accountId,
          NO_COLOR: '1',
        },
        timeout: 120_000,
      })
      return stdout
    }
    const api = async (path: string) => {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
      assert.equal(res.status, 200, path)
      return (await res.json()) as any
    }

    test('whoami names the account; deploy --force makes every resource it reported', async () => {
      assert.match(await checkly('whoami'), /You are currently on account "Default"/)
      // No first run of every new check: the suite's test below runs only the suite.
      const deployed = await checkly('deploy', '--force', '--no-schedule-on-deploy')
      assert.match(deployed, /Successfully deployed project "Hosted CLI project"/)
      // The CLI reads each heartbeat's ping URL back where the hosted API has it.
      assert.match(
        deployed,
        /Ping URL of heartbeat check Nightly job is http:\/\/localhost:\d+\/ping\/[\w-]+\./,
      )
      const checks = await api('/v1/checks?limit=100')
      assert.deepEqual(
        checks.map((c: { checkType: string; name: string }) => `${c.checkType} ${c.name}`).sort(),
        [
          'API API health',
          'AUTOMATION Suite',
          'BROWSER Browser',
          'DNS DNS',
          'HEARTBEAT Nightly job',
          'ICMP Ping',
          'MULTI_STEP Steps',
          'TCP DB port',
          'URL Home',
        ],
      )
      const [group] = await api('/v1/check-groups')
      assert.equal(group.name, 'Shop')
      const apiCheck = checks.find((c: { name: string }) => c.name === 'API health')
      assert.equal(apiCheck.groupId, group.id)
      const [channel] = await api('/v1/alert-channels')
      assert.equal(channel.config.name, 'Ops')
      const subscribers = channel.subscriptions.map(
        (s: { checkId?: string; groupId?: number }) => s.checkId ?? s.groupId,
      )
      assert.deepEqual(subscribers.sort(), [apiCheck.id, group.id].sort())
      const [listed] = await api('/v1/projects')
      assert.equal(listed.logicalId, 'hosted-cli')
    })

    test('the Playwright check suite it uploaded runs from its bundle', async () => {
      const suite = (await api('/v1/checks?limit=100')).find((c: { name: string }) => c.name === 'Suite')
      const res = await fetch(`${server.url}/v1/checks/${suite.id}/trigger`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
      })
      const result = (await res.json()) as any
      assert.equal(res.status, 200, JSON.stringify(result))
      assert.equal(result.hasFailures, false, JSON.stringify(result.playwrightCheckResult?.errors))
      // pwTags became the suite's grep: only the tagged test ran.
      assert.deepEqual(
        result.playwrightCheckResult.tests.map(
          (t: { title: string; status: string }) => `${t.title} ${t.status}`,
        ),
        ['shop @smoke passed'],
      )
    })

    test('deploy --preview shows a change without applying it; destroy --force removes everything', async () => {
      writeChecks(project, 'API health v2')
      const preview = await checkly('deploy', '--preview')
      // Only the changed check is listed: svc reports the others as unchanged, which this CLI doesn't print.
      assert.match(preview, /Update and Unchanged:\n\s+ApiCheck: api-health\n\n/)
      assert.equal(
        (await api('/v1/checks?limit=100')).some((c: { name: string }) => c.name === 'API health'),
        true,
      )

      const destroyed = await checkly('destroy', '--force')
      assert.match(destroyed, /successfully deleted/)
      assert.deepEqual(await api('/v1/checks'), [])
      assert.deepEqual(await api('/v1/check-groups'), [])
      assert.deepEqual(await api('/v1/alert-channels'), [])
      assert.deepEqual(await api('/v1/projects'), [])
    })
  })
}
