/**
 * bench/agent.ts: URL checks per second through one svc agent process (private location: long-poll,
 * run, post the result) versus the server's in-process runner (data-center location "local"), with the
 * same concurrency, one real server process and store, in interleaved rounds; then the delay from a
 * slot's due time to its start on the agent, with slots falling due spread over a window.
 * Targets: agent / in-process >= 0.8; due-to-start p99 < 1 s.
 * Usage: npm run bench:agent [-- --checks 1000 --rounds 3 --concurrency 20 --delay-checks 300 --delay-seconds 30]
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { CHECK_BODIES } from '@svc/core'
import { createDb, migrateToLatest, type Store } from '@svc/db'
import { serviceContextOf } from '../packages/server/src/app.ts'
import type { ServiceContext } from '../packages/server/src/context.ts'
import { createSecretBox } from '../packages/server/src/crypto/secret-box.ts'
import { createAccount } from '../packages/server/src/features/accounts/accounts.service.ts'
import { createCheck } from '../packages/server/src/features/checks/checks.service.ts'
import {
  createKey,
  createLocation,
} from '../packages/server/src/features/private-locations/private-locations.service.ts'
import { compileBodyValidator } from '../packages/server/src/http/validation.ts'
import { dueMsOfSlotKey } from '../packages/server/src/runs/jobs.ts'
import { scriptRunnerOf } from '../packages/server/src/runs/script-checks.ts'
import { startAgentProcess } from '../packages/server/src/testing/agent-process.ts'
import { startServerProcess } from '../packages/server/src/testing/server-process.ts'
import { startUrlTarget } from './url-target.ts'

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '20' },
    'delay-checks': { type: 'string', default: '300' },
    'delay-seconds': { type: 'string', default: '30' },
  },
})
const checks = Number(values.checks)
const concurrency = values.concurrency
const delayChecks = Number(values['delay-checks'])
const delaySeconds = Number(values['delay-seconds'])
const DAY = 86_400_000

const target = await startUrlTarget()
const { url } = target
const cleanups: (() => unknown)[] = []
// A bench that throws must not leave its processes running.
process.on('exit', () => {
  for (const cleanup of cleanups) cleanup()
})

// --- Seed the store before the server starts: one account, a private location with a key, `checks`
// URL checks in "local", `checks` + `delayChecks` on the private location, none due for a day.
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-agent-'))
const encryptionKey = randomBytes(32)
const seedStore = createDb(`sqlite:${join(dir, 'svc.db')}`)
await migrateToLatest(seedStore)
const seedCtx = serviceContext(seedStore, encryptionKey)
const account = await createAccount(seedCtx, { name: 'bench' })
const location = await createLocation(seedCtx, account.id, { name: 'Bench', slugName: 'bench' })
const { rawKey } = await createKey(seedCtx, account.id, location.id)
const localChecks = await seedChecks(seedCtx, checks, { locations: ['local'] })
const agentChecks = await seedChecks(seedCtx, checks, { locations: [], privateLocations: ['bench'] })
const delayed = await seedChecks(seedCtx, delayChecks, { locations: [], privateLocations: ['bench'] })
await seedStore.db
  .updateTable('check_schedules')
  .set({ next_due_ms: Date.now() + DAY })
  .execute()
await seedStore.close()
const agentLocation = `private:${location.id}`

const server = await startServerProcess({
  SVC_DATA_DIR: dir,
  SVC_ENCRYPTION_KEY: encryptionKey.toString('hex'),
  SVC_RUNNER_CONCURRENCY: concurrency,
  LOG_LEVEL: 'error',
})
cleanups.push(() => server.child.kill('SIGKILL'))
const agent = await startAgentProcess({
  API_KEY: rawKey,
  SVC_API_URL: server.url,
  JOB_CONCURRENCY: concurrency,
})
cleanups.push(() => agent.child.kill('SIGKILL'))
const store = createDb(`sqlite:${join(dir, 'svc.db')}`)

// --- Throughput: every check of one side falls due at once; the rate is checks over the time from
// then to the last result stored. Rounds alternate sides (the machine is shared); medians are shown.
await runRound(localChecks, 'local')
await runRound(agentChecks, agentLocation)
const rounds: { local: Round; agent: Round }[] = []
for (let round = 0; round < Number(values.rounds); round++) {
  rounds.push({
    local: await runRound(localChecks, 'local'),
    agent: await runRound(agentChecks, agentLocation),
  })
}
const median = (pick: (r: (typeof rounds)[number]) => number) => {
  const sorted = rounds.map(pick).sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}
const local = median((r) => r.local.perSecond)
const viaAgent = median((r) => r.agent.perSecond)
const localCpu = median((r) => r.local.serverCpuMicros)
const agentCpu = median((r) => r.agent.serverCpuMicros)

// --- Due-to-start delay on the agent: slots fall due one by one over the window.
const delays = await dueToStart(delayed, agentLocation)

await agent.stop('SIGTERM')
await server.stop('SIGTERM')
await store.close()
target.stop()
rmSync(dir, { recursive: true, force: true })

console.log(
  `store: sqlite, one server process, ${concurrency} runs in flight on each side (SVC_RUNNER_CONCURRENCY, JOB_CONCURRENCY), ` +
    `${checks} URL checks per round, median of ${rounds.length} rounds, target a bare Fastify route in its own process`,
)
console.log(
  `rounds (checks/s, in-process / agent): ${rounds.map((r) => `${r.local.perSecond.toFixed(0)} / ${r.agent.perSecond.toFixed(0)}`).join(',  ')}`,
)
console.log(
  `in-process runner (location local)           ${local.toFixed(0).padStart(6)} checks/s   server CPU ${localCpu.toFixed(0)} µs per check (the check included)`,
)
console.log(
  `one agent (private location)                 ${viaAgent.toFixed(0).padStart(6)} checks/s   server CPU ${agentCpu.toFixed(0)} µs per posted result`,
)
console.log(`agent / in-process                           ${(viaAgent / local).toFixed(2)}   (target >= 0.8)`)
console.log(
  `due-to-start on the agent, ${delays.count} slots over ${delaySeconds} s: p50 ${delays.p50.toFixed(0)} ms   ` +
    `p99 ${delays.p99.toFixed(0)} ms   max ${delays.max.toFixed(0)} ms   (target p99 < 1000 ms)`,
)

interface Round {
  perSecond: number
  /** The server process's CPU time (user + system) over the round, per check. */
  serverCpuMicros: number
}

/** Makes every check of `ids` due now in `location` and waits for all their results. */
async function runRound(ids: string[], location: string): Promise<Round> {
  const before = await countResults(ids)
  const cpuBefore = serverCpuMicros()
  const dueMs = Date.now()
  await setDue(location, ids, () => dueMs)
  for (;;) {
    if ((await countResults(ids)) >= before + ids.length) break
    await sleep(50)
  }
  const last = await store.db
    .selectFrom('check_results')
    .select((eb) => eb.fn.max('created_at').as('last'))
    .where('check_id', 'in', ids)
    .executeTakeFirstOrThrow()
  return {
    perSecond: ids.length / ((Date.parse(String(last.last)) - dueMs) / 1000),
    serverCpuMicros: (serverCpuMicros() - cpuBefore) / ids.length,
  }
}

/** The server process's user + system CPU time so far (clock ticks of 10 ms, from /proc). */
function serverCpuMicros(): number {
  const fields = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

async function dueToStart(ids: string[], location: string) {
  const start = Date.now() + 2_000
  const step = (delaySeconds * 1000) / ids.length
  const dues = new Map(ids.map((id, i) => [id, Math.round(start + i * step)]))
  await setDue(location, ids, (id) => dues.get(id) as number)
  await sleep(start + delaySeconds * 1000 - Date.now())
  while ((await countResults(ids)) < ids.length) await sleep(100)
  const rows = await store.db
    .selectFrom('check_results')
    .select(['job_id', 'started_at'])
    .where('check_id', 'in', ids)
    .execute()
  const delays = rows
    .map((row) => Date.parse(row.started_at) - (dueMsOfSlotKey(row.job_id) as number))
    .sort((a, b) => a - b)
  const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))] ?? Number.NaN
  return { count: delays.length, p50: at(0.5), p99: at(0.99), max: delays.at(-1) ?? Number.NaN }
}

async function setDue(location: string, ids: string[], dueOf: (id: string) => number) {
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500)
    await store.db.transaction().execute(async (tx) => {
      for (const id of batch) {
        await tx
          .updateTable('check_schedules')
          .set({ next_due_ms: dueOf(id), lease_owner: null, leased_due_ms: null })
          .where('check_id', '=', id)
          .where('location', '=', location)
          .execute()
      }
    })
  }
}

async function countResults(ids: string[]): Promise<number> {
  const { n } = await store.db
    .selectFrom('check_results')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('check_id', 'in', ids)
    .executeTakeFirstOrThrow()
  return Number(n)
}

function serviceContext(store: Store, key: Buffer): ServiceContext {
  return serviceContextOf({
    store,
    clock: { now: () => new Date() },
    secretBox: createSecretBox(key),
    publicUrl: 'http://localhost:3000',
    scripts: scriptRunnerOf({
      chromiumPath: '/usr/bin/chromium',
      browserConcurrency: 1,
      dataDir: tmpdir(),
      scriptSandbox: 'auto',
      scriptHiddenPaths: [],
    }),
  })
}

async function seedChecks(ctx: ServiceContext, count: number, where: Record<string, unknown>) {
  // The route's validation fills in the defaults; the API's rate limit would make 1,000s of POSTs slow.
  const withDefaults = compileBodyValidator(CHECK_BODIES.URL)
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const body = { name: `check ${i}`, frequency: 1440, doubleCheck: false, request: { url }, ...where }
    const sentFields = new Set(Object.keys(body))
    withDefaults(body)
    ids.push((await createCheck(ctx, account.id, 'URL', body, { sentFields, autoAssignAlerts: false })).id)
  }
  return ids
}
