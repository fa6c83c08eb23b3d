/**
 * bench/alerts.ts: time from a failing result being stored (its transaction committed) to the webhook
 * request arriving at a local receiver, p50 and p99 over N alerts (no escalation threshold delays them),
 * and template renders per second. Target: p50 < 50 ms.
 * Usage: npm run bench:alerts [-- --alerts 1000] (SQLite; DATABASE_URL=postgres://... for PostgreSQL).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { CHECK_BODIES, compileAlertTemplate } from '@svc/core'
import { createDb, migrateToLatest } from '@svc/db'
import { serviceContextOf } from '../packages/server/src/app.ts'
import { createSecretBox } from '../packages/server/src/crypto/secret-box.ts'
import { createAccount } from '../packages/server/src/features/accounts/accounts.service.ts'
import {
  createChannel,
  DEFAULT_WEBHOOK_TEMPLATE,
} from '../packages/server/src/features/alert-channels/alert-channels.service.ts'
import { SAMPLE_EVENT } from '../packages/server/src/features/alert-channels/sample-event.ts'
import { createDispatcher } from '../packages/server/src/features/alerting/dispatcher.ts'
import { createCheck } from '../packages/server/src/features/checks/checks.service.ts'
import { compileBodyValidator } from '../packages/server/src/http/validation.ts'
import { scriptRunnerOf } from '../packages/server/src/runs/script-checks.ts'
import { writeResult } from '../packages/server/src/runs/store.ts'

const validateApiCheck = compileBodyValidator(CHECK_BODIES.API)
const { values } = parseArgs({ options: { alerts: { type: 'string', default: '1000' } } })
const alerts = Number(values.alerts)

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-alerts-'))
const store = createDb(process.env.DATABASE_URL || `sqlite:${join(dir, 'svc.db')}`)
await migrateToLatest(store)
const ctx = serviceContextOf({
  store,
  secretBox: createSecretBox(randomBytes(32)),
  scripts: scriptRunnerOf({
    chromiumPath: '/usr/bin/chromium',
    browserConcurrency: 1,
    dataDir: dir,
    scriptSandbox: 'auto',
    scriptHiddenPaths: [],
  }),
  publicUrl: 'http://localhost:3000',
})

const arrivals = new Map<string, number>()
let waiting: { resultId: string; done: () => void } | undefined
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const at = performance.now()
    const resultId = String(JSON.parse(Buffer.concat(chunks).toString()).CHECK_RESULT_ID)
    arrivals.set(resultId, at)
    response.end('ok')
    if (waiting?.resultId === resultId) waiting.done()
  })
})
await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done))
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

const account = await createAccount(ctx, { name: 'bench' })
await createChannel(ctx, account.id, {
  type: 'WEBHOOK',
  config: { name: 'bench', url: receiverUrl, webhookSecret: 'bench-secret' },
})
const dispatcher = createDispatcher(ctx)
dispatcher.start()

// One check per alert: each failing result opens its own episode, so each gives exactly one alert.
const latencies: number[] = []
for (let i = 0; i < alerts; i++) {
  const body = { name: `bench ${i}`, activated: false, request: { url: 'https://example.com/' } }
  const sentFields = new Set(Object.keys(body))
  validateApiCheck(body) // applies the schema defaults, as the route does
  const check = await createCheck(ctx, account.id, 'API', body, { sentFields })
  const now = new Date().toISOString()
  const id = randomUUID()
  const arrived = new Promise<void>((done) => {
    waiting = { resultId: id, done }
  })
  await writeResult(ctx, {
    row: {
      id,
      job_id: `bench:${id}`,
      check_id: check.id,
      account_id: account.id,
      check_type: 'API',
      run_location: 'local',
      started_at: now,
      stopped_at: now,
      response_time: 100,
      has_failures: true,
      has_errors: false,
      is_degraded: false,
      over_max_response_time: false,
      attempts: 1,
      result_type: 'FINAL',
      error_type: 'ASSERTION',
      error_message: 'bench failure',
      status_code: 503,
      detail: '{}',
      created_at: now,
      is_cancelled: false,
    },
  })
  const storedAt = performance.now()
  await arrived
  latencies.push((arrivals.get(id) ?? Number.NaN) - storedAt)
}
await dispatcher.stop()

latencies.sort((a, b) => a - b)
const percentile = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0

const template = compileAlertTemplate(DEFAULT_WEBHOOK_TEMPLATE)
const options = { now: new Date(), region: 'local' }
let renders = 0
const renderStart = performance.now()
while (performance.now() - renderStart < 2000) {
  for (let i = 0; i < 100; i++) template.render(SAMPLE_EVENT, 'json', options)
  renders += 100
}
const rendersPerSecond = renders / ((performance.now() - renderStart) / 1000)

console.log(`store: ${store.engine}; ${alerts} alerts, each from its own failing result`)
console.log(
  `result stored → webhook arrived: p50 ${percentile(50).toFixed(1)} ms, p99 ${percentile(99).toFixed(1)} ms (target p50 < 50 ms)`,
)
console.log(
  `template renders (default body, JSON context): ${Math.round(rendersPerSecond).toLocaleString('en')} per second`,
)

receiver.close()
await store.close()
rmSync(dir, { recursive: true, force: true })
