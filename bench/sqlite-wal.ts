/**
 * bench/sqlite-wal.ts: the SQLite write-ahead log under writes without a pause. Commits of `--rows` rows
 * (each row's key random, so the pages a commit dirties spread as results of many checks do) through
 * createDb, one after another with `--pause-ms` between; samples the -wal file's size and the log's
 * frames (from the WAL index in -shm) every 50 ms and the event loop's delay.
 * Usage: npm run bench:sqlite-wal [-- --seconds 60 --rows 40 --pause-ms 5]
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { createDb } from '@svc/db'
import { sql } from 'kysely'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    rows: { type: 'string', default: '40' },
    'pause-ms': { type: 'string', default: '5' },
  },
})
const seconds = Number(values.seconds)
const rows = Number(values.rows)
const pauseMs = Number(values['pause-ms'])

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-wal-'))
const path = join(dir, 'svc.db')
const store = createDb(`sqlite:${path}`)
await sql`create table results (id text primary key, check_id text not null, at integer not null, body blob not null)`.execute(
  store.db,
)
await sql`create index results_check on results (check_id, at)`.execute(store.db)
const checkIds = Array.from({ length: 5000 }, () => randomUUID())

/** The log's last frame: `mxFrame` of the WAL index header (https://www.sqlite.org/walformat.html). */
const logFrames = () => readFileSync(`${path}-shm`).readUInt32LE(16)
const walFileBytes = () => statSync(`${path}-wal`).size
let maxFrames = 0
let maxFileBytes = 0
let framesWritten = 0
let startsOver = 0
let lastFrames = 0
const sampling = setInterval(() => {
  const frames = logFrames()
  // Frames written between the last sample and a start-over go uncounted: the rate is a floor.
  if (frames < lastFrames) {
    startsOver++
    lastFrames = 0
  }
  framesWritten += frames - lastFrames
  lastFrames = frames
  maxFrames = Math.max(maxFrames, frames)
  maxFileBytes = Math.max(maxFileBytes, walFileBytes())
}, 50)
const delay = monitorEventLoopDelay({ resolution: 1 })
const secondDelay = monitorEventLoopDelay({ resolution: 1 })
delay.enable()
secondDelay.enable()
const perSecondMaxMs: number[] = []
const perSecond = setInterval(() => {
  perSecondMaxMs.push(secondDelay.max / 1e6)
  secondDelay.reset()
}, 1000)

const endAt = Date.now() + seconds * 1000
let commits = 0
while (Date.now() < endAt) {
  const batch = Array.from({ length: rows }, () => ({
    id: randomUUID(),
    check_id: checkIds[Math.floor(Math.random() * checkIds.length)],
    at: commits,
    body: randomBytes(300),
  }))
  await store.db.transaction().execute((tx) =>
    tx
      .insertInto('results' as never)
      .values(batch as never)
      .execute(),
  )
  commits++
  await (pauseMs > 0 ? sleep(pauseMs) : new Promise((next) => setImmediate(next)))
}
clearInterval(sampling)
clearInterval(perSecond)
delay.disable()
const endFileBytes = walFileBytes()
await store.close()
rmSync(dir, { recursive: true, force: true })

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`
const ms = (nanoseconds: number) => `${(nanoseconds / 1e6).toFixed(1)} ms`
perSecondMaxMs.sort((a, b) => a - b)
const quantile = (q: number) => perSecondMaxMs[Math.floor(q * (perSecondMaxMs.length - 1))]?.toFixed(1)
console.log(
  `${seconds} s, ${commits} commits of ${rows} rows (${(commits / seconds).toFixed(0)}/s, ${pauseMs} ms apart), ~${(framesWritten / seconds).toFixed(0)} pages of log/s`,
)
console.log(
  `log: at most ${maxFrames} pages (${mb(maxFrames * 4096)}), started over ${startsOver} times; -wal file at most ${mb(maxFileBytes)}, ${mb(endFileBytes)} at the end`,
)
console.log(
  `event loop delay: p50 ${ms(delay.percentile(50))}, p99 ${ms(delay.percentile(99))}, max ${ms(delay.max)}; each second's max: median ${quantile(0.5)} ms, p90 ${quantile(0.9)} ms`,
)
