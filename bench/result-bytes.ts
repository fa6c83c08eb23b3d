/**
 * bench/result-bytes.ts: where a passing URL result's bytes go on SQLite. N 1-minute URL checks run M
 * minutes through the real scheduler (an injected clock moved a minute per round, so each check stores one
 * result a minute, as at real load) against a local target; then the store is checkpointed and each table
 * and index is sized with SQLite's `dbstat`, per result stored.
 * Target (issue 31): at most 250 bytes per passing result, rollups included.
 * Usage: npm run bench:result-bytes [-- --checks 200 --minutes 10 --keep /tmp/x.db]
 */
import { copyFileSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { parseArgs } from 'node:util'
import { createDb, migrateToLatest } from '@svc/db'
import { testEngines } from '../packages/db/src/testing.ts'
import { createScheduler } from '../packages/server/src/runs/scheduler.ts'
import { benchServiceContext, seedUrlChecks } from './seed.ts'
import { startUrlTarget } from './url-target.ts'

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '200' },
    minutes: { type: 'string', default: '10' },
    keep: { type: 'string' },
  },
})
const checks = Number(values.checks)
const minutes = Number(values.minutes)
const MINUTE = 60_000
const BYTES_TARGET = 250

const target = await startUrlTarget()
const sqlite = testEngines().find((e) => e.engine === 'sqlite')
if (!sqlite) throw new Error('no SQLite store')
const { url: storeUrl, dispose } = await sqlite.createUrl()
const store = createDb(storeUrl)
await migrateToLatest(store)
let nowMs = Date.parse('2026-01-05T12:00:30.000Z')
const ctx = benchServiceContext(store, () => new Date(nowMs))
await seedUrlChecks(ctx, checks, target.url)
const path = storeUrl.slice('sqlite:'.length)
const before = sizes(path)
// Halfway: what the second half adds per result is the steady cost (per-check rows, each check's first
// detail kept in full and its hour and day rows are there already; an hour adds its own row and detail).
const halfway = Math.floor(minutes / 2)
let middle: ReturnType<typeof sizes> | undefined
for (let minute = 0; minute < minutes; minute++) {
  if (minute === halfway) middle = sizes(path)
  nowMs += MINUTE
  // The clock stands still at the minute: claiming ahead would take the next minute's first slots too.
  const scheduler = createScheduler(ctx, { locations: ['local'], concurrency: 20, claimAheadMs: 0 })
  scheduler.start()
  while (await anySlotDue(nowMs)) await new Promise((tick) => setTimeout(tick, 10))
  await scheduler.stop()
}
await store.close()
const after = sizes(path)
const results = after.results
console.log(
  `${checks} URL checks × ${minutes} minutes on SQLite: ${results} results (${after.passing} passing)`,
)
let total = 0
for (const [name, bytes] of [...after.bytes].sort((a, b) => b[1] - a[1])) {
  const grown = bytes - (before.bytes.get(name) ?? 0)
  if (grown <= 0) continue
  total += grown
  console.log(`  ${name.padEnd(44)} ${(grown / results).toFixed(1).padStart(8)} bytes per result`)
}
console.log(
  `  ${'total'.padEnd(44)} ${(total / results).toFixed(1).padStart(8)} bytes per result (target <= ${BYTES_TARGET})`,
)
const gb = ((total / results) * 10_000 * 1440 * 30) / 1e9
console.log(`  10,000 one-minute checks × 30 days: ${gb.toFixed(0)} GB (target < 110)`)
if (middle && after.results > middle.results) {
  const sum = (bytes: Map<string, number>) => [...bytes.values()].reduce((a, b) => a + b, 0)
  const steady = (sum(after.bytes) - sum(middle.bytes)) / (after.results - middle.results)
  console.log(
    `  minutes ${halfway} to ${minutes} alone: ${steady.toFixed(1)} bytes per result; ` +
      `× 432 million results (10,000 one-minute checks × 30 days): ${((steady * 432e6) / 1e9).toFixed(0)} GB`,
  )
}
if (values.keep) copyFileSync(path, values.keep)
await dispose()
target.stop()

async function anySlotDue(atMs: number) {
  const row = await store.db
    .selectFrom('check_schedules')
    .select('check_id')
    .where('next_due_ms', '<=', atMs)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** Bytes of each table and index (dbstat, after a checkpoint), and the results stored. */
function sizes(file: string) {
  const db = new DatabaseSync(file)
  db.exec('pragma wal_checkpoint(truncate)')
  const rows = db.prepare('select name, sum(pgsize) as bytes from dbstat group by name').all() as {
    name: string
    bytes: number
  }[]
  const count = (where: string) =>
    Number((db.prepare(`select count(*) as n from check_results ${where}`).get() as { n: number }).n)
  const out = {
    bytes: new Map(rows.map((r) => [r.name, Number(r.bytes)])),
    results: count(''),
    passing: count('where not has_failures and not is_degraded'),
  }
  db.close()
  return out
}
