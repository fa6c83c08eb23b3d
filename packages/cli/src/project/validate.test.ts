import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, describe, test } from 'node:test'
import { CliProject, configFile } from '../testing/cli-project.ts'

const projects: CliProject[] = []
const project = (files: Record<string, string>) => {
  const made = new CliProject(files)
  projects.push(made)
  return made
}
after(() => {
  for (const made of projects) made.remove()
})

const CHECKS = `import { ApiCheck, BrowserCheck, CheckGroup, HeartbeatMonitor, WebhookAlertChannel } from '@svc/cli'
const hook = new WebhookAlertChannel('ops-hook', { name: 'Ops', url: 'http://127.0.0.1:9/hook' })
const group = new CheckGroup('shop', { name: 'Shop', alertChannels: [hook] })
new ApiCheck('orders', {
  name: 'Orders', group, alertChannels: [hook],
  request: { method: 'GET', url: 'http://127.0.0.1:9/orders', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
})
new HeartbeatMonitor('nightly', { name: 'Nightly', heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' } })
new BrowserCheck('home', { name: 'Home', frequency: 60, code: { entrypoint: './home.spec.ts' } })
`

describe('svc validate and synth', () => {
  test('synth writes the deploy payload: config defaults, references as {ref}, subscriptions, scripts from files', async () => {
    const cli = project({
      'svc.config.ts': configFile('shop'),
      'checks/main.check.ts': CHECKS,
      'checks/home.spec.ts': "import { test } from '@playwright/test'\ntest('home', async () => {})\n",
    })
    const validated = await cli.run(['validate'])
    assert.equal(validated.code, 0, validated.stderr)
    assert.match(validated.stdout, /Valid: 5 constructs \(7 resources\) in 2 files/)

    const { code, stdout, stderr } = await cli.run(['synth', '--output', 'json'])
    assert.equal(code, 0, stderr)
    const payload = JSON.parse(stdout)
    assert.deepEqual(payload.project, { logicalId: 'shop', name: 'Test project' })
    const byId = Object.fromEntries(payload.resources.map((r: any) => [r.logicalId, r]))
    assert.deepEqual(Object.keys(byId).sort(), [
      'check-alert-channel-subscription#orders#ops-hook',
      'check-group-alert-channel-subscription#shop#ops-hook',
      'home',
      'nightly',
      'ops-hook',
      'orders',
      'shop',
    ])
    assert.deepEqual(byId['ops-hook'].payload, {
      type: 'WEBHOOK',
      config: { name: 'Ops', url: 'http://127.0.0.1:9/hook' },
    })
    assert.deepEqual(byId.shop.payload, { name: 'Shop', locations: ['local'], frequency: 10 })
    // A check in a group inherits from the group, not from the config.
    assert.deepEqual(byId.orders.payload, {
      checkType: 'API',
      name: 'Orders',
      request: {
        method: 'GET',
        url: 'http://127.0.0.1:9/orders',
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
      },
      groupId: { ref: 'shop' },
    })
    assert.deepEqual(byId.nightly.payload.tags, ['cli'])
    assert.deepEqual(byId.nightly.payload.locations, ['local'])
    assert.equal(byId.home.payload.frequency, 60)
    assert.match(byId.home.payload.script, /test\('home'/)
    // Named as its file, so the runner runs a .ts script as TypeScript.
    assert.equal(byId.home.payload.scriptPath, 'home.spec.ts')
    assert.deepEqual(byId['check-alert-channel-subscription#orders#ops-hook'], {
      logicalId: 'check-alert-channel-subscription#orders#ops-hook',
      type: 'alert-channel-subscription',
      member: true,
      payload: { alertChannelId: { ref: 'ops-hook' }, checkId: { ref: 'orders' }, activated: true },
      sourceFile: 'checks/main.check.ts',
    })
    assert.deepEqual(byId['check-group-alert-channel-subscription#shop#ops-hook'].payload, {
      alertChannelId: { ref: 'ops-hook' },
      groupId: { ref: 'shop' },
      activated: true,
    })
  })

  test('bad constructs fail with their file and field named, and deploy sends no request', async () => {
    const cli = project({
      'svc.config.ts': configFile('bad'),
      'api.check.ts': `import { ApiCheck, EmailAlertChannel } from '@svc/cli'
new ApiCheck('orders', { name: 'Orders', frequency: 7, request: { url: 'http://x', method: 'FETCH', bogus: 1 } } as any)
new ApiCheck('slow', { name: 'Slow', maxResponseTime: 500, request: { url: 'http://x', method: 'GET' } })
new EmailAlertChannel('mail', { address: 'not-an-address' })
`,
      'more/dup.check.ts': `import { BrowserCheck, HeartbeatMonitor } from '@svc/cli'
new HeartbeatMonitor('orders', { name: 'Dup', heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' } })
new BrowserCheck('journey', { name: 'Journey', code: { entrypoint: './missing.spec.ts' } })
`,
    })
    const { code, stderr } = await cli.run(['validate'])
    assert.equal(code, 1)
    const lines = stderr
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim())
    assert.deepEqual(lines, [
      'api.check.ts: orders: frequency must be equal to one of the allowed values: 0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440',
      'api.check.ts: orders: request.bogus is not a known field',
      'api.check.ts: orders: request.method must be equal to one of the allowed values: GET, POST, PUT, HEAD, DELETE, PATCH, OPTIONS',
      'api.check.ts: slow: degradedResponseTime (10000) must not exceed maxResponseTime (500)',
      'api.check.ts: mail: address must match format "email"',
      `more/dup.check.ts: orders: logicalId is already used by another check (in ${cli.dir}/api.check.ts)`,
      `more/dup.check.ts: journey: code.entrypoint names ${cli.dir}/more/missing.spec.ts, which doesn't exist`,
    ])

    let requests = 0
    const server = createServer((_req, res) => {
      requests++
      res.end('{}')
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const deployed = await cli.run(['deploy', '--force'], { SVC_API_URL: url, SVC_API_KEY: 'svc_x' })
    server.close()
    assert.equal(deployed.code, 1)
    assert.match(deployed.stderr, /nothing was sent/)
    assert.equal(requests, 0)
  })

  test('a project without a config, or a check file that throws, is named', async () => {
    const empty = project({})
    const missing = await empty.run(['validate'])
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /No svc\.config\.ts in .*: run `svc init`/)

    const broken = project({
      'svc.config.ts': configFile('broken'),
      'x.check.ts': "throw new Error('boom')\n",
    })
    const failed = await broken.run(['validate'])
    assert.equal(failed.code, 1)
    assert.match(failed.stderr, /x\.check\.ts failed to load: boom/)

    // A package.json from `npm init -y` makes the files CommonJS: the error says what to change.
    const commonJs = project({
      'package.json': JSON.stringify({ name: 'checks', type: 'commonjs' }),
      'svc.config.ts': configFile('cjs'),
    })
    const refused = await commonJs.run(['validate'])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /failed to load: .*set "type": "module"/)
  })

  test('an AutomationCheck sends its suite: the Playwright config and the files its globs find', async () => {
    const cli = project({
      'svc.config.ts': configFile('suite'),
      'suite.check.ts': `import { AutomationCheck } from '@svc/cli'
new AutomationCheck('e2e', { name: 'E2E suite', playwrightConfig: './e2e/playwright.config.ts', grep: '@smoke' })
new AutomationCheck('lost', { name: 'Lost', playwrightConfig: './nowhere/playwright.config.ts' })
`,
      'e2e/playwright.config.ts': "export default { testDir: './tests' }\n",
      'e2e/tests/cart.spec.ts':
        "import { test } from '@playwright/test'\ntest('cart @smoke', async () => {})\n",
      'e2e/tests/notes.md': 'not sent\n',
      'e2e/node_modules/dep/index.js': 'never sent\n',
    })
    const failed = await cli.run(['validate'])
    assert.equal(failed.code, 1)
    assert.match(
      failed.stderr,
      /suite\.check\.ts: lost: playwrightConfig names .*nowhere\/playwright\.config\.ts, which doesn't exist/,
    )
    cli.write({
      'suite.check.ts':
        "import { AutomationCheck } from '@svc/cli'\nnew AutomationCheck('e2e', { name: 'E2E suite', playwrightConfig: './e2e/playwright.config.ts', grep: '@smoke' })\n",
    })
    const { code, stdout, stderr } = await cli.run(['synth', '-o', 'json'])
    assert.equal(code, 0, stderr)
    const [suite] = JSON.parse(stdout).resources
    assert.equal(suite.payload.checkType, 'AUTOMATION')
    assert.equal(suite.payload.grep, '@smoke')
    assert.equal(suite.payload.playwrightConfigPath, 'playwright.config.ts')
    assert.deepEqual(suite.payload.dependencies, [
      { path: 'playwright.config.ts', content: "export default { testDir: './tests' }\n" },
      {
        path: 'tests/cart.spec.ts',
        content: "import { test } from '@playwright/test'\ntest('cart @smoke', async () => {})\n",
      },
    ])
  })
})
