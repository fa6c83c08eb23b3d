/**
 * bench/analytics.ts: latency of an analytics query over a 1-minute URL check in 6 locations (about
 * 8,640 results a day), grouped by location with every percentile of every base metric, for 7, 30 and
 * 90-day windows, against a plain scan of the same raw rows computing the same numbers in the same run.
 * Target: p50 < 20 ms on SQLite for 30 days, flat in the number of raw results in the window.
 * Usage: npm run bench:analytics [-- --days 90 --runs 30] (SQLite; DATABASE_URL=postgres://... for PostgreSQL,
 * in a schema of its own that is dropped at the end).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ANALYTICS_KINDS, CHECK_BODIES } from '@svc/core'
import { type CheckResultsTable, createDb, migrateToLatest } from '@svc/db'
import pg from 'pg'
import { serviceContextOf } from '../packages/server/src/app.ts'
import type { ServiceContext } from '../packages/server/src/context.ts'
import { createSecretBox } from '../packages/server/src/crypto/secret-box.ts'
import { createAccount, updateAccount } from '../packages/server/src/features/accounts/accounts.service.ts'
import { queryAnalytics } from '../packages/server/src/features/analytics/analytics.service.ts'
import { foldResultsIntoRollups } from '../packages/server/src/features/analytics/rollups.ts'
import { exactAggregates } from '../packages/server/src/features/analytics/testing.ts'
import { insertResults } from '../packages/server/src/features/check-results/check-results.repo.ts'
import { readableDetailOf } from '../packages/server/src/features/check-results/result-rows.ts'
import { withReadableDetail } from '../packages/server/src/features/check-results/stored-detail.ts'
import { createCheck } from '../packages/server/src/features/checks/checks.service.ts'
import { compileBodyValidator } from '../packages/server/src/http/validation.ts'
import { scriptRunnerOf } from '../packages/server/src/runs/script-checks.ts'
import { writeResult } from '../packages/server/src/runs/store.ts'

const { values } = parseArgs({
  options: { days: { type: 'string', default: '90' }, runs: { type: 'string', default: '30' } },
})
const days = Number(values.days)
const runs = Number(values.runs)
const LOCATIONS = ['us-east-1', 'us-west-1', 'eu-west-1', 'eu-central-1', 'ap-south-1', 'ap-northeast-1']
const BASES = ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download']
const METRICS = [
  'availability',
  ...BASES.flatMap((b) => ['median', 'p50', 'p90', 'p95', 'p99'].map((a) => `${b}_${a}`)),
]
const DAY = 86_400_000
const NOW = Date.parse('2026-06-15T12:34:00.000Z')

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-analytics-'))
const pgUrl = process.env.DATABASE_URL
const schema = `bench_analytics_${randomBytes(4).toString('hex')}`
async function onPostgres(statement: string) {
  const client = new pg.Client({ connectionString: pgUrl })
  await client.connect()
  await client.query(statement)
  await client.end()
}
let storeUrl = `sqlite:${join(dir, 'svc.db')}`
if (pgUrl) {
  await onPostgres(`CREATE SCHEMA ${schema}`)
  const url = new URL(pgUrl)
  url.searchParams.set('options', `-c search_path=${schema}`)
  storeUrl = url.toString()
}
const store = createDb(storeUrl)
await migrateToLatest(store)
const base = serviceContextOf({
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
  clock: { now: () => new Date(NOW) },
})
const ctx: ServiceContext = base
const account = await createAccount(ctx, { name: 'bench' })
async function newCheck(name: string) {
  const body = { name, activated: false, frequency: 1, request: { url: 'https://example.com/' } }
  compileBodyValidator(CHECK_BODIES.URL)(body)
  return createCheck(ctx, account.id, 'URL', body, { sentFields: new Set(Object.keys(body)) })
}

let seed = 12345
const next = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}
function result(checkId: string, atMs: number, location: string): CheckResultsTable {
  const phases = {
    wait: 0,
    dns: Math.round(next() * 2000) / 100,
    tcp: Math.round((2 + next() * 30) * 100) / 100,
    tls: Math.round((5 + next() * 40) * 100) / 100,
    firstByte: Math.round((40 + next() * 300 + (next() < 0.02 ? 2_000 : 0)) * 100) / 100,
    download: Math.round(next() * 5000) / 100,
  }
  const total = Math.round(phases.dns + phases.tcp + phases.tls + phases.firstByte + phases.download)
  const failed = next() < 0.01
  const id = randomUUID()
  const at = new Date(atMs).toISOString()
  return {
    id,
    job_id: id,
    check_id: checkId,
    account_id: account.id,
    check_type: 'URL',
    run_location: location,
    started_at: at,
    stopped_at: at,
    response_time: total,
    has_failures: failed,
    has_errors: false,
    is_degraded: false,
    over_max_response_time: false,
    attempts: 1,
    result_type: 'FINAL',
    error_type: failed ? 'ASSERTION' : null,
    error_message: failed ? 'Status code 503 is not below 400' : null,
    status_code: failed ? 503 : 200,
    detail: JSON.stringify({
      urlCheckResult: { response: { status: failed ? 503 : 200 }, timingPhases: { ...phases, total } },
    }),
    created_at: at,
    is_cancelled: false,
  }
}

/**
 * Seeds `days` of results of a new check while the account is in `timezone` (its day rows follow the
 * zone results were folded in): raw rows in bulk and the rollup fold of the store path, a day at a time.
 */
async function seedCheck(name: string, timezone: string) {
  await updateAccount(ctx, account.id, { settings: { timezone } })
  const check = await newCheck(name)
  const start = performance.now()
  const firstMinute = Math.floor((NOW - days * DAY) / 60_000) * 60_000
  let count = 0
  for (let dayStart = firstMinute; dayStart < NOW; dayStart += DAY) {
    const rows: CheckResultsTable[] = []
    for (let at = dayStart; at < Math.min(dayStart + DAY, NOW); at += 60_000) {
      LOCATIONS.forEach((location, i) => {
        rows.push(result(check.id, at + i * 7_000, location))
      })
    }
    await ctx.db.transaction().execute(async (db) => {
      for (let i = 0; i < rows.length; i += 500) {
        await insertResults({ ...ctx, db }, rows.slice(i, i + 500))
      }
      await foldResultsIntoRollups({ ...ctx, db }, rows)
    })
    count += rows.length
  }
  return { id: check.id, count, seconds: (performance.now() - start) / 1000 }
}

const utcCheck = await seedCheck('bench UTC', 'UTC')
const berlinCheck = await seedCheck('bench Berlin', 'Europe/Berlin')

// The real write path (insert, alert fold, rollup fold in one transaction), per result.
const ingestRuns = 500
const ingestStart = performance.now()
for (let i = 0; i < ingestRuns; i++) {
  await writeResult(ctx, {
    row: result(berlinCheck.id, NOW - 30 * 60_000 + i * 1000, LOCATIONS[i % 6] as string),
  })
}
const ingestMs = (performance.now() - ingestStart) / ingestRuns

const kind = ANALYTICS_KINDS.find((k) => k.segment === 'url-monitors')!
/** Daily buckets (the default interval), or about 30 buckets whatever the window (same output size). */
const query = (windowDays: number, shape: 'daily' | 'thirty') => ({
  from: Math.floor((NOW - windowDays * DAY) / 1000),
  to: Math.floor(NOW / 1000),
  groupBy: 'runLocation',
  metrics: [METRICS.join(',')],
  aggregationInterval: shape === 'daily' ? 1440 : { 7: 360, 30: 1440, 90: 4320 }[windowDays],
})

/** The window's raw final results of a check, grouped by location and UTC day, with their metric values. */
async function scanGroups(checkId: string, fromMs: number, toMs: number) {
  const rows = await ctx.db
    .selectFrom('results as r')
    .innerJoin('result_checks as rc', 'rc.key', 'r.check_key')
    .select([
      'r.run_location',
      'r.started_ms',
      'r.has_failures',
      'r.response_time',
      'r.detail',
      'r.check_type',
    ])
    .where('rc.check_id', '=', checkId)
    .where('r.result_type', '=', 'FINAL')
    .where('r.started_ms', '>=', fromMs)
    .where('r.started_ms', '<', toMs)
    .execute()
  const groups = new Map<string, { values: number[][]; failures: number; n: number }>()
  for (const row of rows) {
    // A day's bucket, the first one clipped to the window's start (as the API lays them out).
    const day = Math.max(Math.floor(Number(row.started_ms) / DAY) * DAY, fromMs)
    const key = `${row.run_location}|${new Date(day).toISOString()}`
    let group = groups.get(key)
    if (!group) {
      group = { values: BASES.map(() => []), failures: 0, n: 0 }
      groups.set(key, group)
    }
    // A passing result that repeats the last one kept in full is stored compact: its timings read back.
    const phases = JSON.parse(withReadableDetail({ ...row, detail: readableDetailOf(row.detail) }).detail)
      .urlCheckResult.timingPhases
    group.n++
    if (row.has_failures) group.failures++
    group.values[0]?.push(Number(row.response_time))
    BASES.slice(1).forEach((name, i) => {
      group.values[i + 1]?.push(phases[name])
    })
  }
  return groups
}

/** The baseline: read the window's raw results and compute the same per-day, per-location numbers. */
async function plainScan(checkId: string, windowDays: number): Promise<number> {
  const groups = await scanGroups(checkId, NOW - windowDays * DAY, NOW)
  let checksum = 0
  for (const group of groups.values()) {
    for (const values of group.values) {
      const aggregates = exactAggregates(values)
      checksum += aggregates.median + aggregates.p50 + aggregates.p90 + aggregates.p95 + aggregates.p99
    }
  }
  return checksum
}

/**
 * Whether analytics answers what the scan computes: every metric of every location and UTC day from
 * 00:37 `windowDays` before today to now (12:34), so the first and last days are read partly from minute
 * buckets and hour rows, the others from day rows (availability exactly, to its two decimals;
 * percentiles within the 1% the API documents for its sketches). Answers the points compared and those
 * that differ.
 */
async function compareWithScan(checkId: string, windowDays: number) {
  const toMs = NOW
  const fromMs = Math.floor(NOW / DAY) * DAY - windowDays * DAY + 37 * 60_000
  const q = {
    from: fromMs / 1000,
    to: toMs / 1000,
    groupBy: 'runLocation',
    metrics: [METRICS.join(',')],
    aggregationInterval: 1440,
  }
  const answer = await queryAnalytics(ctx, account.id, kind, checkId, q)
  const groups = await scanGroups(checkId, fromMs, toMs)
  let compared = 0
  const differ: string[] = []
  for (const series of answer.body.series as {
    runLocation: string
    data: Record<string, number | string | null>[]
  }[]) {
    for (const point of series.data) {
      const group = groups.get(`${series.runLocation}|${point.timestamp}`)
      for (const metric of METRICS) {
        const got = point[metric] as number | null
        const want = group ? expected(group, metric) : null
        compared++
        const same =
          got === null || want === null
            ? got === want
            : Math.abs(got - want) <= (metric === 'availability' ? 0.0051 : want * 0.01 + 0.001)
        if (!same) differ.push(`${series.runLocation} ${point.timestamp} ${metric}: ${got} vs scan ${want}`)
      }
    }
  }
  return { compared, differ, groups: groups.size }
}

function expected(group: { values: number[][]; failures: number; n: number }, metric: string): number {
  if (metric === 'availability') return (100 * (group.n - group.failures)) / group.n
  const [base, aggregation] = metric.split('_') as [string, 'median' | 'p50' | 'p90' | 'p95' | 'p99']
  return exactAggregates(group.values[BASES.indexOf(base)] ?? [])[aggregation]
}

const percentile = (sorted: number[], q: number) => sorted[Math.floor(q * (sorted.length - 1))] as number
async function time(fn: () => Promise<unknown>, n: number) {
  await fn()
  const samples: number[] = []
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await fn()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) }
}

const lines: string[] = []
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1))
lines.push(
  `store: ${store.engine}; seeded 2 checks × ${utcCheck.count.toLocaleString('en')} results (${days} days × 1440 × 6 locations) in ${(utcCheck.seconds + berlinCheck.seconds).toFixed(1)} s`,
)
lines.push(
  `store path (insert + alert fold + rollup fold, one transaction): ${ingestMs.toFixed(2)} ms per result`,
)
const cases = [
  { label: 'UTC', timezone: 'UTC', checkId: utcCheck.id, scan: true },
  { label: 'Europe/Berlin', timezone: 'Europe/Berlin', checkId: berlinCheck.id, scan: false },
  // Results folded while the account was in UTC, asked for in Berlin days: hour rows serve it.
  { label: 'Berlin, folded in UTC', timezone: 'Europe/Berlin', checkId: utcCheck.id, scan: false },
]
for (const { label, timezone, checkId, scan } of cases) {
  await updateAccount(ctx, account.id, { settings: { timezone } })
  for (const shape of ['daily', 'thirty'] as const) {
    for (const windowDays of [7, 30, 90].filter((d) => d <= days)) {
      if (shape === 'thirty' && windowDays === 30) continue // the same query as daily
      const q = query(windowDays, shape)
      const answer = await queryAnalytics(ctx, account.id, kind, checkId, q)
      const rows = answer.body.series.reduce((sum, s) => sum + s.data.length, 0)
      const analytics = await time(() => queryAnalytics(ctx, account.id, kind, checkId, q), runs)
      const baseline =
        scan && shape === 'daily'
          ? await time(() => plainScan(checkId, windowDays), Math.min(5, runs))
          : undefined
      const inWindow = windowDays * 1440 * 6
      lines.push(
        `${label.padEnd(22)} ${String(windowDays).padStart(2)} days, ${String(q.aggregationInterval).padStart(4)}-min buckets (${inWindow.toLocaleString('en')} results, ${rows} rows × ${METRICS.length} metrics): ` +
          `analytics p50 ${fmt(analytics.p50)} ms, p99 ${fmt(analytics.p99)} ms` +
          (baseline
            ? `; plain scan p50 ${fmt(baseline.p50)} ms (×${(baseline.p50 / analytics.p50).toFixed(0)})`
            : ''),
      )
    }
  }
}
await updateAccount(ctx, account.id, { settings: { timezone: 'UTC' } })
const equality = await compareWithScan(utcCheck.id, Math.min(30, days - 1))
lines.push(
  `answers against the scan (UTC check, ${Math.min(30, days - 1)} days and today from 00:37 to 12:34 by location, ${METRICS.length} metrics): ` +
    `${equality.compared - equality.differ.length} of ${equality.compared} values equal` +
    (equality.differ.length > 0 ? `; differ: ${equality.differ.slice(0, 5).join('; ')}` : ''),
)
process.stdout.write(`${lines.join('\n')}\n`)
if (equality.differ.length > 0 || equality.groups === 0) process.exitCode = 1
await store.close()
if (pgUrl) await onPostgres(`DROP SCHEMA ${schema} CASCADE`)
rmSync(dir, { recursive: true, force: true })
