import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import mqtt from 'mqtt'
import { deploymentEnv, type ServerProcess, startServerProcess } from '../../testing/server-process.ts'

const REPO_ROOT = resolve(import.meta.dirname, '../../../../..')
const HOSTED_CLI = join(REPO_ROOT, 'node_modules/checkly/bin/run.cjs')

/**
 * Two API checks tagged `ci` against a local target: one passes, one gets a 500. A third, tagged `env`,
 * calls `{{ENVIRONMENT_URL}}`, which its own variables point where nothing listens.
 */
function writeProject(dir: string, target: string) {
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  symlinkSync(join(REPO_ROOT, 'node_modules/checkly'), join(dir, 'node_modules/checkly'))
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'ci-project', private: true, type: 'module' }),
  )
  writeFileSync(
    join(dir, 'checkly.config.ts'),
    `import { defineConfig } from 'checkly'
export default defineConfig({
  projectName: 'CI project',
  logicalId: 'ci-project',
  checks: { locations: ['local'], checkMatch: '**/*.check.ts', tags: ['ci'] },
})
`,
  )
  writeFileSync(
    join(dir, 'api.check.ts'),
    `import { ApiCheck, AssertionBuilder } from 'checkly/constructs'
const ok = [AssertionBuilder.statusCode().equals(200)]
new ApiCheck('passing-api', { name: 'Passing API', request: { method: 'GET', url: '${target}/ok', assertions: ok } })
new ApiCheck('failing-api', { name: 'Failing API', request: { method: 'GET', url: '${target}/fail', assertions: ok } })
`,
  )
  writeFileSync(
    join(dir, 'env.check.ts'),
    `import { ApiCheck, AssertionBuilder } from 'checkly/constructs'
new ApiCheck('env-api', {
  name: 'Environment API',
  tags: ['env'],
  environmentVariables: [{ key: 'ENVIRONMENT_URL', value: 'http://127.0.0.1:9' }],
  request: { method: 'GET', url: '{{ENVIRONMENT_URL}}/ok', assertions: [AssertionBuilder.statusCode().equals(200)] },
})
`,
  )
}

for (const engine of testEngines()) {
  describe(`checkly test and trigger against svc, results live over MQTT, on ${engine.engine}`, () => {
    let server: ServerProcess
    let targetServer: Server
    let project: string
    let dispose: () => Promise<void>
    let key: string
    before(async () => {
      targetServer = createServer((req, res) => {
        res.statusCode = req.url === '/ok' ? 200 : 500
        res.end(req.url === '/ok' ? 'fine' : 'broken')
      })
      targetServer.listen(0, '127.0.0.1')
      await once(targetServer, 'listening')
      const store = await engine.createUrl()
      dispose = store.dispose
      const env = deploymentEnv(store.url)
      key = env.SVC_BOOTSTRAP_API_KEY
      server = await startServerProcess(env)
      project = mkdtempSync(join(tmpdir(), 'svc-hosted-live-'))
      writeProject(project, `http://127.0.0.1:${(targetServer.address() as AddressInfo).port}`)
    })
    after(async () => {
      await server?.stop()
      await dispose?.()
      targetServer?.close()
      rmSync(project, { recursive: true, force: true })
    })

    /** Runs the hosted CLI; resolves with its exit code and output, whatever the code. */
    const checkly = (...args: string[]) =>
      new Promise<{ code: number; out: string }>((done) => {
        execFile(
          process.execPath,
          [HOSTED_CLI, ...args],
          {
            cwd: project,
            env: {
              PATH: process.env.PATH,
              HOME: project,
              XDG_CONFIG_HOME: join(project, '.config'),
              CHECKLY_ENV: 'local',
              CHECKLY_API_URL: server.url,
              CHECKLY_MQTT_URL: `${server.url.replace(/^http/, 'ws')}/mqtt`,
              CHECKLY_API_KEY: key,
              CHECKLY_ACCOUNT_ID: server.accountId,
              NO_COLOR: '1',
            },
            timeout: 120_000,
          },
          (error, stdout, stderr) =>
            done({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
        )
      })
    const api = async (path: string) => {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
      assert.equal(res.status, 200, path)
      return (await res.json()) as any
    }
    const sessionIdIn = (out: string) => out.match(/\/test-sessions\/([0-9a-f-]{36})/)?.[1]

    test('checkly test runs the unsaved checks, shows each result with its detail and exits 1 on a failure', async () => {
      const { code, out } = await checkly('test', 'api.check.ts', '--location', 'local')
      assert.equal(code, 1, out)
      assert.match(out, /api\.check\.ts\n\s+✖ Failing API \(\d+m?s\)\n\s+✔ Passing API \(\d+m?s\)/)
      assert.match(out, /Status Code: 500 Internal Server Error/)
      assert.match(out, /✖ status code equals target "200"\. Received: 500\./)
      assert.match(out, /1 failed, 1 passed, 2 total/)
      const session = await api(`/v1/test-sessions/${sessionIdIn(out)}`)
      assert.equal(session.status, 'FAILED')
      assert.deepEqual(
        session.results
          .map((r: { name: string; hasFailures: boolean }) => `${r.name} ${r.hasFailures}`)
          .sort(),
        ['Failing API true', 'Passing API false'],
      )
      assert.deepEqual(await api('/v1/checks'), [], 'nothing was saved')
    })

    test('checkly trigger runs the deployed checks its tags name; none matching fails unless told not to', async () => {
      assert.equal((await checkly('deploy', '--force', '--no-schedule-on-deploy')).code, 0)
      const { code, out } = await checkly('trigger', '--location', 'local', '--tags', 'ci')
      assert.equal(code, 1, out)
      assert.match(out, /✖ Failing API/)
      assert.match(out, /✔ Passing API/)
      assert.match(out, /✖ status code equals target "200"\. Received: 500\./)
      const session = await api(`/v1/test-sessions/${sessionIdIn(out)}`)
      const checkIds = (await api('/v1/checks?tag=ci')).map((c: { id: string }) => c.id).sort()
      assert.deepEqual(session.results.map((r: { checkId: string }) => r.checkId).sort(), checkIds)

      const none = await checkly('trigger', '--location', 'local', '--tags', 'no-such-tag')
      assert.deepEqual([none.code, none.out.trim()], [1, 'No matching checks were found.'])
      const tolerated = await checkly(
        'trigger',
        '--location',
        'local',
        '--tags',
        'no-such-tag',
        '--no-fail-on-no-matching',
      )
      assert.equal(tolerated.code, 0, tolerated.out)
    })

    test('checkly trigger --env runs the deployed checks with those variables over their own', async () => {
      // The deploy of the test before made the checks; the env check's own variable points at nothing.
      const [check] = await api('/v1/checks?tag=env')
      assert.equal(check.name, 'Environment API')
      const own = await checkly('trigger', '--location', 'local', '--tags', 'env')
      assert.equal(own.code, 1, own.out)
      assert.match(own.out, /✖ Environment API/)
      const target = `http://127.0.0.1:${(targetServer.address() as AddressInfo).port}`
      const given = await checkly(
        'trigger',
        '--location',
        'local',
        '--tags',
        'env',
        '--env',
        `ENVIRONMENT_URL=${target}`,
      )
      assert.equal(given.code, 0, given.out)
      assert.match(given.out, /✔ Environment API/)
      const session = await api(`/v1/test-sessions/${sessionIdIn(given.out)}`)
      const [run] = session.results
      assert.deepEqual([run.checkId, run.status], [check.id, 'PASSED'])
      const result = await api(`/v1/check-results/${check.id}/${run.testSessionResultId}`)
      assert.equal(result.apiCheckResult.request.url, `${target}/ok`)
    })

    test('a location svc does not serve is refused before anything runs', async () => {
      const { code, out } = await checkly('test', '--location', 'eu-west-1')
      assert.equal(code, 1)
      assert.match(out, /Unable to run checks on unsupported location "eu-west-1"/)
    })

    test('the broker takes only an account’s own key and topics, and takes no publish', async () => {
      const url = `${server.url.replace(/^http/, 'ws')}/mqtt`
      const refused = await mqtt
        .connectAsync(url, { username: server.accountId, password: 'svc_wrong', reconnectPeriod: 0 })
        .then(
          () => 'connected',
          (error: Error) => error.message,
        )
      assert.match(refused, /Bad username or password/)

      const client = await mqtt.connectAsync(url, {
        username: server.accountId,
        password: key,
        reconnectPeriod: 0,
      })
      try {
        const other = '00000000-0000-4000-8000-000000000000'
        const suite = '11111111-1111-4111-8111-111111111111'
        // mqtt.js rejects a SUBACK that refuses any topic; its packet says which.
        const granted = await client
          .subscribeAsync([
            `account/${server.accountId}/ad-hoc-check-results/${suite}/+/+/+`,
            `account/${other}/ad-hoc-check-results/${suite}/+/+/+`,
            '#',
          ])
          .then(
            () => [],
            (error: { packet?: { granted?: number[] } }) => error.packet?.granted,
          )
        assert.deepEqual(granted, [0, 128, 128])
        // A publish ends the connection: clients only listen here.
        const closed = new Promise<void>((done) => client.once('close', () => done()))
        client.publish(`account/${server.accountId}/ad-hoc-check-results/${suite}/x/x/result`, '{}')
        await closed
      } finally {
        await client.endAsync()
      }
    })
  })
}
