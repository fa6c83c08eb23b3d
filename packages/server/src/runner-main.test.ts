import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDb } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { browserTestsSkipReason, listenOnLoopback } from '@svc/runner/testing'
import { holdingServer } from './testing/holding-page.ts'
import {
  deploymentEnv,
  type ServerProcess,
  startRunnerProcess,
  startServerProcess,
} from './testing/server-process.ts'
import { raiseWakeup } from './wakeups.ts'

const skip = browserTestsSkipReason()

/**
 * `npm run runner -- --location X` processes beside a server on one store. The engines run side by
 * side: much of a test is waiting (for a lease to run out, a run to start), so the file takes about
 * one engine's time.
 */
describe('runner processes', { concurrency: true }, () => {
  for (const engine of testEngines()) {
    describe(`on ${engine.engine}`, { concurrency: false }, () => {
      test('a runner serves its location; killed mid-run, its slot is re-run by another runner once', async (context) => {
        let hangs = true
        const started: string[] = []
        const target = createServer((request, response) => {
          started.push(request.url ?? '')
          if (!hangs) return response.end('ok')
          // Held open: the runner that sent this is killed before an answer comes.
        })
        const targetUrl = `${(await listenOnLoopback(target, context)).url}/work`
        const store = await engine.createUrl()
        const env = {
          ...deploymentEnv(store.url),
          SVC_LOCATIONS: 'local,eu-west-1',
          SVC_RUNNER_LOCATIONS: 'local',
          SVC_RUNNER_LEASE_SECONDS: '3',
        }
        const key = env.SVC_BOOTSTRAP_API_KEY
        const processes: ServerProcess[] = []
        const db = createDb(store.url) // the same store, to move the first run to now
        try {
          const server = await startServerProcess(env)
          processes.push(server)
          const api = async (path: string, init: RequestInit = {}) => {
            const response = await fetch(`${server.url}${path}`, {
              ...init,
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            })
            return { status: response.status, body: (await response.json()) as any }
          }
          const connected = async () =>
            Object.fromEntries(
              (await api('/v1/locations')).body.map((l: any) => [l.region, l.runnerConnected]),
            )
          // Presence is recorded just after start: wait for it.
          const connectedSoon = async (expected: object) => {
            for (let i = 0; i < 100; i++) {
              const now = await connected()
              if (JSON.stringify(now) === JSON.stringify(expected)) return now
              await sleep(50)
            }
            return connected()
          }
          assert.deepEqual(await connectedSoon({ local: true, 'eu-west-1': false }), {
            local: true,
            'eu-west-1': false,
          })

          const first = await startRunnerProcess(env, ['eu-west-1'])
          processes.push(first)
          assert.deepEqual(await connectedSoon({ local: true, 'eu-west-1': true }), {
            local: true,
            'eu-west-1': true,
          })

          const created = await api('/v1/checks/url', {
            method: 'POST',
            body: JSON.stringify({
              name: 'far away',
              locations: ['eu-west-1'],
              frequency: 60,
              doubleCheck: false,
              maxResponseTime: 30_000,
              request: { url: targetUrl },
            }),
          })
          assert.equal(created.status, 201)
          // Make the first run due now instead of within the hour. Written past the API, the write raises
          // the wake-up itself: on PostgreSQL the runner hears it; on SQLite (another process) it finds
          // the run at its next fallback look, within 10 s.
          const forcedDueMs = Date.now()
          await db.db.updateTable('check_schedules').set({ next_due_ms: forcedDueMs }).execute()
          await raiseWakeup(db, 'schedule', forcedDueMs)
          while (started.length === 0) await sleep(50)
          await first.stop('SIGKILL')
          hangs = false

          const second = await startRunnerProcess(env, ['eu-west-1'])
          processes.push(second)
          let results: any[] = []
          for (let i = 0; i < 200 && results.length === 0; i++) {
            await sleep(100)
            results = (await api(`/v1/check-results/${created.body.id}`)).body
          }
          assert.equal(results.length, 1, 'the slot ran once more, after the lease ran out')
          assert.equal(results[0].runLocation, 'eu-west-1')
          assert.equal(results[0].hasFailures, false)
          assert.equal(started.length, 2, 'the killed run and the re-run reached the target')
          let schedule = await db.db.selectFrom('check_schedules').selectAll().executeTakeFirstOrThrow()
          for (let i = 0; i < 50 && schedule.lease_owner !== null; i++) {
            await sleep(100)
            schedule = await db.db.selectFrom('check_schedules').selectAll().executeTakeFirstOrThrow()
          }
          assert.equal(schedule.lease_owner, null, 'the re-run released the slot')
          const nextDueMs = Number(schedule.next_due_ms)
          assert.ok(
            nextDueMs > forcedDueMs && nextDueMs <= Date.now() + 60 * 60_000,
            'moved to its next slot',
          )

          // The killed runner is taken for connected until its presence ages out; a stopped one says goodbye.
          const euRunners = async () =>
            (await db.db.selectFrom('runner_nodes').select('locations').execute()).filter((row) =>
              row.locations.includes('eu-west-1'),
            ).length
          assert.equal(await euRunners(), 2)
          assert.equal(await second.stop('SIGTERM'), 0)
          assert.equal(await euRunners(), 1)
        } finally {
          for (const process of processes) await process.stop('SIGKILL')
          await db.close()
          await store.dispose()
        }
      })

      test('a suite run in a runner process stops on a cancel asked of the server', { skip }, async () => {
        const page = await holdingServer()
        const store = await engine.createUrl()
        const env = {
          ...deploymentEnv(store.url),
          SVC_LOCATIONS: 'local,eu-west-1',
          SVC_RUNNER_LOCATIONS: 'local',
        }
        const key = env.SVC_BOOTSTRAP_API_KEY
        const processes: ServerProcess[] = []
        const db = createDb(store.url)
        try {
          const server = await startServerProcess(env)
          processes.push(server)
          processes.push(await startRunnerProcess(env, ['eu-west-1']))
          const api = async (path: string, init: RequestInit = {}) => {
            const response = await fetch(`${server.url}${path}`, {
              ...init,
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            })
            const text = await response.text()
            return { status: response.status, body: text ? JSON.parse(text) : undefined }
          }
          const created = await api('/v1/checks/automation', {
            method: 'POST',
            body: JSON.stringify({
              name: 'held suite',
              locations: ['eu-west-1'],
              frequency: 60,
              dependencies: [
                {
                  path: 'playwright.config.ts',
                  content: `export default { testDir: './tests', timeout: 120_000 }\n`,
                },
                {
                  path: 'tests/held.spec.ts',
                  content: `import { test } from '@playwright/test'
test('held', async ({ page }) => {
  await page.goto(${JSON.stringify(page.url)}, { timeout: 0 })
  await page.waitForTimeout(60_000)
})
`,
                },
              ],
            }),
          })
          assert.equal(created.status, 201, JSON.stringify(created.body))
          const checkId = created.body.id
          await db.db.updateTable('check_schedules').set({ next_due_ms: Date.now() }).execute()
          await page.inFlight
          assert.equal((await api(`/v1/checks/${checkId}/cancel`, { method: 'POST' })).status, 204)
          let results: any[] = []
          for (let i = 0; i < 300 && results.length === 0; i++) {
            await sleep(100)
            results = (await api(`/v1/check-results/${checkId}`)).body
          }
          assert.deepEqual(
            results.map((r) => [r.runLocation, r.isCancelled, r.hasFailures, r.error?.type]),
            [['eu-west-1', true, false, 'CANCELLED']],
          )
        } finally {
          for (const process of processes) await process.stop('SIGKILL')
          page.close()
          await db.close()
          await store.dispose()
        }
      })

      test('a runner refuses a location the deployment does not serve', async () => {
        const store = await engine.createUrl()
        try {
          await assert.rejects(
            startRunnerProcess(deploymentEnv(store.url), ['mars-1']),
            /runner locations must be served \(SVC_LOCATIONS=local\); not served: mars-1/,
          )
        } finally {
          await store.dispose()
        }
      })
    })
  }
})
