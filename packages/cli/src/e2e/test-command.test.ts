import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { browserTestsSkipReason } from '@svc/runner/testing'
import {
  deploymentEnv,
  type ServerProcess,
  startServerProcess,
} from '../../../server/src/testing/server-process.ts'
import { CliProject, configFile } from '../testing/cli-project.ts'

const browserSkip = browserTestsSkipReason()

for (const engine of testEngines()) {
  describe(`svc test (unsaved checks on the server) on ${engine.engine}`, () => {
    let server: ServerProcess
    let dispose: () => Promise<void>
    let target: Server
    let cli: CliProject
    let env: Record<string, string>
    let base: string
    before(async () => {
      const store = await engine.createUrl()
      dispose = store.dispose
      const serverEnv = deploymentEnv(store.url)
      // A generous start: a shared, loaded machine takes well over the default 30 s to boot a server.
      server = await startServerProcess(serverEnv, 180_000)
      target = createServer((req, res) => {
        // The --env value reaches the check as {{HEADER_VALUE}}: /ok answers 200 only when it came.
        const good = req.url === '/ok' && req.headers['x-from-env'] === 'sent'
        res.statusCode = good ? 200 : 500
        res.setHeader('content-type', 'text/html')
        res.end('<html><body><h1>Shop</h1></body></html>')
      })
      await new Promise<void>((done) => target.listen(0, '127.0.0.1', done))
      base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`
      cli = new CliProject({
        'svc.config.ts': configFile('unsaved'),
        'api.check.ts': `import { ApiCheck } from '@svc/cli'
const ok = [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] as const
const headers = [{ key: 'x-from-env', value: '{{HEADER_VALUE}}' }]
new ApiCheck('up', { name: 'Up', tags: ['smoke'], request: { url: '${base}/ok', headers, assertions: [...ok] } })
new ApiCheck('down', { name: 'Down', tags: ['smoke', 'broken'], request: { url: '${base}/fail', assertions: [...ok] } })
`,
      })
      env = { SVC_API_URL: server.url, SVC_API_KEY: serverEnv.SVC_BOOTSTRAP_API_KEY }
    })
    after(async () => {
      await server?.stop()
      target?.close()
      await dispose?.()
      cli?.remove()
    })

    test('runs the project without deploying it; one pass, one fail, exit 1; filters and reporters', async () => {
      const all = await cli.run(['test', '--env', 'HEADER_VALUE=sent'], env)
      assert.equal(all.code, 1, all.stderr)
      assert.match(all.stdout, /✔ Up \[API, local\] \d+ ms/)
      assert.match(all.stdout, /✖ Down \[API, local\] \d+ ms: /)
      assert.match(all.stdout, /1 passed, 1 failed/)
      // Nothing was deployed.
      const checks = await fetch(`${server.url}/v1/checks`, {
        headers: { authorization: `Bearer ${env.SVC_API_KEY}` },
      })
      assert.deepEqual(await checks.json(), [])

      const passing = await cli.run(['test', '--grep', '^up$', '--env', 'HEADER_VALUE=sent'], env)
      assert.equal(passing.code, 0, passing.stdout + passing.stderr)
      assert.match(passing.stdout, /1 passed, 0 failed/)
      const withoutEnv = await cli.run(['test', '--grep', '^up$'], env)
      assert.equal(withoutEnv.code, 1, 'the check needs the --env value')

      const junit = await cli.run(['test', '--tags', 'broken', '--reporter', 'junit'], env)
      assert.equal(junit.code, 1)
      assert.match(junit.stdout, /<testsuites name="svc test" tests="1" failures="1">/)
      const summary = join(cli.dir, 'summary.md')
      writeFileSync(summary, '')
      const github = await cli.run(['test', '--tags', 'smoke,broken', '--reporter', 'github'], {
        ...env,
        GITHUB_STEP_SUMMARY: summary,
      })
      assert.equal(github.code, 1)
      assert.match(
        readFileSync(summary, 'utf8'),
        /### svc test: 0 passed, 1 failed\n[\s\S]*\| Down \| API \| local \| ❌ failed \|/,
      )
      const none = await cli.run(['test', '--tags', 'no-such-tag'], env)
      assert.equal(none.code, 1)
      assert.match(none.stderr, /No check matches/)
      const badLocation = await cli.run(['test', '--location', 'mars-1'], env)
      assert.equal(badLocation.code, 1)
      assert.match(badLocation.stderr, /runLocation/)
    })

    test('a browser check runs unsaved, with its screenshot kept in the session', {
      skip: browserSkip,
    }, async () => {
      cli.write({
        'web.check.ts': `import { BrowserCheck } from '@svc/cli'
new BrowserCheck('web', { name: 'Web', tags: ['web'], code: { entrypoint: './web.spec.ts' } })
`,
        'web.spec.ts': `import { expect, test } from '@playwright/test'
test('the shop shows', async ({ page }) => {
  await page.goto('${base}/page')
  await expect(page.locator('h1')).toHaveText('Shop')
  await page.screenshot({ path: 'shop.png' })
})
`,
      })
      const run = await cli.run(['test', '--tags', 'web', '-o', 'json'], env)
      assert.equal(run.code, 0, run.stdout + run.stderr)
      const report = JSON.parse(run.stdout)
      assert.deepEqual(
        report.runs.map((r: any) => [r.name, r.checkType, r.passed]),
        [['Web', 'BROWSER', true]],
      )
      const sessions = await (
        await fetch(`${server.url}/v1/test-sessions`, {
          headers: { authorization: `Bearer ${env.SVC_API_KEY}` },
        })
      ).json()
      const session = await (
        await fetch(`${server.url}/v1/test-sessions/${sessions.entries[0].testSessionId}`, {
          headers: { authorization: `Bearer ${env.SVC_API_KEY}` },
        })
      ).json()
      const [result] = session.results
      const assets = await (
        await fetch(`${new URL(result.testSessionResultLink).href}/assets?type=screenshot`, {
          headers: { authorization: `Bearer ${env.SVC_API_KEY}` },
        })
      ).json()
      assert.ok(assets.assets.length > 0, JSON.stringify(assets))
      const image = await fetch(assets.assets[0].url, {
        headers: { authorization: `Bearer ${env.SVC_API_KEY}` },
      })
      assert.equal(image.status, 200)
      assert.equal(image.headers.get('content-type'), 'image/png')
    })
  })
}
