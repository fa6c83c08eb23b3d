import type { CheckType } from '../checks/check-fields.ts'

/** The analytics contract per check type (spec "Analytics", extended to every type by API.md). */

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

const HTTP_METRICS = {
  responseTime: 'milliseconds',
  wait: 'milliseconds',
  dns: 'milliseconds',
  tcp: 'milliseconds',
  firstByte: 'milliseconds',
  download: 'milliseconds',
} as const satisfies Record<string, MetricUnit>

const RESULT_FILTERS = ['success', 'failure']

function kind(
  segment: string,
  checkTypes: CheckType[],
  metrics: Record<string, MetricUnit>,
  groupBy: string[],
  main: string,
  statusFilters = RESULT_FILTERS,
): AnalyticsKind {
  const defaultMetrics = ['availability', ...['avg', 'p50', 'p95', 'p99'].map((a) => `${main}_${a}`)]
  return { segment, checkTypes, metrics, groupBy, statusFilters, defaultMetrics }
}

export const ANALYTICS_KINDS: AnalyticsKind[] = [
  kind('url-monitors', ['URL'], HTTP_METRICS, ['runLocation', 'statusCode'], 'responseTime'),
  kind('api-checks', ['API'], HTTP_METRICS, ['runLocation', 'statusCode'], 'responseTime'),
  kind(
    'browser-checks',
    ['BROWSER'],
    {
      responseTime: 'milliseconds',
      TTFB: 'milliseconds',
      FCP: 'milliseconds',
      LCP: 'milliseconds',
      CLS: 'score',
      TBT: 'milliseconds',
      consoleErrors: 'count',
      networkErrors: 'count',
      userScriptErrors: 'count',
      documentErrors: 'count',
    },
    ['runLocation', 'pageIndex'],
    'responseTime',
  ),
  kind('multistep-checks', ['MULTI_STEP'], { responseTime: 'milliseconds' }, ['runLocation'], 'responseTime'),
  kind(
    'playwright-checks',
    ['AUTOMATION'],
    { responseTime: 'milliseconds' },
    ['runLocation'],
    'responseTime',
  ),
  kind(
    'tcp-checks',
    ['TCP'],
    { total: 'milliseconds', dns: 'milliseconds', connection: 'milliseconds', data: 'milliseconds' },
    ['runLocation'],
    'total',
  ),
  kind('dns', ['DNS'], { total: 'milliseconds' }, ['runLocation'], 'total'),
  kind(
    'icmp',
    ['ICMP'],
    {
      packetLoss: 'percentage',
      latencyMin: 'milliseconds',
      latencyMax: 'milliseconds',
      latencyAvg: 'milliseconds',
      latencyStdDev: 'milliseconds',
    },
    ['runLocation'],
    'latencyAvg',
  ),
  {
    segment: 'heartbeat-checks',
    checkTypes: ['HEARTBEAT'],
    metrics: {},
    groupBy: [],
    statusFilters: ['FAILING', 'EARLY', 'RECEIVED', 'GRACE', 'LATE'],
    defaultMetrics: ['availability', 'retries'],
  },
]

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
