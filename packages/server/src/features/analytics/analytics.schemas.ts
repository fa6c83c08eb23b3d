import {
  type AnalyticsKind,
  CHECK_TYPES,
  DateTime,
  MAX_PAGE,
  Nullable,
  QUICK_RANGES,
  StrictObject,
  StringEnum,
  UnixSeconds,
} from '@svc/core'
import { type Static, Type } from 'typebox'

export const MAX_INTERVAL_MINUTES = 43_200
export const DEFAULT_ANALYTICS_LIMIT = 100

const MetricList = Type.Array(Type.String({ maxLength: 2000 }), {
  maxItems: 100,
  description:
    'Comma-separated metric names; the parameter may also be repeated, or sent as `metrics[]`. ' +
    'A name with a suffix (`responseTime_p95`) is aggregated per bucket; a bare base name returns raw points.',
})

/** The query of one analytics path: the groupings and status filters of its check type. */
export function AnalyticsQuery(kind: AnalyticsKind) {
  return StrictObject({
    from: Type.Optional(UnixSeconds({ description: 'Unix seconds; with `to`, overrides `quickRange`.' })),
    to: Type.Optional(UnixSeconds()),
    quickRange: Type.Optional(
      StringEnum(QUICK_RANGES, {
        default: 'last24Hours',
        description: "A preset window in the account's time zone (`settings.timezone`).",
      }),
    ),
    aggregationInterval: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_INTERVAL_MINUTES,
        description:
          'Bucket length in minutes. Whole days start at local midnights; intervals that divide a day ' +
          'start on a grid from each local midnight. Left out: one bucket over the whole window.',
      }),
    ),
    filterByStatus: Type.Optional(StringEnum(kind.statusFilters)),
    ...(kind.groupBy.length > 0
      ? { groupBy: Type.Optional(StringEnum(kind.groupBy, { description: 'One series per value.' })) }
      : {}),
    metrics: Type.Optional(MetricList),
    'metrics[]': Type.Optional(MetricList),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: DEFAULT_ANALYTICS_LIMIT,
        description: 'Series per page (aggregated metrics) or raw points per page (bare metric names).',
      }),
    ),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  })
}

export interface AnalyticsQueryValue {
  from?: number
  to?: number
  quickRange?: (typeof QUICK_RANGES)[number]
  aggregationInterval?: number
  filterByStatus?: string
  groupBy?: string
  metrics?: string[]
  'metrics[]'?: string[]
  limit?: number
  page?: number
}

export const AnalyticsParams = StrictObject({ id: Type.String({ format: 'uuid' }) })

const SeriesRow = Type.Object(
  { timestamp: DateTime({ description: 'The bucket start, or the run start of a raw point.' }) },
  { additionalProperties: true, description: 'The timestamp and one value (or null) per requested metric.' },
)

const Series = Type.Object({
  runLocation: Type.Optional(Type.String()),
  statusCode: Type.Optional(Nullable(Type.Integer())),
  pageIndex: Type.Optional(Type.Integer()),
  data: Type.Array(SeriesRow),
})

export const AnalyticsResponse = Type.Object(
  {
    checkId: Type.String(),
    name: Type.String(),
    checkType: StringEnum(CHECK_TYPES),
    activated: Type.Boolean(),
    muted: Type.Boolean(),
    frequency: Type.Number(),
    from: DateTime(),
    to: DateTime(),
    tags: Type.Array(Type.String()),
    series: Type.Array(Series, {
      description:
        'One entry when ungrouped, one per group otherwise carrying its key (`runLocation`, `statusCode`, `pageIndex`).',
    }),
    pagination: Type.Object({ page: Type.Integer(), limit: Type.Integer() }),
    metadata: Type.Record(
      Type.String(),
      Type.Object({
        unit: StringEnum(['milliseconds', 'score', 'count', 'percentage'] as const),
        label: Type.String(),
        aggregation: Type.String(),
      }),
    ),
  },
  { title: 'Analytics' },
)
export type AnalyticsResponse = Static<typeof AnalyticsResponse>
