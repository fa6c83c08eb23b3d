/**
 * bench/runner.ts: URL checks per second through the real scheduler path (a started createScheduler,
 * results persisted on SQLite, or PostgreSQL with DATABASE_URL) against a local HTTP target, versus a
 * bare loop of the same undici requests with a fresh connection each (the ceiling), in one run. Then a real server process with
 * 10,000 active 1-minute checks: the scheduler's drift (actual start minus planned due time) and RSS.
 * Targets: >= 0.7 of the ceiling and >= 1,000 checks/s; RSS < 300 MB.
 * `--drift-checks 0` skips the second part.
 * Usage: npm run bench:runner [-- --checks 5000 --rounds 3 --concurrency 20 --drift-checks 10000 --drift-seconds 90
 *   --server-concurrency 20]
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { createDb, migrateToLatest } from '@svc/db'
import { type HttpJob, runHttpCheck } from '@svc/runner'
import { dueMsOfSlotKey } from '../packages/server/src/runs/jobs.ts'
import { createScheduler } from '../packages/server/src/runs/scheduler.ts'
import { startServerProcess, storeEnv } from '../packages/server/src/testing/server-process.ts'
import { cpuMicrosOf, rssMb } from './proc.ts'
import { benchServiceContext, seedUrlChecks } from './seed.ts'
import { benchEngine, benchStoreUrl } from './store.ts'
import { bareRequest as bareRequestTo, inParallel as inParallelOf, startUrlTarget } from './url-target.ts'

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '20' },
    'drift-checks': { type: 'string', default: '10000' },
    'drift-seconds': { type: 'string', default: '90' },
    'server-concurrency': { type: 'string', default: '20' },
  },
})
const checks = Number(values.checks)
const concurrency = Number(values.concurrency)
const driftChecks = Number(values['drift-checks'])
const driftSeconds = Number(values['drift-seconds'])
const serverConcurrency = values['server-concurrency']
const MINUTE = 60_000

const target = await startUrlTarget()
const { url } = target
const bareRequest = () => bareRequestTo(target.origin)
const inParallel = (count: number, task: () => Promise<void>) => inParallelOf(count, concurrency, task)

// --- Throughput: the same number of requests three ways, `concurrency` in flight each time, in
// interleaved rounds (the machine is shared: each figure is its rounds' median).
const job: HttpJob = {
  checkType: 'URL',
  request: { url },
  degradedResponseTime: 10_000,
  maxResponseTime: 20_000,
  shouldFail: false,
}
const runOnce = async () => {
  const result = await runHttpCheck(job, { now: () => new Date() })
  if (result.hasFailures) throw new Error(`the target failed: ${JSON.stringify(result.error)}`)
}
await inParallel(200, bareRequest)
const store = await scheduledStore()
const rounds: { ceiling: Rate; runnerOnly: Rate; scheduled: Rate }[] = []
for (let round = 0; round < Number(values.rounds); round++) {
  rounds.push({
    ceiling: await timed(checks, () => inParallel(checks, bareRequest)),
    runnerOnly: await timed(checks, () => inParallel(checks, runOnce)),
    scheduled: await store.runAllDue(),
  })
}
await store.close()
const median = (pick: (r: (typeof rounds)[number]) => Rate): Rate => {
  const sorted = rounds.map(pick).sort((a, b) => perSecond(a) - perSecond(b))
  return sorted[Math.floor(sorted.length / 2)] as Rate
}
const ceiling = median((r) => r.ceiling)
const runnerOnly = median((r) => r.runnerOnly)
const scheduled = median((r) => r.scheduled)

// --- Drift and memory: a real server process with `driftChecks` active 1-minute checks.
const drift = driftChecks > 0 ? await driftWithActiveChecks() : undefined
target.stop()

const line = (name: string, r: Rate) =>
  `${name.padEnd(44)} ${perSecond(r).toFixed(0).padStart(6)} checks/s   ${(r.cpuMicros / r.count).toFixed(0).padStart(4)} µs CPU per check   target ${(r.targetCpuMicros / r.count).toFixed(0).padStart(3)} µs`
console.log(
  `store: ${benchEngine}, ${concurrency} runs in flight, ${checks} checks, median of ${rounds.length} rounds, target a bare Fastify route in its own process`,
)
console.log(
  `rounds (checks/s, ceiling / runner / scheduled): ${rounds.map((r) => [r.ceiling, r.runnerOnly, r.scheduled].map((x) => perSecond(x).toFixed(0)).join(' / ')).join(',  ')}`,
)
console.log(line('bare undici, fresh connection each (ceiling)', ceiling))
console.log(line('runHttpCheck only (no store)', runnerOnly))
console.log(line('scheduler: claim, run, store result, complete', scheduled))
console.log(
  `scheduled / ceiling                          ${(perSecond(scheduled) / perSecond(ceiling)).toFixed(2)}   (target >= 0.7; >= 1000 checks/s)`,
)
if (drift) {
  console.log(
    `${driftChecks} active 1-minute checks, ${driftSeconds} s, SVC_RUNNER_CONCURRENCY ${serverConcurrency}`,
  )
  console.log(
    `  slots due in the window                    ${drift.due}   started ${drift.started}   not started by the end ${drift.due - drift.started}`,
  )
  console.log(
    `  drift (start - due) of started slots       p50 ${drift.p50.toFixed(0)} ms   p99 ${drift.p99.toFixed(0)} ms   max ${drift.max.toFixed(0)} ms`,
  )
  console.log(
    `  server CPU                                 ${drift.cpuPerCheckMicros.toFixed(0)} µs per check run (checks falling due one by one), ${(100 * drift.cpuShare).toFixed(0)}% of one core`,
  )
  console.log(
    `  server RSS                                 max ${drift.maxRssMb.toFixed(0)} MB   (target < 300 MB)   at start ${drift.startRssMb.toFixed(0)} MB   max / start ${(drift.maxRssMb / drift.startRssMb).toFixed(2)}`,
  )
}

interface Rate {
  count: number
  seconds: number
  /** CPU time of this process (user + system), less sensitive to a busy machine than wall time. */
  cpuMicros: number
  /** CPU time of the target's process meanwhile: the share of the machine's two cores it leaves us. */
  targetCpuMicros: number
}

function perSecond(rate: Rate): number {
  return rate.count / rate.seconds
}

/**
 * A store of the bench's engine with `checks` 1-minute URL checks on an injected clock. Each `runAllDue()` moves the
 * clock a minute on, so every check is due once (a backlog of `checks` slots), and has a started
 * scheduler work it off.
 */
async function scheduledStore() {
  const { url: storeUrl, dispose } = await benchStoreUrl()
  const store = createDb(storeUrl)
  await migrateToLatest(store)
  let nowMs = Date.parse('2026-01-05T12:00:00.000Z')
  const ctx = benchServiceContext(store, () => new Date(nowMs))
  await seedUrlChecks(ctx, checks, url)
  const anySlotDue = async (atMs: number) =>
    (await store.db
      .selectFrom('check_schedules')
      .select('check_id')
      .where('location', '=', 'local')
      .where('next_due_ms', '<=', atMs)
      .limit(1)
      .executeTakeFirst()) !== undefined
  let stored = 0
  return {
    /** The scheduler as a server runs it (started, claiming as runs finish) until every slot moved on. */
    async runAllDue(): Promise<Rate> {
      nowMs += MINUTE
      // The clock stands still at the minute: claiming ahead would take the next minute's first slots too.
      const scheduler = createScheduler(ctx, { locations: ['local'], concurrency, claimAheadMs: 0 })
      const rate = await timed(checks, async () => {
        scheduler.start()
        // A slot moves on in the transaction that stores its result: none due means all stored.
        while (await anySlotDue(nowMs)) await new Promise((tick) => setTimeout(tick, 10))
        await scheduler.stop()
      })
      stored += checks
      const { n } = await store.db
        .selectFrom('check_results')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      if (Number(n) !== stored) throw new Error(`${n} results stored for ${stored} runs`)
      return rate
    },
    async close() {
      await store.close()
      await dispose()
    },
  }
}

async function driftWithActiveChecks() {
  const { url: storeUrl, dispose } = await benchStoreUrl()
  const store = createDb(storeUrl)
  await migrateToLatest(store)
  const key = randomBytes(32)
  await seedUrlChecks(
    benchServiceContext(store, () => new Date(), key),
    driftChecks,
    url,
  )
  const firstDue = new Map(
    (await store.db.selectFrom('check_schedules').select(['check_id', 'next_due_ms']).execute()).map((r) => [
      r.check_id,
      Number(r.next_due_ms),
    ]),
  )
  await store.close()

  const server = await startServerProcess({
    ...storeEnv(storeUrl),
    SVC_ENCRYPTION_KEY: key.toString('hex'),
    SVC_RUNNER_CONCURRENCY: serverConcurrency,
  })
  // Slots that fell due while seeding and starting are a backlog, not drift: measure from here on.
  const windowStart = Date.now() + 5_000
  // The baseline: the same process with its checks loaded, before the first window's runs.
  const startRssMb = rssMb(server.child.pid ?? 0)
  const startCpuMicros = cpuMicrosOf(server.child.pid ?? 0)
  const startedMs = Date.now()
  let maxRssMb = 0
  const sampling = setInterval(() => {
    maxRssMb = Math.max(maxRssMb, rssMb(server.child.pid ?? 0))
  }, 1000)
  await new Promise((done) => setTimeout(done, driftSeconds * 1000))
  // Slots due in the last seconds may still be starting: count those due up to here.
  const windowEnd = Date.now() - 5_000
  const cpuMicros = cpuMicrosOf(server.child.pid ?? 0) - startCpuMicros
  const cpuSeconds = (Date.now() - startedMs) / 1000
  clearInterval(sampling)
  await server.stop('SIGTERM')

  const reader = createDb(storeUrl)
  const results = await reader.db.selectFrom('check_results').select(['job_id', 'started_at']).execute()
  const resultsWhileSampled = results.filter((r) => {
    const startedMs = Date.parse(r.started_at)
    return startedMs >= windowStart - 5_000 && startedMs < windowEnd + 5_000
  }).length
  await reader.close()
  await dispose()

  let due = 0
  for (const first of firstDue.values()) {
    for (let slot = first; slot < windowEnd; slot += MINUTE) if (slot >= windowStart) due++
  }
  const drifts = results
    .map((r) => ({ dueMs: dueMsOfSlotKey(r.job_id) as number, startedMs: Date.parse(r.started_at) }))
    .filter((r) => r.dueMs >= windowStart && r.dueMs < windowEnd)
    .map((r) => r.startedMs - r.dueMs)
    .sort((a, b) => a - b)
  const at = (q: number) => drifts[Math.min(drifts.length - 1, Math.floor(q * drifts.length))] ?? Number.NaN
  return {
    due,
    started: drifts.length,
    p50: at(0.5),
    p99: at(0.99),
    max: drifts.at(-1) ?? Number.NaN,
    startRssMb,
    maxRssMb,
    cpuPerCheckMicros: cpuMicros / resultsWhileSampled,
    cpuShare: cpuMicros / 1e6 / cpuSeconds,
  }
}

async function timed(count: number, run: () => Promise<void>): Promise<Rate> {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const targetCpu = cpuMicrosOf(target.pid)
  await run()
  const { user, system } = process.cpuUsage(cpu)
  return {
    count,
    seconds: (performance.now() - started) / 1000,
    cpuMicros: user + system,
    targetCpuMicros: cpuMicrosOf(target.pid) - targetCpu,
  }
}
