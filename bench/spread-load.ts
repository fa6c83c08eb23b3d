/**
 * bench/spread-load.ts: svc at the load people run, not at saturation. A real server process with N
 * 1-minute URL checks against a local target, spread over the minute as the scheduler spreads them; after
 * a warm-up (every check ran four times), a steady window is measured: the server's CPU per check (its process,
 * all threads), checks run against checks due, drift p99, RSS, and store bytes per result. Also, in the
 * same run: bench:runner's saturated CPU per check (the baseline of the ratios), the same ratio of svc's
 * URL check alone with nothing around it (bench/spread-floor.ts: what spreading costs the check itself),
 * and the idle CPU of a server with no checks and with 10,000 paused ones.
 * Targets (issue 31): CPU per check at N = 1,000 at most 2× the saturated figure, at N = 200 at most 3×;
 * idle under 0.2% of a core; at most 250 bytes per passing result on SQLite; RSS at idle under 120 MB,
 * under 300 MB at 10,000 checks.
 * Usage: npm run bench:spread-load [-- --checks 200,1000,10000 --window-seconds 180 --warmup-seconds 240
 *   --idle-seconds 60 --paused-checks 10000 --saturated-checks 3000]
 * Only the idle part: `-- --checks '' --saturated-checks 0`.
 * PostgreSQL with DATABASE_URL=postgres://…
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { parseArgs } from 'node:util'
import { createDb, migrateToLatest } from '@svc/db'
import pg from 'pg'
import { dueMsOfSlotKey } from '../packages/server/src/runs/jobs.ts'
import { SLOT_GRAINS_MS } from '../packages/server/src/runs/slot-grain.ts'
import {
  freePort,
  NODE_FLAGS,
  startServerProcess,
  storeEnv,
} from '../packages/server/src/testing/server-process.ts'
import { cpuMicrosOf, rssMb } from './proc.ts'
import { benchServiceContext, seedUrlChecks } from './seed.ts'
import { benchEngine, benchStoreUrl } from './store.ts'
import { startUrlTarget } from './url-target.ts'

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '200,1000,10000' },
    'window-seconds': { type: 'string', default: '180' },
    // The first minutes after the checks start cost ~25% more per check (each check's first rows are
    // written then): the window starts after them.
    'warmup-seconds': { type: 'string', default: '240' },
    'idle-seconds': { type: 'string', default: '60' },
    'paused-checks': { type: 'string', default: '10000' },
    'saturated-checks': { type: 'string', default: '3000' },
  },
})
const loads = values.checks.split(',').filter(Boolean).map(Number)
const windowMs = Number(values['window-seconds']) * 1000
const warmupMs = Number(values['warmup-seconds']) * 1000
const idleMs = Number(values['idle-seconds']) * 1000
const pausedChecks = Number(values['paused-checks'])
const MINUTE = 60_000
const BYTES_TARGET = 250
/** Longer than the result commit delay (1 s): every run due in the window is stored by then. */
const RESULTS_SETTLE_MS = 3000
/** A start takes seconds, but more than the default 30 s on a machine busy with other work. */
const START_TIMEOUT_MS = 180_000

const target = await startUrlTarget()
const saturatedMicros = Number(values['saturated-checks']) > 0 ? saturatedCpuPerCheck() : Number.NaN
console.log(`store: ${benchEngine}; bench:runner's saturated CPU per check: ${saturatedMicros.toFixed(0)} µs`)

const idleEmpty = await idle(0)
const bareRssMb = await bareFastifyRssMb()
console.log(
  `idle, no checks: ${pct(idleEmpty.coreShare)} of a core, RSS ${idleEmpty.rssMb.toFixed(0)} MB (targets < 0.2%, < 120 MB); ` +
    `a bare Fastify server ${bareRssMb.toFixed(0)} MB: ${(idleEmpty.rssMb / bareRssMb).toFixed(2)}× (proposed target <= 1.6×)`,
)
if (pausedChecks > 0) {
  const idlePaused = await idle(pausedChecks)
  console.log(
    `idle, ${pausedChecks} paused checks: ${pct(idlePaused.coreShare)} of a core, RSS ${idlePaused.rssMb.toFixed(0)} MB (target < 0.2%)`,
  )
}
for (const checks of loads) {
  // The floor runs beside svc's window: both see the same machine. It costs a few % of a core.
  const [m, floor] = await Promise.all([spreadLoad(checks), checkAloneFloor(checks)])
  const ratio = m.cpuPerCheckMicros / saturatedMicros
  const ratioTarget = checks >= 1000 ? 2 : 3
  const gbFor10k30d = (m.bytesPerResult * 10_000 * 1440 * 30) / 1e9
  console.log(`${checks} checks, ${windowMs / 1000} s window:`)
  console.log(
    `  CPU per check        ${(m.cpuPerCheckMicros / 1000).toFixed(2)} ms   ${ratio.toFixed(1)}× saturated (target <= ${ratioTarget}×)   ${pct(m.coreShare)} of a core`,
  )
  console.log(
    `  the check alone      ${(floor.spreadMicros / 1000).toFixed(2)} ms spread, ${floor.saturatedMicros.toFixed(0)} µs saturated: ${(floor.spreadMicros / floor.saturatedMicros).toFixed(1)}×; ` +
      `svc over the check alone: ${(m.cpuPerCheckMicros / floor.spreadMicros).toFixed(1)}× spread, ${(saturatedMicros / floor.saturatedMicros).toFixed(1)}× saturated`,
  )
  if (benchEngine === 'postgres')
    console.log(
      `  with PostgreSQL      ${((m.cpuPerCheckMicros + m.storeCpuPerCheckMicros) / 1000).toFixed(2)} ms per check: the server's and PostgreSQL's (this database's backends, its background processes)`,
    )
  console.log(
    `  checks run / due     ${m.ranOfDue} / ${m.due}   drift p99 ${m.driftP99.toFixed(0)} ms   slots on a ${m.grainSeconds} s grain`,
  )
  console.log(`  RSS                  max ${m.maxRssMb.toFixed(0)} MB (target < 300 MB)`)
  console.log(
    `  store                ${m.bytesPerResult.toFixed(0)} bytes per result (target <= ${BYTES_TARGET}); 10,000 checks × 30 days: ${gbFor10k30d.toFixed(0)} GB (target < 110)`,
  )
}
target.stop()

/** bench:runner's scheduled path at saturation, in a process of its own on the same engine. */
function saturatedCpuPerCheck(): number {
  const run = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      'bench/runner.ts',
      '--rounds',
      '1',
      '--drift-checks',
      '0',
      '--checks',
      values['saturated-checks'],
    ],
    { encoding: 'utf8', env: process.env },
  )
  const line = run.stdout.split('\n').find((l) => l.startsWith('scheduler: claim'))
  const micros = Number(line?.match(/(\d+) µs CPU per check/)?.[1])
  if (!Number.isFinite(micros))
    throw new Error(`bench:runner printed no CPU figure:\n${run.stdout}${run.stderr}`)
  return micros
}

/**
 * bench/spread-floor.ts in a process of its own: svc's URL check alone (no store, scheduler or server),
 * saturated and spread as `checks` 1-minute checks over the same warm-up and window as svc's.
 */
async function checkAloneFloor(checks: number): Promise<{ saturatedMicros: number; spreadMicros: number }> {
  const floor = spawn(
    process.execPath,
    [
      ...process.execArgv,
      'bench/spread-floor.ts',
      '--origin',
      target.origin,
      '--checks',
      String(checks),
      '--window-ms',
      String(windowMs),
      '--warmup-ms',
      String(warmupMs),
      '--saturated-checks',
      // Its saturated figure takes a second or two: measured even when bench:runner's is skipped.
      Number(values['saturated-checks']) > 0 ? values['saturated-checks'] : '3000',
    ],
    { env: process.env, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let stdout = ''
  floor.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  const code = await new Promise<number | null>((done) => floor.on('exit', done))
  if (code !== 0) throw new Error(`bench/spread-floor.ts exited with ${code}:\n${stdout}`)
  return JSON.parse(stdout)
}

async function idle(checks: number) {
  const { storeUrl, dispose, key } = await seededStore(checks, { activated: false })
  const server = await startServerProcess(
    { ...storeEnv(storeUrl), SVC_ENCRYPTION_KEY: key },
    START_TIMEOUT_MS,
  )
  const pid = server.child.pid ?? 0
  // Start-up work (migrations, warm-up of the compile cache) is not idle: let it settle first.
  await sleep(10_000)
  const cpu = cpuMicrosOf(pid)
  const started = Date.now()
  await sleep(idleMs)
  const coreShare = (cpuMicrosOf(pid) - cpu) / 1000 / (Date.now() - started)
  const rss = rssMb(pid)
  await server.stop('SIGTERM')
  await dispose()
  return { coreShare, rssMb: rss }
}

/**
 * The RSS of bench/bare-server.ts (Fastify and one route, with the server's Node flags) after the same
 * settling time as the idle server: the floor svc's idle RSS is compared with.
 */
async function bareFastifyRssMb(): Promise<number> {
  const bare = spawn(process.execPath, [...NODE_FLAGS, 'bench/bare-server.ts'], {
    env: { ...process.env, PORT: String(await freePort()) },
  })
  bare.stdin.end('{}')
  await new Promise<void>((ready) => bare.stdout.once('data', () => ready()))
  await sleep(10_000)
  const rss = rssMb(bare.pid ?? 0)
  bare.kill()
  return rss
}

async function spreadLoad(checks: number) {
  const { storeUrl, dispose, key } = await seededStore(checks, { activated: true })
  const server = await startServerProcess(
    { ...storeEnv(storeUrl), SVC_ENCRYPTION_KEY: key },
    START_TIMEOUT_MS,
  )
  const pid = server.child.pid ?? 0
  const size = storeSize(storeUrl)
  await sleep(warmupMs)
  const before = {
    cpu: cpuMicrosOf(pid),
    storeCpu: await size.storeCpuMicros(),
    at: Date.now(),
    results: await size.results(),
    bytes: await size.bytes(),
  }
  let maxRssMb = 0
  const sampling = setInterval(() => {
    maxRssMb = Math.max(maxRssMb, rssMb(pid))
  }, 1000)
  await sleep(windowMs)
  clearInterval(sampling)
  const after = {
    cpu: cpuMicrosOf(pid),
    storeCpu: await size.storeCpuMicros(),
    at: Date.now(),
    results: await size.results(),
    bytes: await size.bytes(),
  }
  // The window's last runs are committed up to a commit delay later; their rows count as run.
  await sleep(RESULTS_SETTLE_MS)
  const runs = await size.slots(before.at, after.at)
  const drifts = runs.map((run) => run.driftMs).sort((a, b) => a - b)
  await size.close()
  await server.stop('SIGTERM')
  await dispose()
  const run = after.results - before.results
  return {
    run,
    ranOfDue: drifts.length,
    grainSeconds: grainSecondsOf(runs),
    due: Math.round((checks * (after.at - before.at)) / MINUTE),
    cpuPerCheckMicros: (after.cpu - before.cpu) / run,
    // A backend that started during the window counts from 0; one that ended is lost (the pool keeps them).
    storeCpuPerCheckMicros:
      [...after.storeCpu].reduce(
        (sum, [backend, micros]) => sum + micros - (before.storeCpu.get(backend) ?? 0),
        0,
      ) / run,
    coreShare: (after.cpu - before.cpu) / 1000 / (after.at - before.at),
    driftP99: drifts[Math.min(drifts.length - 1, Math.floor(0.99 * drifts.length))] ?? Number.NaN,
    maxRssMb,
    bytesPerResult: (after.bytes - before.bytes) / run,
  }
}

async function seededStore(checks: number, { activated }: { activated: boolean }) {
  const { url: storeUrl, dispose } = await benchStoreUrl()
  const store = createDb(storeUrl)
  await migrateToLatest(store)
  const key = randomBytes(32)
  await seedUrlChecks(
    benchServiceContext(store, () => new Date(), key),
    checks,
    target.url,
    { activated },
  )
  await store.close()
  return { storeUrl, dispose, key: key.toString('hex') }
}

/** Reads the store's size and results while the server writes to it, without touching its schedule. */
function storeSize(storeUrl: string) {
  if (storeUrl.startsWith('sqlite:')) {
    const db = new DatabaseSync(storeUrl.slice('sqlite:'.length), { readOnly: true })
    const one = (query: string) => Number(Object.values(db.prepare(query).get() ?? {})[0])
    return {
      results: async () => one('select count(*) from check_results'),
      // The server's own process runs SQLite: nothing else to count.
      storeCpuMicros: async () => new Map<number, number>(),
      bytes: async () => one('pragma page_count') * one('pragma page_size'),
      slots: async (fromMs: number, toMs: number) =>
        driftsOf(
          db.prepare('select job_id, started_at from check_results').all() as unknown as SlotRow[],
          fromMs,
          toMs,
        ),
      close: async () => db.close(),
    }
  }
  const client = new pg.Client({ connectionString: storeUrl })
  const connected = client.connect()
  const one = async (query: string) => {
    await connected
    return Number(Object.values((await client.query(query)).rows[0] ?? {})[0])
  }
  return {
    results: () => one('select count(*) from check_results'),
    /** CPU so far of PostgreSQL's backends of this database and its background processes, by pid. */
    storeCpuMicros: async () => {
      await connected
      const { rows } = await client.query<{ pid: number }>(
        `select pid from pg_stat_activity
          where (datname = current_database() or backend_type <> 'client backend') and pid <> pg_backend_pid()`,
      )
      return new Map(rows.flatMap(({ pid }) => (existsSync(`/proc/${pid}`) ? [[pid, cpuMicrosOf(pid)]] : [])))
    },
    bytes: () => one('select pg_database_size(current_database())'),
    slots: async (fromMs: number, toMs: number) =>
      driftsOf(
        (await client.query<SlotRow>('select job_id, started_at from check_results')).rows,
        fromMs,
        toMs,
      ),
    close: () => client.end(),
  }
}

interface SlotRow {
  job_id: string
  started_at: string | Date
}

/** The scheduled runs due in [fromMs, toMs): when each was due, and its start minus that. */
function driftsOf(rows: SlotRow[], fromMs: number, toMs: number): RunDrift[] {
  return rows.flatMap((row) => {
    const dueMs = dueMsOfSlotKey(row.job_id)
    if (dueMs === undefined || dueMs < fromMs || dueMs >= toMs) return []
    return [{ dueMs, driftMs: new Date(row.started_at).getTime() - dueMs }]
  })
}

interface RunDrift {
  dueMs: number
  driftMs: number
}

/** The coarsest grain every run was due on (the server's slot grain, slot-grain.ts), in seconds. */
function grainSecondsOf(runs: RunDrift[]): number {
  const coarsestFirst = SLOT_GRAINS_MS.toReversed()
  return (coarsestFirst.find((grainMs) => runs.every((run) => run.dueMs % grainMs === 0)) ?? 0) / 1000
}

function pct(share: number): string {
  return `${(100 * share).toFixed(2)}%`
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms))
}
