import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import {
  deploymentEnv,
  type ServerProcess,
  startServerProcess,
} from '../../../server/src/testing/server-process.ts'
import { CliProject, configFile } from '../testing/cli-project.ts'

for (const engine of testEngines()) {
  describe(`svc checks, trigger and env on ${engine.engine}`, () => {
    let server: ServerProcess
    let dispose: () => Promise<void>
    let target: Server
    let cli: CliProject
    let env: Record<string, string>
    let key: string
    let base: string
    before(async () => {
      const store = await engine.createUrl()
      dispose = store.dispose
      const serverEnv = deploymentEnv(store.url)
      server = await startServerProcess(serverEnv)
      target = createServer((req, res) => {
        res.statusCode = req.url === '/ok' ? 200 : 500
        res.end('{}')
      })
      await new Promise<void>((done) => target.listen(0, '127.0.0.1', done))
      base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`
      cli = new CliProject({
        'svc.config.ts': configFile('triggers'),
        'api.check.ts': `import { ApiCheck } from '@svc/cli'
const ok = [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] as const
new ApiCheck('up', { name: 'Up <&>', tags: ['smoke'], activated: false, request: { url: '${base}/ok', assertions: [...ok] } })
new ApiCheck('down', { name: 'Down', tags: ['smoke', 'broken'], activated: false, request: { url: '${base}/fail', assertions: [...ok] } })
new ApiCheck('other', { name: 'Other', tags: ['other'], activated: false, request: { url: '${base}/ok', assertions: [...ok] } })
`,
        'suite.check.ts': `import { AutomationCheck } from '@svc/cli'
new AutomationCheck('suite', { name: 'Suite', activated: false, playwrightConfig: './e2e/playwright.config.ts' })
`,
        'e2e/playwright.config.ts': 'export default {}\n',
        'e2e/a.spec.ts': "import { test } from '@playwright/test'\ntest('a', async () => {})\n",
      })
      key = serverEnv.SVC_BOOTSTRAP_API_KEY
      env = { SVC_API_URL: server.url, SVC_API_KEY: key }
      const deployed = await cli.run(['deploy', '--force', '--no-schedule-on-deploy'], env)
      assert.equal(deployed.code, 0, deployed.stderr)
    })
    after(async () => {
      await server?.stop()
      target?.close()
      await dispose?.()
      cli?.remove()
    })

    test('checks list filters by tag; checks get shows one check', async () => {
      const listed = await cli.run(['checks', 'list', '--tag', 'smoke', '--output', 'json'], env)
      assert.equal(listed.code, 0, listed.stderr)
      const checks = JSON.parse(listed.stdout)
      assert.deepEqual(checks.map((c: any) => c.name).sort(), ['Down', 'Up <&>'])
      const text = await cli.run(['checks', 'list'], env)
      assert.match(text.stdout, /^ID\s+TYPE\s+NAME\s+ACTIVE\s+TAGS\n/)
      assert.equal(text.stdout.trim().split('\n').length, 5)
      assert.match(text.stdout, /AUTOMATION\s+Suite/)
      const got = await cli.run(['checks', 'get', checks[0].id, '-o', 'json'], env)
      assert.equal(JSON.parse(got.stdout).id, checks[0].id)
      const missing = await cli.run(['checks', 'get', '00000000-0000-4000-8000-000000000000'], env)
      assert.equal(missing.code, 1)
      assert.match(missing.stderr, /404/)
      const notAnId = await cli.run(['checks', 'get', 'my-check'], env)
      assert.equal(notAnId.code, 2)
      assert.match(notAnId.stderr, /"my-check" is not a check id: check ids are UUIDs/)
      assert.doesNotMatch(notAnId.stderr, /format/)
    })

    test('trigger runs the tagged checks, reports each, and exits 1 on a failure (list, JUnit, GitHub)', async () => {
      const passing = await cli.run(['trigger', '--tag', 'smoke', '--grep', '^up'], env)
      assert.equal(passing.code, 0, passing.stderr)
      assert.match(passing.stdout, /✔ Up <&> \[API, local\] \d+ ms\n1 passed, 0 failed/)

      const failing = await cli.run(['trigger', '--tag', 'smoke', '--reporter', 'junit'], env)
      assert.equal(failing.code, 1)
      assert.match(failing.stdout, /<testsuites name="svc trigger" tests="2" failures="1">/)
      assert.match(failing.stdout, /<testcase name="Up &lt;&amp;&gt;" classname="API.local" time="[\d.]+"\/>/)
      assert.match(
        failing.stdout,
        /<testcase name="Down" classname="API.local" time="[\d.]+">\n\s+<failure message=/,
      )

      const summary = join(cli.dir, 'summary.md')
      writeFileSync(summary, '')
      const github = await cli.run(['trigger', '--tag', 'broken', '--reporter', 'github'], {
        ...env,
        GITHUB_STEP_SUMMARY: summary,
      })
      assert.equal(github.code, 1)
      assert.match(
        readFileSync(summary, 'utf8'),
        /### svc trigger: 0 passed, 1 failed\n[\s\S]*\| Down \| API \| local \| ❌ failed \|/,
      )

      const json = await cli.run(['trigger', '--tag', 'other', '-o', 'json'], env)
      assert.equal(json.code, 0)
      const report = JSON.parse(json.stdout)
      assert.equal(report.passed, true)
      assert.deepEqual(
        report.runs.map((run: any) => run.name),
        ['Other'],
      )
    })

    test('trigger --env runs the checks with those variables over their own', async () => {
      const created = await fetch(`${server.url}/v1/checks/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Per environment',
          tags: ['per-env'],
          activated: false,
          locations: ['local'],
          // Its own ENVIRONMENT_URL points where nothing listens.
          environmentVariables: [{ key: 'ENVIRONMENT_URL', value: 'http://127.0.0.1:9' }],
          request: {
            url: '{{ENVIRONMENT_URL}}/ok',
            assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
          },
        }),
      })
      assert.equal(created.status, 201, await created.clone().text())
      const own = await cli.run(['trigger', '--tag', 'per-env'], env)
      assert.equal(own.code, 1, own.stdout + own.stderr)
      const given = await cli.run(
        ['trigger', '--tag', 'per-env', '--env', `ENVIRONMENT_URL=${base}`, '-o', 'json'],
        env,
      )
      assert.equal(given.code, 0, given.stdout + given.stderr)
      const report = JSON.parse(given.stdout)
      assert.deepEqual(
        report.runs.map((run: any) => [run.name, run.passed]),
        [['Per environment', true]],
      )
      const malformed = await cli.run(['trigger', '--tag', 'per-env', '--env', 'ENVIRONMENT_URL'], env)
      assert.equal(malformed.code, 2)
      assert.match(malformed.stderr, /--env ENVIRONMENT_URL: expected KEY=VALUE/)
      // The tests after this one count the deployed checks.
      const { id } = (await created.json()) as { id: string }
      const removed = await fetch(`${server.url}/v1/checks/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      })
      assert.equal(removed.status, 204)
    })

    test("trigger matches a group's tags, skips heartbeats (nothing to run) and says a bad --grep", async () => {
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        assert.ok(res.status < 300, `${path}: ${await res.clone().text()}`)
        return res.status === 204 ? undefined : ((await res.json()) as any)
      }
      const group = await call('POST', '/v1/check-groups', {
        name: 'Nightly',
        tags: ['nightly'],
        locations: ['local'],
      })
      const grouped = await call('POST', '/v1/checks/api', {
        name: 'Grouped',
        activated: false,
        groupId: group.id,
        request: { method: 'GET', url: `${base}/ok` },
      })
      const beat = await call('POST', '/v1/checks/heartbeat', {
        name: 'Nightly beat',
        tags: ['nightly'],
        heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
      })
      try {
        const run = await cli.run(['trigger', '--tag', 'nightly'], env)
        assert.equal(run.code, 0, run.stderr)
        assert.match(run.stdout, /Skipping 1 heartbeat check\(s\): they are judged from their pings, not run/)
        assert.match(run.stdout, /Running 1 check\(s\)…\n✔ Grouped \[API, local\] \d+ ms\n1 passed, 0 failed/)
        const onlyBeat = await cli.run(['trigger', '--tag', 'nightly', '--grep', 'beat'], env)
        assert.equal(onlyBeat.code, 1)
        assert.match(onlyBeat.stderr, /^No check to run matches\n$/)
        const badGrep = await cli.run(['trigger', '--grep', '('], env)
        assert.equal(badGrep.code, 2)
        assert.match(badGrep.stderr, /^--grep must be a regular expression: /)
      } finally {
        await call('DELETE', `/v1/checks/${grouped.id}`)
        await call('DELETE', `/v1/checks/${beat.id}`)
        await call('DELETE', `/v1/check-groups/${group.id}`)
      }
    })

    test('env add, ls, pull and rm', async () => {
      assert.equal((await cli.run(['env', 'add', 'BASE_URL', 'https://shop.example.com/a b'], env)).code, 0)
      assert.equal((await cli.run(['env', 'add', 'TOKEN', 's3cret', '--secret'], env)).code, 0)
      const duplicate = await cli.run(['env', 'add', 'TOKEN', 'again'], env)
      assert.equal(duplicate.code, 1)
      assert.match(duplicate.stderr, /409/)
      const listed = JSON.parse((await cli.run(['env', 'ls', '-o', 'json'], env)).stdout)
      assert.deepEqual(
        listed.map((v: any) => [v.key, v.value]),
        [
          ['BASE_URL', 'https://shop.example.com/a b'],
          ['TOKEN', '***masked***'],
        ],
      )
      assert.equal((await cli.run(['env', 'pull'], env)).code, 0)
      assert.equal(
        readFileSync(join(cli.dir, '.env'), 'utf8'),
        'BASE_URL="https://shop.example.com/a b"\n# TOKEN: secret, not readable\n',
      )
      assert.equal((await cli.run(['env', 'rm', 'TOKEN'], env)).code, 0)
      const after = JSON.parse((await cli.run(['env', 'ls', '-o', 'json'], env)).stdout)
      assert.deepEqual(
        after.map((v: any) => v.key),
        ['BASE_URL'],
      )
    })

    test('import writes construct code that validates and synthesizes what the server has', async () => {
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        assert.ok([200, 201].includes(res.status), `${path}: ${await res.clone().text()}`)
        return (await res.json()) as any
      }
      const group = await post('/v1/check-groups', {
        name: 'Clicked group',
        locations: ['local'],
        frequency: 30,
      })
      const hook = await post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'Clicked hook', url: 'http://127.0.0.1:9/hook' },
      })
      await post('/v1/checks/heartbeat', {
        name: 'Clicked beat',
        groupId: group.id,
        heartbeat: { period: 2, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' },
        alertChannelSubscriptions: [{ alertChannelId: hook.id, activated: true }],
      })
      await post('/v1/checks/browser', {
        name: "Clicked 'journey'",
        activated: false,
        locations: ['local'],
        script: "const { test } = require('@playwright/test')\ntest('t', async () => {})\n",
      })

      await post('/v1/private-locations', { name: 'Clicked office', slugName: 'clicked-office' })
      const service = await post('/v1/status-pages/services', { name: 'Clicked API' })
      await post('/v3/status-pages', {
        name: 'Clicked status',
        url: 'clicked-status',
        cards: [{ name: 'Main', services: [{ id: service.id }] }],
      })
      await post('/v1/checks/tcp', {
        name: 'Clicked port',
        activated: false,
        locations: [],
        privateLocations: ['clicked-office'],
        request: { hostname: '127.0.0.1', port: 9 },
        triggerIncident: {
          serviceId: service.id,
          severity: 'MAJOR',
          name: 'Port closed',
          description: 'The port is closed',
          notifySubscribers: false,
        },
      })

      await post('/v1/checks/ssl', {
        name: 'Clicked cert',
        activated: false,
        locations: ['local'],
        request: { sslConfig: { hostname: 'example.com', alertDaysBeforeExpiry: 30 } },
      })
      await post('/v1/dashboards', { header: 'Clicked', customUrl: 'clicked-board', tags: ['shop'] })
      await post('/v1/variables', { key: 'CLICKED_TOKEN', value: 'never-read-back', secret: true })
      await post('/v1/maintenance-windows', {
        name: 'Clicked release',
        tags: ['shop'],
        startsAt: '2030-01-07T22:00:00.000Z',
        endsAt: '2030-01-07T23:00:00.000Z',
        repeatUnit: 'WEEK',
        repeatInterval: 1,
        timezone: 'Europe/Berlin',
      })
      await post('/v1/maintenance-windows', {
        name: 'Clicked move',
        tags: ['api', 'shop'],
        startsAt: '2030-03-01',
        endsAt: '2030-03-02',
      })

      const imported = new CliProject({ 'svc.config.ts': configFile('imported') })
      after(() => imported.remove())
      const run = await imported.run(['import'], env)
      assert.equal(run.code, 0, run.stderr)
      assert.match(
        run.stdout,
        /Wrote 8 checks, 1 groups, 1 alert channels, 1 private locations, 1 status page services, 1 status pages, 1 dashboards, 2 variables and 2 maintenance windows to checks\/imported\.check\.ts/,
      )
      assert.match(
        run.stdout,
        /Wrote the Playwright suites' files: checks\/suite\/a\.spec\.ts, checks\/suite\/playwright\.config\.ts/,
      )
      assert.doesNotMatch(run.stderr, /Skipped/)
      assert.equal(
        readFileSync(join(imported.dir, 'checks/suite/a.spec.ts'), 'utf8'),
        "import { test } from '@playwright/test'\ntest('a', async () => {})\n",
      )
      assert.match(
        run.stdout,
        /can't be read back: the code reads them from the environment at deploy \(CLICKED_TOKEN\)/,
      )
      const unset = await imported.run(['validate'], env)
      assert.match(unset.stderr, /imported\.check\.ts: clicked-token: value is required/)
      const withToken = { ...env, CLICKED_TOKEN: 'from-the-ci-secret' }
      const validated = await imported.run(['validate'], withToken)
      assert.equal(validated.code, 0, validated.stderr)
      const payload = JSON.parse((await imported.run(['synth', '-o', 'json'], withToken)).stdout)
      const byId = Object.fromEntries(payload.resources.map((r: any) => [r.logicalId, r.payload]))
      assert.deepEqual(byId['clicked-hook'], {
        type: 'WEBHOOK',
        config: {
          name: 'Clicked hook',
          url: 'http://127.0.0.1:9/hook',
          method: 'POST',
          headers: [],
          queryParameters: [],
          template: '',
        },
      })
      assert.deepEqual(byId['clicked-group'].frequency, 30)
      assert.deepEqual(byId['clicked-beat'].heartbeat, {
        period: 2,
        periodUnit: 'hours',
        grace: 10,
        graceUnit: 'minutes',
      })
      assert.deepEqual(byId['clicked-beat'].groupId, { ref: 'clicked-group' })
      const cert = byId['clicked-cert']
      assert.deepEqual(
        [cert.checkType, cert.request.sslConfig.hostname, cert.request.sslConfig.alertDaysBeforeExpiry],
        ['SSL', 'example.com', 30],
      )
      assert.deepEqual(byId['clicked-board'], {
        header: 'Clicked',
        customUrl: 'clicked-board',
        tags: ['shop'],
      })
      assert.deepEqual(byId['clicked-token'], {
        key: 'CLICKED_TOKEN',
        value: 'from-the-ci-secret',
        secret: true,
        description: '',
      })
      assert.deepEqual(byId['base-url'], {
        key: 'BASE_URL',
        value: 'https://shop.example.com/a b',
        description: '',
      })
      assert.deepEqual(byId['check-alert-channel-subscription#clicked-beat#clicked-hook'], {
        alertChannelId: { ref: 'clicked-hook' },
        checkId: { ref: 'clicked-beat' },
        activated: true,
      })
      assert.deepEqual(byId['clicked-release'], {
        name: 'Clicked release',
        tags: ['shop'],
        startsAt: '2030-01-07T22:00:00.000Z',
        endsAt: '2030-01-07T23:00:00.000Z',
        repeatUnit: 'WEEK',
        repeatInterval: 1,
        timezone: 'Europe/Berlin',
      })
      assert.deepEqual(byId['clicked-move'], {
        name: 'Clicked move',
        tags: ['api', 'shop'],
        startsAt: '2030-03-01T00:00:00.000Z',
        endsAt: '2030-03-02T00:00:00.000Z',
      })
      assert.deepEqual(byId['clicked-office'], { name: 'Clicked office', slugName: 'clicked-office' })
      assert.deepEqual(byId['clicked-api'], { name: 'Clicked API' })
      assert.deepEqual(byId['clicked-status'], {
        name: 'Clicked status',
        url: 'clicked-status',
        cards: [{ name: 'Main', services: [{ ref: 'clicked-api' }] }],
      })
      assert.deepEqual(byId['clicked-port'].privateLocations, [])
      assert.deepEqual(byId['private-location-check-assignment#clicked-port#clicked-office'], {
        privateLocationId: { ref: 'clicked-office' },
        checkId: { ref: 'clicked-port' },
      })
      assert.deepEqual(byId['clicked-port'].triggerIncident, {
        serviceId: { ref: 'clicked-api' },
        severity: 'MAJOR',
        name: 'Port closed',
        description: 'The port is closed',
        notifySubscribers: false,
      })
      assert.equal(byId['clicked-journey'].activated, false)
      assert.match(byId['clicked-journey'].script, /test\('t'/)
      assert.deepEqual(byId.up.request.url.endsWith('/ok'), true)
      // The suite deploys again with the files it was deployed with.
      const original = JSON.parse((await cli.run(['synth', '-o', 'json'], env)).stdout)
      const suite = original.resources.find((r: any) => r.logicalId === 'suite').payload
      assert.deepEqual(byId.suite.dependencies, suite.dependencies)
      assert.equal(byId.suite.playwrightConfigPath, suite.playwrightConfigPath)
      assert.equal(byId.suite.activated, false)
      const again = await imported.run(['import'], env)
      assert.equal(again.code, 1)
      assert.match(again.stderr, /exists already: pass --force/)
    })
  })
}
