/**
 * bench/runner-floor.ts: how close to bench:runner's ceiling any persisted check path can come on this
 * machine. Beside the ceiling (bare undici, a fresh connection per request) and `runHttpCheck` alone, it
 * runs the least a shared store must do per scheduled check, with nothing of svc's besides the HTTP check:
 * claim due slots (20 at a time), run the check, insert its result and move its slot on (commits of up to
 * 40 results or 5 ms), as raw prepared statements on a SQLite file, with no rollups, error groups, alert
 * states or query builder. It is an experiment, not a path svc could ship, and gives the ratio that the
 * target of bench:runner (>= 0.7 of the ceiling) would have to beat with all of that added.
 * With `--http-threads N`, the floor's checks run on N worker threads while the main thread claims and
 * stores: the best case for moving checks off the store's thread (jobs and results cross in batches).
 * Usage: npm run bench:runner-floor [-- --checks 5000 --rounds 3 --concurrency 20 --http-threads 0]
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { parseArgs } from 'node:util'
import { Worker } from 'node:worker_threads'
import { type HttpRunResult, runHttpCheck } from '@svc/runner'
import { floorJob } from './runner-floor-job.ts'
import { bareRequest as bareRequestTo, inParallel as inParallelOf, startUrlTarget } from './url-target.ts'

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '20' },
    'http-threads': { type: 'string', default: '0' },
  },
})
const checks = Number(values.checks)
const concurrency = Number(values.concurrency)
const httpThreads = Number(values['http-threads'])
const CLAIM_SIZE = 20
const COMMIT_SIZE = 40
const COMMIT_WAIT_MS = 5
const MINUTE = 60_000

const target = await startUrlTarget()
const { origin } = target
const bareRequest = () => bareRequestTo(origin)
const inParallel = (count: number, task: () => Promise<void>) => inParallelOf(count, concurrency, task)
const job = floorJob(origin)
const checkOnce = () => runHttpCheck(job, { now: () => new Date() })
const checkOnThreads = httpThreads > 0 ? checksOnWorkerThreads(httpThreads) : undefined
const floorCheck = checkOnThreads?.check ?? checkOnce

const storeDir = mkdtempSync(join(tmpdir(), 'svc-runner-floor-'))
const store = minimalStore(join(storeDir, 'floor.db'))
let nowMs = 0

// Warm up both paths first: the first thousands of requests run slower while V8 compiles them.
await inParallel(checks, bareRequest)
await inParallel(checks, async () => void (await checkOnce()))
if (checkOnThreads) await inParallel(checks, async () => void (await checkOnThreads.check()))
const rounds: { ceiling: Rate; runnerOnly: Rate; floor: Rate }[] = []
for (let round = 0; round < Number(values.rounds); round++) {
  rounds.push({
    ceiling: await timed(() => inParallel(checks, bareRequest)),
    runnerOnly: await timed(() => inParallel(checks, async () => void (await checkOnce()))),
    floor: await timed(runAllDue),
  })
}
const stored = store.resultCount()
store.close()
rmSync(storeDir, { recursive: true, force: true })
await checkOnThreads?.close()
target.stop()
if (stored !== checks * rounds.length)
  throw new Error(`${stored} results stored for ${checks * rounds.length} runs`)

const median = (pick: (r: (typeof rounds)[number]) => Rate): Rate => {
  const sorted = rounds.map(pick).sort((a, b) => a.perSecond - b.perSecond)
  return sorted[Math.floor(sorted.length / 2)] as Rate
}
const ceiling = median((r) => r.ceiling)
const line = (name: string, r: Rate) =>
  `${name.padEnd(46)} ${r.perSecond.toFixed(0).padStart(6)} checks/s   ${r.cpuMicrosPerCheck.toFixed(0).padStart(4)} µs CPU per check   ${(r.perSecond / ceiling.perSecond).toFixed(2)} of the ceiling`
console.log(
  `SQLite, ${concurrency} in flight, ${checks} checks, median of ${rounds.length} rounds, floor's checks on ${httpThreads > 0 ? `${httpThreads} worker thread(s)` : 'the main thread'}`,
)
console.log(
  `rounds (checks/s, ceiling / runner / floor): ${rounds.map((r) => [r.ceiling, r.runnerOnly, r.floor].map((x) => x.perSecond.toFixed(0)).join(' / ')).join(',  ')}`,
)
console.log(line('bare undici, fresh connection each (ceiling)', ceiling))
console.log(
  line(
    'runHttpCheck only (no store)',
    median((r) => r.runnerOnly),
  ),
)
console.log(
  line(
    'floor: claim, run, insert result, move slot',
    median((r) => r.floor),
  ),
)

/** Slots and results with the indexes svc's own tables have for the same statements. */
function minimalStore(path: string) {
  const db = new DatabaseSync(path)
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = NORMAL')
  db.exec(`create table slots (check_id text primary key, next_due_ms integer not null, lease_owner text);
    create index slots_due on slots (next_due_ms);
    create table results (id text primary key, check_id text not null, started_at text not null,
      has_failures integer not null, response_time integer not null, detail text not null);
    create index results_check_started on results (check_id, started_at);`)
  const insertSlot = db.prepare('insert into slots values (?, 0, null)')
  db.exec('begin')
  for (let i = 0; i < checks; i++) insertSlot.run(randomUUID())
  db.exec('commit')
  const claim = db.prepare(`update slots set lease_owner = 'bench', next_due_ms = ?
    where check_id in (select check_id from slots where next_due_ms <= ? and lease_owner is null
      order by next_due_ms limit ?) returning check_id`)
  const insertResult = db.prepare('insert into results values (?, ?, ?, ?, ?, ?)')
  const moveSlot = db.prepare('update slots set next_due_ms = ?, lease_owner = null where check_id = ?')
  return {
    claim(atMs: number, limit: number): string[] {
      const rows = claim.all(atMs + 10 * MINUTE, atMs, limit) as { check_id: string }[]
      return rows.map((row) => row.check_id)
    },
    store(batch: { checkId: string; result: HttpRunResult }[], nextDueMs: number) {
      db.exec('begin immediate')
      for (const { checkId, result } of batch) {
        insertResult.run(
          randomUUID(),
          checkId,
          result.startedAt,
          result.hasFailures ? 1 : 0,
          result.responseTime,
          JSON.stringify(result),
        )
        moveSlot.run(nextDueMs, checkId)
      }
      db.exec('commit')
    },
    resultCount: () => (db.prepare('select count(*) as n from results').get() as { n: number }).n,
    close: () => db.close(),
  }
}

/** Every slot due once more, claimed as runs finish and stored in batches, as svc's scheduler does. */
async function runAllDue(): Promise<void> {
  nowMs += MINUTE
  const dueMs = nowMs
  const done = Promise.withResolvers<void>()
  const claimed: string[] = []
  let pending: { checkId: string; result: HttpRunResult }[] = []
  let commitTimer: NodeJS.Timeout | undefined
  let inFlight = 0
  let stored = 0
  let fillQueued = false
  const commit = () => {
    clearTimeout(commitTimer)
    commitTimer = undefined
    store.store(pending, dueMs + MINUTE)
    stored += pending.length
    pending = []
    if (stored === checks) done.resolve()
  }
  const fill = () => {
    if (stored === checks) return
    if (claimed.length === 0 && inFlight < concurrency)
      claimed.push(...store.claim(dueMs, Math.min(CLAIM_SIZE, concurrency - inFlight)))
    for (let checkId = claimed.shift(); checkId !== undefined; checkId = claimed.shift()) {
      inFlight++
      floorCheck().then((result) => {
        inFlight--
        pending.push({ checkId, result })
        if (pending.length >= COMMIT_SIZE || stored + pending.length === checks) commit()
        else commitTimer ??= setTimeout(commit, COMMIT_WAIT_MS)
        // The places freed in one turn are claimed together, as the scheduler gathers them.
        if (!fillQueued) {
          fillQueued = true
          setImmediate(() => {
            fillQueued = false
            fill()
          })
        }
      })
      if (inFlight >= concurrency) break
    }
  }
  fill()
  await done.promise
}

/**
 * Checks run on `threads` worker threads, handed out in turn; the checks asked for in one turn of the
 * event loop go to the threads in one message each.
 */
function checksOnWorkerThreads(threads: number) {
  const workers = Array.from(
    { length: threads },
    () => new Worker(new URL('./runner-floor-worker.ts', import.meta.url), { workerData: { origin } }),
  )
  const waiting = new Map<number, (result: HttpRunResult) => void>()
  for (const worker of workers)
    worker.on('message', (finished: { ticket: number; result: HttpRunResult }[]) => {
      for (const { ticket, result } of finished) {
        waiting.get(ticket)?.(result)
        waiting.delete(ticket)
      }
    })
  let tickets = 0
  let toSend: number[][] = workers.map(() => [])
  const send = () => {
    toSend.forEach((batch, i) => {
      if (batch.length > 0) workers[i]?.postMessage(batch)
    })
    toSend = workers.map(() => [])
  }
  let sendQueued = false
  return {
    check(): Promise<HttpRunResult> {
      const ticket = tickets++
      toSend[ticket % threads]?.push(ticket)
      if (!sendQueued) {
        sendQueued = true
        queueMicrotask(() => {
          sendQueued = false
          send()
        })
      }
      return new Promise((resolve) => waiting.set(ticket, resolve))
    },
    close: () => Promise.all(workers.map((worker) => worker.terminate())),
  }
}

interface Rate {
  perSecond: number
  /** CPU time of this process (user + system) per check. */
  cpuMicrosPerCheck: number
}

async function timed(run: () => Promise<void>): Promise<Rate> {
  const started = performance.now()
  const cpu = process.cpuUsage()
  await run()
  const { user, system } = process.cpuUsage(cpu)
  return {
    perSecond: checks / ((performance.now() - started) / 1000),
    cpuMicrosPerCheck: (user + system) / checks,
  }
}
