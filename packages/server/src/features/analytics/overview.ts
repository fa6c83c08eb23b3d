import { MetricStats, mergeEncodedMetricStats, parseMetric } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { readHourlyRunRollups } from './analytics.repo.ts'
import { round } from './analytics.service.ts'
import { kindOfCheckType, metricSlots } from './result-metrics.ts'
import { FAILED_OUTCOMES } from './rollups.ts'

const HOUR_MS = 3_600_000
export const OVERVIEW_HOURS = 24

export interface CheckOverviewFigures {
  /** Percent of final results that passed in the window; null without results. */
  availability: number | null
  /** Hourly averages of the check type's main metric (response time), oldest first; null: no result. */
  hourlyAverages: (number | null)[]
}

/**
 * The last `OVERVIEW_HOURS` hourly rollups (the current hour included) of many checks, read in one
 * statement: availability over the window and the hourly averages of each check's main metric.
 */
export async function hourlyOverview(
  ctx: ServiceContext,
  checks: { id: string; checkType: string }[],
): Promise<Map<string, CheckOverviewFigures>> {
  const currentHourMs = Math.floor(ctx.clock.now().getTime() / HOUR_MS) * HOUR_MS
  const fromMs = currentHourMs - (OVERVIEW_HOURS - 1) * HOUR_MS
  const rows = await readHourlyRunRollups(
    ctx,
    checks.map((check) => check.id),
    fromMs,
    currentHourMs + HOUR_MS,
  )
  const mainSlots = new Map(checks.map((check) => [check.id, mainMetricSlot(check.checkType)]))
  const totals = new Map<string, { results: number; failures: number; hours: MetricStats[] }>()
  for (const row of rows) {
    let check = totals.get(row.check_id)
    if (!check) {
      check = {
        results: 0,
        failures: 0,
        hours: Array.from({ length: OVERVIEW_HOURS }, () => new MetricStats()),
      }
      totals.set(row.check_id, check)
    }
    check.results += row.results
    if (FAILED_OUTCOMES.includes(row.outcome)) check.failures += row.results
    const slot = mainSlots.get(row.check_id)
    const hour = check.hours[(row.bucket_ms - fromMs) / HOUR_MS]
    if (slot !== undefined && hour) mergeEncodedMetricStats(row.stats, (s) => (s === slot ? hour : undefined))
  }
  return new Map(
    checks.map((check) => {
      const figures = totals.get(check.id)
      return [
        check.id,
        {
          availability: figures?.results
            ? round((100 * (figures.results - figures.failures)) / figures.results)
            : null,
          hourlyAverages: figures
            ? figures.hours.map((stats) => round(stats.aggregate('avg')))
            : new Array(OVERVIEW_HOURS).fill(null),
        },
      ]
    }),
  )
}

/** The slot of the metric the check type's analytics lead with (response time, latency); none for heartbeats. */
export function mainMetricSlot(checkType: string): number | undefined {
  const kind = kindOfCheckType(checkType)
  const main = kind?.defaultMetrics
    .map((name) => parseMetric(kind, name))
    .find((m) => m && m.base !== 'availability' && m.base !== 'retries')
  if (!kind || !main) return undefined
  const slot = metricSlots(kind).indexOf(main.base)
  return slot >= 0 ? slot : undefined
}
