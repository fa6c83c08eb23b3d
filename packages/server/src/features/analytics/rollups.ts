import {
  type AnalyticsKind,
  encodeMetricStats,
  localDateAt,
  MetricStats,
  ROLLUP_RESOLUTIONS,
  startOfLocalDay,
} from '@svc/core'
import type { CheckResultsTable, ChecksTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { cachedFoldReads, forgetFoldReads } from '../../fold-reads.ts'
import { type HeartbeatSettings, heartbeatPeriodMs } from '../../runs/heartbeat-window.ts'
import { foldedAccount } from '../accounts/accounts.service.ts'
import { type PreviousResult, previousHeartbeatResults } from '../check-results/result-lookups.service.ts'
import { findCheckById } from '../checks/check-lookups.service.ts'
import type { RollupDelta } from './analytics.repo.ts'
import { addToRollups, findZones, saveZones } from './analytics.repo.ts'
import { kindOfCheckType, resultMetrics, type Sample } from './result-metrics.ts'

/**
 * Folds newly stored final results into their checks' rollups (every resolution), in the transaction
 * that stores them, so a result is in analytics at once and exactly once; any number of results and
 * checks costs a few statements. Attempts are not folded: a final result's `attempts − 1` are its
 * retries. `checks` spares heartbeats loading their check.
 */
export async function foldResultsIntoRollups(
  ctx: ServiceContext,
  rows: CheckResultsTable[],
  checks: ReadonlyMap<string, ChecksTable> = new Map(),
): Promise<void> {
  const finals = rows.filter((row) => row.result_type === 'FINAL' && kindOfCheckType(row.check_type))
  if (finals.length === 0) return
  const zones = await zonesOfFold(ctx, finals)
  const heartbeats = await heartbeatOutcomes(ctx, finals, checks)
  const deltas = new Map<string, RollupDelta[]>()
  for (const row of finals) {
    const kind = kindOfCheckType(row.check_type) as AnalyticsKind
    const outcome = heartbeats.get(row.id) ?? outcomeOf(row)
    const zone = zones.get(row.check_id) ?? 'UTC'
    const resolutions = foldsMinuteRows(row.check_type) ? ROLLUP_RESOLUTIONS : HOURS_AND_DAYS
    deltas.set(row.check_id, [
      ...(deltas.get(row.check_id) ?? []),
      ...rollupDeltas(kind, row, outcome, zone, resolutions),
    ])
  }
  await addToRollups(ctx, deltas)
}

/**
 * The zone whose local days each check's day rows follow: its account's now. When it differs from the
 * check's last one, the check's day rows are complete only from its first result here on (queries use
 * hour rows before), so an account changing its time zone never gets day rows mixing two zones' days.
 */
async function zonesOfFold(ctx: ServiceContext, rows: CheckResultsTable[]): Promise<Map<string, string>> {
  const accountZones = new Map<string, string>()
  const firstMs = new Map<string, number>()
  for (const row of rows) {
    if (!accountZones.has(row.account_id)) {
      const account = await foldedAccount(ctx, row.account_id)
      accountZones.set(row.account_id, account?.settings.timezone ?? 'UTC')
    }
    const atMs = Date.parse(row.started_at)
    firstMs.set(row.check_id, Math.min(firstMs.get(row.check_id) ?? atMs, atMs))
  }
  const current = await storedZones(ctx, [...firstMs.keys()])
  const zones = new Map<string, string>()
  const changed: { checkId: string; zone: string; sinceMs: number }[] = []
  for (const row of rows) {
    if (zones.has(row.check_id)) continue
    const zone = accountZones.get(row.account_id) as string
    zones.set(row.check_id, zone)
    if (current.get(row.check_id)?.zone !== zone) {
      changed.push({ checkId: row.check_id, zone, sinceMs: firstMs.get(row.check_id) as number })
    }
  }
  forgetFoldReads(
    ctx,
    changed.map((z) => zoneKey(z.checkId)),
  )
  await saveZones(ctx, changed)
  return zones
}

const zoneKey = (checkId: string) => `zone:${checkId}`
/**
 * A check's stored zone changes only when its account's zone does, which is an account write and drops
 * the cache on every node; the TTL is a bound for a lost notification. A check's result comes once a
 * minute, say, so the default 5 s would read it again each time.
 */
const ZONE_TTL_MS = 10 * 60_000

/** The stored zones of `checkIds` that have one, by check id: from memory (fold-reads.ts) while unchanged. */
async function storedZones(ctx: ServiceContext, checkIds: string[]) {
  const byKey = await cachedFoldReads(
    ctx,
    checkIds.map(zoneKey),
    async (keys) => {
      const found = await findZones(
        ctx,
        keys.map((key) => key.slice('zone:'.length)),
      )
      return new Map([...found].map(([checkId, zone]) => [zoneKey(checkId), zone]))
    },
    ZONE_TTL_MS,
  )
  return new Map(checkIds.flatMap((id) => (byKey.has(zoneKey(id)) ? [[id, byKey.get(zoneKey(id))]] : [])))
}

/**
 * Whether a check type's results are folded into minute rows. Only heartbeats are: a heartbeat's outcome
 * depends on the result before it. Other minute buckets are answered from the results themselves
 * (minute-rows.ts): a minute row of a check that runs once a minute was a second copy of its result.
 */
export const foldsMinuteRows = (checkType: string): boolean => checkType === 'HEARTBEAT'

const HOURS_AND_DAYS = ROLLUP_RESOLUTIONS.filter((resolution) => resolution !== 1)

export const outcomeOf = (row: CheckResultsTable) => (row.has_failures ? 'failure' : 'success')

/** Outcomes that count against availability. */
export const FAILED_OUTCOMES = ['failure', 'FAILING']

export function rollupDeltas(
  kind: AnalyticsKind,
  row: CheckResultsTable,
  outcome: string,
  zone: string,
  resolutions: readonly number[] = ROLLUP_RESOLUTIONS,
): RollupDelta[] {
  const startedMs = Date.parse(row.started_at)
  const metrics = resultMetrics(kind, row)
  const base = {
    location: row.run_location,
    outcome,
    statusCode: row.status_code ?? -1,
    results: 1,
    retries: Math.max(0, row.attempts - 1),
  }
  // Encoded once, the same bytes in every resolution's row.
  const run = encodeMetricStats(statsOf(metrics.run))
  const pages = metrics.pages.map((page) => ({
    pageIndex: page.pageIndex,
    stats: encodeMetricStats(statsOf(page.samples)),
  }))
  const deltas: RollupDelta[] = []
  for (const resolution of resolutions) {
    const stepMs = resolution * 60_000
    const bucketMs =
      resolution === 1440 ? localDayStart(startedMs, zone) : Math.floor(startedMs / stepMs) * stepMs
    deltas.push({ ...base, resolution, bucketMs, pageIndex: -1, stats: run })
    for (const page of pages) deltas.push({ ...base, resolution, bucketMs, ...page })
  }
  return deltas
}

/** The last local day looked up, per zone: results come in time order, so most lookups hit it. */
const lastDay = new Map<string, { startMs: number; endMs: number }>()

function localDayStart(atMs: number, zone: string): number {
  const known = lastDay.get(zone)
  if (known && atMs >= known.startMs && atMs < known.endMs) return known.startMs
  const date = localDateAt(atMs, zone)
  const startMs = startOfLocalDay(date.year, date.month, date.day, zone)
  const endMs = startOfLocalDay(date.year, date.month, date.day + 1, zone)
  lastDay.set(zone, { startMs, endMs })
  return startMs
}

function statsOf(samples: Sample[]): Map<number, MetricStats> {
  const stats = new Map<number, MetricStats>()
  for (const [slot, value] of samples) {
    let metric = stats.get(slot)
    if (!metric) {
      metric = new MetricStats()
      stats.set(slot, metric)
    }
    metric.add(value)
  }
  return stats
}

/** The `filterByStatus` status of each heartbeat result of `rows` (in order), by result id. */
async function heartbeatOutcomes(
  ctx: ServiceContext,
  rows: CheckResultsTable[],
  checks: ReadonlyMap<string, ChecksTable>,
): Promise<Map<string, string>> {
  // In time order (ISO times sort as text), so each result follows the one before it in `rows`.
  const heartbeats = rows
    .filter((row) => row.check_type === 'HEARTBEAT')
    .sort((a, b) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0))
  const firstOfCheck = new Map<string, CheckResultsTable>()
  for (const row of heartbeats) if (!firstOfCheck.has(row.check_id)) firstOfCheck.set(row.check_id, row)
  const stored = await previousHeartbeatResults(
    ctx,
    [...firstOfCheck.values()].map((row) => ({ checkId: row.check_id, beforeIso: row.started_at })),
  )
  const periods = new Map<string, number | undefined>()
  // A later result of a check in `rows` follows the earlier one, not what was stored before them.
  const latest = new Map<string, PreviousResult>()
  const outcomes = new Map<string, string>()
  for (const row of heartbeats) {
    if (!periods.has(row.check_id)) periods.set(row.check_id, await periodOf(ctx, row.check_id, checks))
    const previous = latest.get(row.check_id) ?? stored.get(row.check_id)
    outcomes.set(row.id, heartbeatOutcome(row, previous, periods.get(row.check_id)))
    latest.set(row.check_id, { ...row, has_failures: Boolean(row.has_failures) })
  }
  return outcomes
}

async function periodOf(
  ctx: ServiceContext,
  checkId: string,
  checks: ReadonlyMap<string, ChecksTable>,
): Promise<number | undefined> {
  const check = checks.get(checkId) ?? (await findCheckById(ctx, checkId))
  const heartbeat = check
    ? (JSON.parse(check.definition).heartbeat as HeartbeatSettings | undefined)
    : undefined
  return heartbeat && heartbeatPeriodMs(heartbeat)
}

/**
 * A heartbeat result's status for `filterByStatus`: FAILING (a missed deadline or a `/fail` ping); for a
 * ping, LATE when the previous result was a missed deadline, GRACE when it came after the period (inside
 * the grace time), EARLY when it came within half a period of the previous one, else RECEIVED.
 */
function heartbeatOutcome(
  row: CheckResultsTable,
  previous: PreviousResult | undefined,
  periodMs: number | undefined,
): string {
  if (row.has_failures) return 'FAILING'
  if (!previous) return 'RECEIVED'
  if (previous.has_failures && previous.error_type === 'TIMEOUT') return 'LATE'
  if (periodMs === undefined) return 'RECEIVED'
  const sinceMs = Date.parse(row.started_at) - Date.parse(previous.started_at)
  if (sinceMs > periodMs) return 'GRACE'
  if (sinceMs < periodMs / 2) return 'EARLY'
  return 'RECEIVED'
}
