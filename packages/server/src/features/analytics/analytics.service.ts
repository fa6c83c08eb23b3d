import {
  type AnalyticsKind,
  bucketStarts,
  localMidnights,
  MetricStats,
  mergeEncodedMetricStats,
  metricMetadata,
  type ParsedMetric,
  parseMetric,
  resolveWindow,
  rollupRanges,
} from '@svc/core'
import type { CheckResultsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { badRequest, notFound } from '../../http/errors.ts'
import { type Page, pageOf } from '../../http/pagination.ts'
import { getAccount } from '../accounts/accounts.service.ts'
import { finalResultsPage } from '../check-results/result-lookups.service.ts'
import { findCheck } from '../checks/check-lookups.service.ts'
import { aCheckType } from '../checks/check-type-names.ts'
import { resolveCheck } from '../checks/resolve-check.ts'
import { findZone, type RollupRow } from './analytics.repo.ts'
import {
  type AnalyticsQueryValue,
  type AnalyticsResponse,
  DEFAULT_ANALYTICS_LIMIT,
} from './analytics.schemas.ts'
import { readAnalyticsRows } from './minute-rows.ts'
import { metricSlots, resultMetrics } from './result-metrics.ts'
import { FAILED_OUTCOMES } from './rollups.ts'

const MINUTE_MS = 60_000
/** A query may ask for at most this many buckets (per series). */
export const MAX_BUCKETS = 50_000

type Row = { timestamp: string } & Record<string, number | string | null>
type Series = AnalyticsResponse['series'][number]

/**
 * Answers an analytics query from the rollups (aggregated metrics: merged per bucket, never a scan of
 * results) or, for bare metric names, from the raw final results, one page at a time.
 */
export async function queryAnalytics(
  ctx: ServiceContext,
  accountId: string,
  kind: AnalyticsKind,
  checkId: string,
  query: AnalyticsQueryValue,
): Promise<{ body: AnalyticsResponse; total: number; shown: number; page: Page }> {
  const row = await findCheck(ctx, accountId, checkId)
  if (!row) throw notFound(`Check ${checkId} not found`)
  const { metrics, raw } = validQuery(kind, row.check_type, query)
  const timeZone = (await getAccount(ctx, accountId)).settings.timezone
  const { fromMs, toMs } = minuteWindow(query, timeZone, ctx.clock.now().getTime())
  const page = pageOf({ limit: query.limit ?? DEFAULT_ANALYTICS_LIMIT, page: query.page })
  const interval = query.aggregationInterval

  const { definition, effective } = await resolveCheck(ctx, row)
  const { series, total, shown } = raw
    ? await rawSeries(ctx, kind, checkId, metrics, { fromMs, toMs, query, page })
    : await aggregatedSeries(ctx, kind, checkId, metrics, { fromMs, toMs, interval, timeZone, query, page })
  return {
    body: {
      checkId: row.id,
      name: row.name,
      checkType: row.check_type as AnalyticsResponse['checkType'],
      activated: Boolean(row.activated),
      muted: Boolean(row.muted),
      frequency: effective.frequency,
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
      tags: (definition.tags as string[] | undefined) ?? [],
      series,
      pagination: { page: page.page, limit: page.limit },
      metadata: Object.fromEntries(metrics.map((metric) => [metric.name, metricMetadata(metric)])),
    },
    total,
    shown,
    page,
  }
}

/** The query's metrics, and whether they are raw points; a 400 for what the check's kind can't answer. */
function validQuery(
  kind: AnalyticsKind,
  checkType: string,
  query: AnalyticsQueryValue,
): { metrics: ParsedMetric[]; raw: boolean } {
  if (!(kind.checkTypes as string[]).includes(checkType)) {
    throw invalidQuery(
      'params.id',
      `is ${aCheckType(checkType)} check, not one of ${kind.segment} (${kind.checkTypes.join(', ')})`,
    )
  }
  const metrics = parseMetrics(kind, query)
  const raw = metrics.some((m) => m.aggregation === null)
  if (
    raw &&
    metrics.some((m) => m.aggregation !== null && m.base !== 'availability' && m.base !== 'retries')
  ) {
    throw invalidQuery(
      'querystring.metrics',
      'mixes raw points (bare names) with aggregated metrics (suffixed names); ask for them separately',
    )
  }
  if (query.groupBy !== undefined && !kind.groupBy.includes(query.groupBy)) {
    throw invalidQuery('querystring.groupBy', `must be one of ${kind.groupBy.join(', ') || '(none)'}`)
  }
  if (query.filterByStatus !== undefined && !kind.statusFilters.includes(query.filterByStatus)) {
    throw invalidQuery('querystring.filterByStatus', `must be one of ${kind.statusFilters.join(', ')}`)
  }
  return { metrics, raw }
}

/** The query's window in whole minutes (rollups are per minute at the finest); a 400 when it is empty. */
function minuteWindow(
  query: AnalyticsQueryValue,
  timeZone: string,
  nowMs: number,
): { fromMs: number; toMs: number } {
  const window = resolveWindow(query, timeZone, nowMs)
  const fromMs = Math.floor(window.fromMs / MINUTE_MS) * MINUTE_MS
  const toMs = Math.ceil(window.toMs / MINUTE_MS) * MINUTE_MS
  if (fromMs >= toMs) {
    throw invalidQuery('querystring.from', 'must be before `to` (the window is empty or inverted)')
  }
  return { fromMs, toMs }
}

function invalidQuery(path: string, message: string) {
  return badRequest(`${path} ${message}`, { errors: [{ path, message }] })
}

function parseMetrics(kind: AnalyticsKind, query: AnalyticsQueryValue): ParsedMetric[] {
  const names = [...(query.metrics ?? []), ...(query['metrics[]'] ?? [])]
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter(Boolean)
  const unique = [...new Set(names.length > 0 ? names : kind.defaultMetrics)]
  const unknown = unique.filter((name) => !parseMetric(kind, name))
  if (unknown.length > 0) {
    const known = ['availability', 'retries', ...Object.keys(kind.metrics)]
    throw badRequest(
      `querystring.metrics has unknown metric ${unknown.map((n) => JSON.stringify(n)).join(', ')} for ${kind.segment}; known bases: ${known.join(', ')} (with _avg, _max, _median, _min, _p50, _p90, _p95, _p99, _stddev or _sum)`,
      { errors: unknown.map((name) => ({ path: 'querystring.metrics', message: `unknown metric ${name}` })) },
    )
  }
  return unique.map((name) => parseMetric(kind, name) as ParsedMetric)
}

/** What a bucket of one series has gathered from rollup rows. */
class BucketTotals {
  results = 0
  failures = 0
  retries = 0
  readonly stats = new Map<number, MetricStats>()

  statsFor(slot: number): MetricStats {
    let stats = this.stats.get(slot)
    if (!stats) {
      stats = new MetricStats()
      this.stats.set(slot, stats)
    }
    return stats
  }
}

export const round = (value: number | null) => (value === null ? null : Math.round(value * 1000) / 1000)

async function aggregatedSeries(
  ctx: ServiceContext,
  kind: AnalyticsKind,
  checkId: string,
  metrics: ParsedMetric[],
  options: {
    fromMs: number
    toMs: number
    /** Minutes per bucket; none: one bucket over the whole window, as the hosted API answers. */
    interval: number | undefined
    timeZone: string
    query: AnalyticsQueryValue
    page: Page
  },
): Promise<{ series: Series[]; total: number; shown: number }> {
  const { fromMs, toMs, interval, timeZone, query, page } = options
  const starts =
    interval === undefined ? [fromMs] : bucketStarts(fromMs, toMs, interval, timeZone, MAX_BUCKETS)
  if (starts.length > MAX_BUCKETS) {
    throw invalidQuery(
      'querystring.aggregationInterval',
      `makes more than ${MAX_BUCKETS} buckets (choose a longer interval or a shorter window)`,
    )
  }
  const slots = metricSlots(kind)
  const wanted = new Set(
    metrics.flatMap((metric) => {
      const slot = slots.indexOf(metric.base)
      return slot >= 0 ? [slot] : []
    }),
  )
  const groupBy = query.groupBy
  // Day rows follow the zone the check's results were folded in; they serve this query from the first
  // local midnight folded in the account's current zone on.
  const zone = await findZone(ctx, checkId)
  const days =
    zone?.zone === timeZone ? localMidnights(fromMs, toMs, timeZone).filter((m) => m >= zone.sinceMs) : []
  const rows = await readAnalyticsRows(ctx, checkId, rollupRanges([...starts, toMs], days), {
    pages: groupBy === 'pageIndex',
    outcomes: query.filterByStatus === undefined ? undefined : [query.filterByStatus],
    withStats: wanted.size > 0,
  })
  const groups = totalsByGroup(rows, starts, groupBy, wanted)
  const keys = [...groups.keys()].sort(compareKeys)
  const series = keys.slice(page.offset, page.offset + page.limit).map((key): Series => {
    const buckets = groups.get(key) ?? []
    const data = starts.map((start, index) => {
      const totals = buckets[index]
      const row: Row = { timestamp: new Date(start).toISOString() }
      for (const metric of metrics) row[metric.name] = totals ? bucketValue(metric, totals, slots) : null
      return row
    })
    return groupBy ? { [groupBy]: key, data } : { data }
  })
  return { series, total: keys.length, shown: series.length }
}

/** The rollup rows summed per series (the `groupBy` key) and bucket; the `wanted` metric slots only. */
function totalsByGroup(
  rows: RollupRow[],
  starts: number[],
  groupBy: string | undefined,
  wanted: Set<number>,
): Map<string | number | null, (BucketTotals | undefined)[]> {
  const groups = new Map<string | number | null, (BucketTotals | undefined)[]>()
  for (const row of rows) {
    const key = groupKey(groupBy, row)
    let buckets = groups.get(key)
    if (!buckets) {
      buckets = new Array(starts.length)
      groups.set(key, buckets)
    }
    const index = bucketIndex(starts, row.bucketMs)
    let totals = buckets[index]
    if (!totals) {
      totals = new BucketTotals()
      buckets[index] = totals
    }
    totals.results += row.results
    totals.retries += row.retries
    if (FAILED_OUTCOMES.includes(row.outcome)) totals.failures += row.results
    if (row.stats) {
      const into = totals
      mergeEncodedMetricStats(row.stats, (slot) => (wanted.has(slot) ? into.statsFor(slot) : undefined))
    }
  }
  if (!groupBy && groups.size === 0) groups.set(null, new Array(starts.length))
  return groups
}

function bucketValue(metric: ParsedMetric, totals: BucketTotals, slots: string[]): number | null {
  if (totals.results === 0) return null
  if (metric.base === 'availability')
    return round((100 * (totals.results - totals.failures)) / totals.results)
  if (metric.base === 'retries') return totals.retries
  const stats = totals.stats.get(slots.indexOf(metric.base))
  return stats && metric.aggregation ? round(stats.aggregate(metric.aggregation)) : null
}

function groupKey(groupBy: string | undefined, row: RollupRow): string | number | null {
  switch (groupBy) {
    case 'runLocation':
      return row.location
    case 'statusCode':
      return row.statusCode < 0 ? null : row.statusCode
    case 'pageIndex':
      return row.pageIndex
    default:
      return null
  }
}

function compareKeys(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a) < String(b) ? -1 : 1
}

/** The bucket a rollup row falls in: the last start at or before it. */
function bucketIndex(starts: number[], atMs: number): number {
  let low = 0
  let high = starts.length - 1
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if ((starts[mid] as number) <= atMs) low = mid
    else high = mid - 1
  }
  return low
}

async function rawSeries(
  ctx: ServiceContext,
  kind: AnalyticsKind,
  checkId: string,
  metrics: ParsedMetric[],
  options: { fromMs: number; toMs: number; query: AnalyticsQueryValue; page: Page },
): Promise<{ series: Series[]; total: number; shown: number }> {
  const { fromMs, toMs, query, page } = options
  const { rows, total } = await finalResultsPage(
    ctx,
    checkId,
    {
      fromIso: new Date(fromMs).toISOString(),
      toIso: new Date(toMs).toISOString(),
      hasFailures: query.filterByStatus === undefined ? undefined : query.filterByStatus === 'failure',
    },
    page,
  )
  const slots = metricSlots(kind)
  const groupBy = query.groupBy
  const groups = new Map<string | number | null, Row[]>()
  const push = (key: string | number | null, row: Row) => {
    const list = groups.get(key) ?? []
    list.push(row)
    groups.set(key, list)
  }
  for (const result of rows) {
    const measured = resultMetrics(kind, result)
    const pointOf = (samples: [number, number][]) => {
      const point: Row = { timestamp: result.started_at }
      for (const metric of metrics) point[metric.name] = rawValue(metric, result, samples, slots)
      return point
    }
    if (groupBy === 'pageIndex') {
      for (const pageMetrics of measured.pages) push(pageMetrics.pageIndex, pointOf(pageMetrics.samples))
      continue
    }
    const key =
      groupBy === 'runLocation' ? result.run_location : groupBy === 'statusCode' ? result.status_code : null
    push(key, pointOf(measured.run))
  }
  if (!groupBy && groups.size === 0) groups.set(null, [])
  const series = [...groups.keys()].sort(compareKeys).map((key): Series => {
    const data = groups.get(key) ?? []
    return groupBy ? { [groupBy]: key, data } : { data }
  })
  return { series, total, shown: rows.length }
}

function rawValue(
  metric: ParsedMetric,
  result: CheckResultsTable,
  samples: [number, number][],
  slots: string[],
): number | null {
  if (metric.base === 'availability') return result.has_failures ? 0 : 100
  if (metric.base === 'retries') return Math.max(0, result.attempts - 1)
  const slot = slots.indexOf(metric.base)
  return samples.find(([s]) => s === slot)?.[1] ?? null
}
