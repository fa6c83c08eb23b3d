/**
 * bench/soak.ts: a real server process running 2,000 1-minute checks of mixed types (URL, API, TCP, DNS,
 * heartbeat, a few browser checks) against loopback targets, alerting to a webhook receiver that fails
 * 10% of the deliveries, for `--minutes` (default 30). Every interval it prints the server's RSS, V8
 * heap, the store's size, event-loop delay p99, slot drift p99 and deliveries; at the end, the slope per
 * hour of each (least squares over the samples): what grows without bound shows there.
 * Usage: npm run bench:soak [-- --minutes 30 --interval-seconds 60 --checks 2000 --browser 3]
 * (SQLite; DATABASE_URL=postgres://... for PostgreSQL; SOAK_MINUTES sets the duration too).
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { CHECK_BODIES, type CheckType } from '@svc/core'
import { createDb, migrateToLatest, type Store } from '@svc/db'
import { sql } from 'kysely'
import { serviceContextOf } from '../packages/server/src/app.ts'
import { createSecretBox } from '../packages/server/src/crypto/secret-box.ts'
import { createAccount } from '../packages/server/src/features/accounts/accounts.service.ts'
import { createChannel } from '../packages/server/src/features/alert-channels/alert-channels.service.ts'
import { createCheck } from '../packages/server/src/features/checks/checks.service.ts'
import { compileBodyValidator } from '../packages/server/src/http/validation.ts'
import { dueMsOfSlotKey } from '../packages/server/src/runs/jobs.ts'
import { scriptRunnerOf } from '../packages/server/src/runs/script-checks.ts'
import {
  type ServerProcess,
  startServerProcess,
  storeEnv,
} from '../packages/server/src/testing/server-process.ts'
import { leastSquaresSlope, type SoakSample, sampleLine, slopeLines } from './soak-report.ts'
import { type SoakTargets, startSoakTargets } from './soak-targets.ts'
import { benchEngine, benchStoreUrl } from './store.ts'

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env.SOAK_MINUTES || '30' },
    'interval-seconds': { type: 'string', default: '60' },
    checks: { type: 'string', default: '2000' },
    browser: { type: 'string', default: '3' },
  },
})
const minutes = Number(values.minutes)
const intervalMs = Number(values['interval-seconds']) * 1000
const checkCount = Number(values.checks)
const browserCount = existsSync('/usr/bin/chromium') ? Number(values.browser) : 0
const HEARTBEAT_PING_MS = 20_000

const targets = await startSoakTargets({ flapMinutes: 3, failShare: 0.1 })
const { url: storeUrl, dispose } = await benchStoreUrl()
const key = randomBytes(32)
const seeded = await seed(storeUrl, targets)
process.env.SVC_BENCH_NODE_FLAGS = `--import ${resolve(import.meta.dirname, 'soak-probe.js')}`
// A loaded machine may take long to start a server with 2,000 checks due at once.
const START_TIMEOUT_MS = 180_000
const server = await startServerProcess(
  {
    ...storeEnv(storeUrl),
    SVC_ENCRYPTION_KEY: key.toString('hex'),
    SOAK_PROBE_MS: String(Math.min(intervalMs, 10_000)),
    SVC_BROWSER_CONCURRENCY: '1',
  },
  START_TIMEOUT_MS,
).catch(async (error: unknown) => {
  await dispose()
  await targets.close()
  throw error
})
const reader = createDb(storeUrl, { poolSize: 2 })
const pinging = setInterval(() => void pingHeartbeats(server, seeded.pingPaths), HEARTBEAT_PING_MS)
void pingHeartbeats(server, seeded.pingPaths)

console.log(
  `store: ${benchEngine}; ${checkCount} 1-minute checks (${Object.entries(seeded.mix)
    .map(([type, n]) => `${n} ${type}`)
    .join(', ')}); ${minutes} min, a sample every ${intervalMs / 1000} s; receiver fails 10%`,
)
const samples: SoakSample[] = []
const startedMs = Date.now()
let sinceMs = startedMs
while (Date.now() - startedMs < minutes * 60_000) {
  await new Promise((done) => setTimeout(done, intervalMs))
  const sample = await takeSample(sinceMs)
  sinceMs = sample.atMs
  samples.push(sample)
  console.log(sampleLine(sample, startedMs))
}
clearInterval(pinging)
await server.stop('SIGTERM')
await reader.close()
await dispose()
await targets.close()

// The first interval holds the start's backlog and the heap's first growth: warm-up, not trend.
const steady = samples.slice(1)
console.log(`slope per hour (least squares over the ${steady.length} samples after the first):`)
for (const line of slopeLines(steady, leastSquaresSlope)) console.log(`  ${line}`)

async function takeSample(sinceMs: number): Promise<SoakSample> {
  const atMs = Date.now()
  const probe = lastProbe(server)
  const results = await reader.db
    .selectFrom('check_results')
    .select(['job_id', 'started_at'])
    .where('started_at', '>=', new Date(sinceMs).toISOString())
    // Drift is the scheduler's: retries start after their backoff on purpose, and a browser run may
    // wait its turn for the one Chromium slot.
    .where('check_type', 'not in', ['HEARTBEAT', 'BROWSER'])
    .where('attempts', '=', 1)
    .execute()
  const drifts = results
    .map((r) => Date.parse(r.started_at) - (dueMsOfSlotKey(r.job_id) ?? Number.NaN))
    .filter((d) => Number.isFinite(d))
    .sort((a, b) => a - b)
  const outbox = await reader.db
    .selectFrom('alert_notifications')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute()
  const count = (status: string) => Number(outbox.find((row) => row.status === status)?.n ?? 0)
  return {
    atMs,
    rssMb: rssMb(server.child.pid ?? 0),
    heapMb: probe.heapUsed / 2 ** 20,
    storeMb: (await storeBytes(reader)) / 2 ** 20,
    loopDelayP99Ms: probe.loopDelayP99Ms,
    runs: results.length,
    driftP99Ms: drifts[Math.min(drifts.length - 1, Math.floor(0.99 * drifts.length))] ?? Number.NaN,
    delivered: count('DELIVERED'),
    pending: count('PENDING'),
    failed: count('FAILED'),
    receiverFailed: targets.received.failed,
  }
}

function lastProbe(process: ServerProcess): { heapUsed: number; loopDelayP99Ms: number } {
  const lines = process.output().match(/^soak-probe .*$/gm) ?? []
  const last = lines.at(-1)
  return last
    ? JSON.parse(last.slice('soak-probe '.length))
    : { heapUsed: Number.NaN, loopDelayP99Ms: Number.NaN }
}

async function storeBytes(store: Store): Promise<number> {
  if (store.engine === 'postgres') {
    const { rows } = await sql<{
      bytes: number
    }>`select pg_database_size(current_database()) as bytes`.execute(store.db)
    return Number(rows[0]?.bytes)
  }
  const path = storeUrl.slice('sqlite:'.length)
  return [path, `${path}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0)
}

function rssMb(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)
  return Number(match?.[1] ?? 0) / 1024
}

async function pingHeartbeats(server: ServerProcess, paths: string[]): Promise<void> {
  for (const path of paths) {
    const response = await fetch(`${server.url}${path}`).catch(() => undefined)
    await response?.arrayBuffer()
  }
}

/**
 * The account, the webhook channel (every check alerts to it) and the checks, written through the
 * services before the server starts (the API's rate limit would make 2,000 POSTs take minutes).
 */
async function seed(storeUrl: string, targets: SoakTargets) {
  const store = createDb(storeUrl)
  await migrateToLatest(store)
  const ctx = serviceContextOf({
    store,
    secretBox: createSecretBox(key),
    publicUrl: 'http://localhost:3000',
    scripts: scriptRunnerOf({
      chromiumPath: '/usr/bin/chromium',
      browserConcurrency: 1,
      dataDir: resolve('.'),
      scriptSandbox: 'auto',
      scriptHiddenPaths: [],
    }),
  })
  const account = await createAccount(ctx, { name: 'soak' })
  await createChannel(ctx, account.id, {
    type: 'WEBHOOK',
    config: { name: 'soak', url: targets.receiverUrl, webhookSecret: 'soak-secret' },
  })
  const plan = checkPlan(targets)
  const mix: Record<string, number> = {}
  const pingPaths: string[] = []
  for (let i = 0; i < checkCount; i++) {
    const { type, body } = plan(i)
    const validate = compileBodyValidator(CHECK_BODIES[type])
    const full = { name: `soak ${i}`, frequency: 1, ...body }
    const sentFields = new Set(Object.keys(full))
    validate(full)
    const check = (await createCheck(ctx, account.id, type, full, { sentFields })) as { pingUrl?: string }
    if (check.pingUrl) pingPaths.push(new URL(check.pingUrl).pathname)
    mix[type] = (mix[type] ?? 0) + 1
  }
  await store.close()
  return { mix, pingPaths }
}

/** The type and body of check `i`: a tenth of the URL and API checks run against the flapping route. */
function checkPlan(targets: SoakTargets): (i: number) => { type: CheckType; body: Record<string, unknown> } {
  const site = targets.httpOrigin
  return (i) => {
    if (i < browserCount) {
      const script = `const { test, expect } = require('@playwright/test')
test('home', async ({ page }) => {
  await page.goto('${site}/ok')
  await expect(page.locator('h1')).toHaveText('Hello')
})
`
      return { type: 'BROWSER', body: { script } }
    }
    const route = i % 10 === 0 ? '/flaky' : '/ok'
    switch (i % 14) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
        return { type: 'URL', body: { request: { url: `${site}${route}` } } }
      case 5:
      case 6:
      case 7:
        return { type: 'API', body: { request: { url: `${site}${route}`, method: 'GET' } } }
      case 8:
      case 9:
        return { type: 'TCP', body: { request: { hostname: '127.0.0.1', port: targets.tcpPort } } }
      case 10:
      case 11:
        return {
          type: 'DNS',
          body: {
            request: { query: 'soak.test', recordType: 'A', nameServer: '127.0.0.1', port: targets.dnsPort },
          },
        }
      default:
        return {
          type: 'HEARTBEAT',
          body: { heartbeat: { period: 1, periodUnit: 'minutes', grace: 30, graceUnit: 'seconds' } },
        }
    }
  }
}
