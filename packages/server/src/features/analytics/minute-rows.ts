import { type AnalyticsKind, mergeStoredMetricStats, type RollupRange } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { analyticsReads } from '../check-results/check-results.service.ts'
import { type RollupRow, readRollups } from './analytics.repo.ts'
import { kindOfCheckType } from './result-metrics.ts'
import { foldsMinuteRows, outcomeOf, rollupDeltas } from './rollups.ts'

/**
 * The rows analytics queries read for `ranges`: rollup rows, and the minute buckets of results not folded
 * into minute rows (every check type but heartbeats, see `foldsMinuteRows`) made from the results
 * themselves, as the fold would have made them. A minute range is at most a query's edge or a
 * minute-interval window, so it holds few results.
 */
export async function readAnalyticsRows(
  ctx: ServiceContext,
  checkId: string,
  ranges: RollupRange[],
  options: { pages: boolean; outcomes?: string[]; withStats: boolean },
): Promise<RollupRow[]> {
  const rows = await readRollups(ctx, checkId, ranges, options)
  for (const range of ranges) {
    if (range.resolution === 1) rows.push(...(await minuteRowsOfResults(ctx, checkId, range, options)))
  }
  return rows
}

async function minuteRowsOfResults(
  ctx: ServiceContext,
  checkId: string,
  range: RollupRange,
  options: { pages: boolean; outcomes?: string[]; withStats: boolean },
): Promise<RollupRow[]> {
  const rows = new Map<string, RollupRow & { stats: Uint8Array }>()
  for (const result of await analyticsReads.foldedResultsBetween(ctx, checkId, range, 'HEARTBEAT')) {
    const kind = kindOfCheckType(result.check_type)
    if (!kind || foldsMinuteRows(result.check_type)) continue
    const outcome = outcomeOf(result)
    if (options.outcomes && !options.outcomes.includes(outcome)) continue
    // Merged in time order, as the fold merged them into the minute row.
    for (const delta of rollupDeltas(kind as AnalyticsKind, result, outcome, 'UTC', [1])) {
      if (options.pages ? delta.pageIndex < 0 : delta.pageIndex !== -1) continue
      const key = `${delta.bucketMs}|${delta.location}|${delta.outcome}|${delta.statusCode}|${delta.pageIndex}`
      const into = rows.get(key)
      if (!into) {
        rows.set(key, { ...delta })
        continue
      }
      into.results += delta.results
      into.retries += delta.retries
      if (options.withStats) into.stats = mergeStoredMetricStats(into.stats, delta.stats)
    }
  }
  return [...rows.values()].map((row) => (options.withStats ? row : { ...row, stats: null }))
}
