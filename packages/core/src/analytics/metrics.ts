import type { CheckType } from '../checks/check-fields.ts'

/** Analytics metrics: each type's catalog is in its check-types/ module (ANALYTICS_KINDS). */

export const METRIC_AGGREGATIONS = [
  'avg',
  'max',
  'median',
  'min',
  'p50',
  'p90',
  'p95',
  'p99',
  'stddev',
  'sum',
] as const
export type MetricAggregation = (typeof METRIC_AGGREGATIONS)[number]

export type MetricUnit = 'milliseconds' | 'score' | 'count' | 'percentage'

export interface AnalyticsKind {
  /** The path segment: `GET /v1/analytics/{segment}/{id}`. */
  segment: string
  checkTypes: CheckType[]
  /** Base metrics besides `availability` and `retries`, with their units. */
  metrics: Record<string, MetricUnit>
  groupBy: string[]
  /** Values of `filterByStatus`. */
  statusFilters: string[]
  /** Metrics answered when the query names none. */
  defaultMetrics: string[]
}

export interface ParsedMetric {
  name: string
  base: string
  /** Null for a bare base name: its raw points, not an aggregate. */
  aggregation: MetricAggregation | null
  unit: MetricUnit
}

const AGGREGATION_LABELS: Record<MetricAggregation, string> = {
  avg: 'average',
  max: 'maximum',
  median: 'median',
  min: 'minimum',
  p50: '50th percentile',
  p90: '90th percentile',
  p95: '95th percentile',
  p99: '99th percentile',
  stddev: 'standard deviation',
  sum: 'sum',
}

/** Parses a metric name of `kind`; undefined when it is not one (the API answers 400). */
export function parseMetric(kind: AnalyticsKind, name: string): ParsedMetric | undefined {
  if (name === 'availability') return { name, base: name, aggregation: 'avg', unit: 'percentage' }
  if (name === 'retries') return { name, base: name, aggregation: 'sum', unit: 'count' }
  const [base = '', suffix, extra] = name.split('_')
  const unit = kind.metrics[base]
  if (!unit || extra !== undefined) return undefined
  if (suffix === undefined) return { name, base, aggregation: null, unit }
  if (!(METRIC_AGGREGATIONS as readonly string[]).includes(suffix)) return undefined
  return { name, base, aggregation: suffix as MetricAggregation, unit }
}

/** The `metadata` entry of a metric: `{unit, label, aggregation}`. */
export function metricMetadata(metric: ParsedMetric) {
  const aggregation = metric.aggregation ?? 'none'
  const label =
    metric.base === 'availability'
      ? 'Availability'
      : metric.base === 'retries'
        ? 'Retries'
        : `${metric.base}${metric.aggregation ? ` (${AGGREGATION_LABELS[metric.aggregation]})` : ''}`
  return { unit: metric.unit, label, aggregation }
}
