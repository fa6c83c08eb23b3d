import { type AnalyticsKind, MetricStats, ROLLUP_RESOLUTIONS } from '@svc/core'
import type { CheckResultsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { type HeartbeatSettings, heartbeatPeriodMs } from '../../scheduler/heartbeat-window.ts'
import { previousFinalResult } from '../check-results/check-results.repo.ts'
import { findCheckById } from '../checks/checks.repo.ts'
import { addToRollups, type RollupDelta } from './analytics.repo.ts'
import { kindOfCheckType, resultMetrics, type Sample } from './result-metrics.ts'

/**
 * Folds one stored final result into its check's rollups (every resolution), in the transaction that
 * stores it, so a result is in analytics at once and exactly once. Attempts are not folded: a final
 * result's `attempts − 1` are its retries.
 */
export async function foldResultIntoRollups(ctx: ServiceContext, row: CheckResultsTable): Promise<void> {
  if (row.result_type !== 'FINAL') return
  const kind = kindOfCheckType(row.check_type)
  if (!kind) return
  const outcome = row.check_type === 'HEARTBEAT' ? await heartbeatOutcome(ctx, row) : outcomeOf(row)
  await addToRollups(ctx, row.check_id, rollupDeltas(kind, row, outcome))
}

/** Folds many final results of ordinary checks at once (seeding, benchmarks): one read-merge-write per row touched. */
export async function foldResultsIntoRollups(ctx: ServiceContext, rows: CheckResultsTable[]): Promise<void> {
  const byCheck = new Map<string, RollupDelta[]>()
  for (const row of rows) {
    const kind = kindOfCheckType(row.check_type)
    if (row.result_type !== 'FINAL' || !kind || row.check_type === 'HEARTBEAT') continue
    const deltas = byCheck.get(row.check_id) ?? []
    deltas.push(...rollupDeltas(kind, row, outcomeOf(row)))
    byCheck.set(row.check_id, deltas)
  }
  for (const [checkId, deltas] of byCheck) await addToRollups(ctx, checkId, deltas)
}

const outcomeOf = (row: CheckResultsTable) => (row.has_failures ? 'failure' : 'success')

/** Outcomes that count against availability. */
export const FAILED_OUTCOMES = ['failure', 'FAILING']

export function rollupDeltas(kind: AnalyticsKind, row: CheckResultsTable, outcome: string): RollupDelta[] {
  const startedMs = Date.parse(row.started_at)
  const metrics = resultMetrics(kind, row)
  const base = {
    location: row.run_location,
    outcome,
    statusCode: row.status_code ?? -1,
    results: 1,
    retries: Math.max(0, row.attempts - 1),
  }
  const deltas: RollupDelta[] = []
  for (const resolution of ROLLUP_RESOLUTIONS) {
    const stepMs = resolution * 60_000
    const bucketMs = Math.floor(startedMs / stepMs) * stepMs
    deltas.push({ ...base, resolution, bucketMs, pageIndex: -1, stats: statsOf(metrics.run) })
    for (const page of metrics.pages) {
      deltas.push({ ...base, resolution, bucketMs, pageIndex: page.pageIndex, stats: statsOf(page.samples) })
    }
  }
  return deltas
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

/**
 * A heartbeat result's status for `filterByStatus`: FAILING (a missed deadline or a `/fail` ping); for a
 * ping, LATE when the previous result was a missed deadline, GRACE when it came after the period (inside
 * the grace time), EARLY when it came within half a period of the previous one, else RECEIVED.
 */
async function heartbeatOutcome(ctx: ServiceContext, row: CheckResultsTable): Promise<string> {
  if (row.has_failures) return 'FAILING'
  const previous = await previousFinalResult(ctx, row.check_id, row.started_at)
  if (!previous) return 'RECEIVED'
  if (previous.has_failures && previous.error_type === 'TIMEOUT') return 'LATE'
  const check = await findCheckById(ctx, row.check_id)
  const heartbeat = check
    ? (JSON.parse(check.definition).heartbeat as HeartbeatSettings | undefined)
    : undefined
  if (!heartbeat) return 'RECEIVED'
  const periodMs = heartbeatPeriodMs(heartbeat)
  const sinceMs = Date.parse(row.started_at) - Date.parse(previous.started_at)
  if (sinceMs > periodMs) return 'GRACE'
  if (sinceMs < periodMs / 2) return 'EARLY'
  return 'RECEIVED'
}
