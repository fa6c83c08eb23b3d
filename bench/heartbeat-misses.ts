/**
 * bench/heartbeat-misses.ts: catch-up after an outage. N heartbeat checks miss their deadline at once;
 * times how long a started scheduler takes to store every miss (each a failing result and a moved
 * deadline), versus the same N checks' pings stored through the ping intake, measured in the same run.
 * Usage: npm run bench:heartbeat-misses [-- --misses 5000 --concurrency 20]
 * (SQLite; DATABASE_URL=postgres://... for PostgreSQL).
 */
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { parseArgs } from 'node:util'
import { CHECK_BODIES } from '@svc/core'
import { createDb, migrateToLatest } from '@svc/db'
import { serviceContextOf } from '../packages/server/src/app.ts'
import type { ServiceContext } from '../packages/server/src/context.ts'
import { createSecretBox } from '../packages/server/src/crypto/secret-box.ts'
import { createAccount } from '../packages/server/src/features/accounts/accounts.service.ts'
import { createCheck } from '../packages/server/src/features/checks/checks.service.ts'
import { createPingIntake } from '../packages/server/src/features/heartbeats/heartbeats.ts'
import { compileBodyValidator } from '../packages/server/src/http/validation.ts'
import { createScheduler } from '../packages/server/src/runs/scheduler.ts'
import { scriptRunnerOf } from '../packages/server/src/runs/script-checks.ts'
import { benchEngine, benchStoreUrl } from './store.ts'

const { values } = parseArgs({
  options: {
    misses: { type: 'string', default: '5000' },
    // SVC_RUNNER_CONCURRENCY's default: the slots one claim takes.
    concurrency: { type: 'string', default: '20' },
  },
})
const count = Number(values.misses)
const concurrency = Number(values.concurrency)
const WINDOW_MS = 60 * 60_000 + 10 * 60_000

const { url: storeUrl, dispose } = await benchStoreUrl()
const store = createDb(storeUrl)
await migrateToLatest(store)
let nowMs = Date.parse('2026-01-05T12:00:00.000Z')
const ctx: ServiceContext = serviceContextOf({
  store,
  clock: { now: () => new Date(nowMs) },
  secretBox: createSecretBox(randomBytes(32)),
  publicUrl: 'http://localhost:3000',
  scripts: scriptRunnerOf({
    chromiumPath: '/usr/bin/chromium',
    browserConcurrency: 1,
    dataDir: tmpdir(),
    scriptSandbox: 'auto',
    scriptHiddenPaths: [],
  }),
})

const account = await createAccount(ctx, { name: 'bench' })
// The route's validation fills in the defaults; the API's rate limit would make N POSTs slow.
const withDefaults = compileBodyValidator(CHECK_BODIES.HEARTBEAT)
const tokens: string[] = []
for (let i = 0; i < count; i++) {
  const body = {
    name: `job ${i}`,
    heartbeat: { period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' },
  }
  const sentFields = new Set(Object.keys(body))
  withDefaults(body)
  const check = (await createCheck(ctx, account.id, 'HEARTBEAT', body, { sentFields })) as unknown as {
    pingUrl: string
  }
  tokens.push(new URL(check.pingUrl).pathname.split('/').pop() as string)
}

const timed = async (run: () => Promise<void>) => {
  const started = performance.now()
  await run()
  return (performance.now() - started) / 1000
}

// Baseline: every check pinged at once (as after an outage of the senders' side), through the intake
// the ping route uses: the same result writes and deadline moves, stored in the pings' batches.
const intake = createPingIntake(ctx)
const pingSeconds = await timed(async () => {
  await Promise.all(tokens.map((token) => intake.record({ token, kind: 'RECEIVED', method: 'GET' })))
})

// Every deadline passes at once; a started scheduler works the misses off as a server's would.
nowMs += WINDOW_MS + 1000
const anyDeadlineDue = async () =>
  (await store.db
    .selectFrom('check_schedules')
    .select('check_id')
    .where('location', '=', 'heartbeat')
    .where('next_due_ms', '<=', nowMs)
    .limit(1)
    .executeTakeFirst()) !== undefined
const scheduler = createScheduler(ctx, { locations: ['heartbeat'], concurrency })
const missSeconds = await timed(async () => {
  scheduler.start()
  // A deadline moves on in the transaction that stores its miss: none due means all stored.
  while (await anyDeadlineDue()) await new Promise((tick) => setTimeout(tick, 10))
  await scheduler.stop()
})
const { n } = await store.db
  .selectFrom('check_results')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .where('error_type', '=', 'TIMEOUT')
  .executeTakeFirstOrThrow()
if (Number(n) !== count) throw new Error(`${n} misses stored for ${count} deadlines`)
await store.close()
await dispose()

const rate = (seconds: number) => (count / seconds).toFixed(0).padStart(7)
console.log(`store: ${benchEngine}, ${count} heartbeat checks, scheduler concurrency ${concurrency}`)
console.log(`pings stored (baseline)    ${rate(pingSeconds)} /s   all in ${pingSeconds.toFixed(2)} s`)
console.log(`misses stored              ${rate(missSeconds)} /s   all in ${missSeconds.toFixed(2)} s`)
console.log(`ratio misses/pings         ${(pingSeconds / missSeconds).toFixed(2)}`)
