import { localMidnights, MetricStats, mergeEncodedMetricStats, rollupRanges } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { findZone } from './analytics.repo.ts'
import { round } from './analytics.service.ts'
import { readAnalyticsRows } from './minute-rows.ts'
import { mainMetricSlot } from './overview.ts'
import { FAILED_OUTCOMES } from './rollups.ts'

const MINUTE_MS = 60_000

export interface PeriodFigures {
  /** Final results in the period. */
  results: number
  /** Percent of them that passed; null without results. */
  availability: number | null
  /** Of the check type's main metric (response time, or latency for ICMP); null without samples. */
  avg: number | null
  p50: number | null
  p95: number | null
  p99: number | null
}

/**
 * Availability and the main metric's average and tail of one check over each of `periods` (whole
 * minutes), read from the rollups: day rows where whole local days of `timeZone` fit, hour and minute
 * rows around them. Never a scan of raw results.
 */
export async function periodFigures(
  ctx: ServiceContext,
  check: { id: string; checkType: string },
  periods: { fromMs: number; toMs: number }[],
  timeZone: string,
): Promise<PeriodFigures[]> {
  const slot = mainMetricSlot(check.checkType)
  const zone = await findZone(ctx, check.id)
  const answers: PeriodFigures[] = []
  for (const period of periods) {
    const fromMs = Math.floor(period.fromMs / MINUTE_MS) * MINUTE_MS
    const toMs = Math.ceil(period.toMs / MINUTE_MS) * MINUTE_MS
    if (fromMs >= toMs) {
      answers.push({ results: 0, availability: null, avg: null, p50: null, p95: null, p99: null })
      continue
    }
    // Day rows follow the zone the check's results were folded in (as analytics queries do).
    const days =
      zone?.zone === timeZone ? localMidnights(fromMs, toMs, timeZone).filter((m) => m >= zone.sinceMs) : []
    const rows = await readAnalyticsRows(ctx, check.id, rollupRanges([fromMs, toMs], days), {
      pages: false,
      withStats: slot !== undefined,
    })
    let results = 0
    let failures = 0
    const stats = new MetricStats()
    for (const row of rows) {
      results += row.results
      if (FAILED_OUTCOMES.includes(row.outcome)) failures += row.results
      if (row.stats && slot !== undefined) {
        mergeEncodedMetricStats(row.stats, (s) => (s === slot ? stats : undefined))
      }
    }
    answers.push({
      results,
      availability: results > 0 ? round((100 * (results - failures)) / results) : null,
      avg: round(stats.aggregate('avg')),
      p50: round(stats.aggregate('p50')),
      p95: round(stats.aggregate('p95')),
      p99: round(stats.aggregate('p99')),
    })
  }
  return answers
}
