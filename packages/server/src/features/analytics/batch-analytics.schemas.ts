import { CHECK_TYPES, Nullable, QUICK_RANGES, StrictObject, StringEnum } from '@svc/core'
import { Type } from 'typebox'

export const BatchAnalyticsQuery = StrictObject({
  quickRange: Type.Optional(StringEnum(QUICK_RANGES, { description: 'Default last24Hours.' })),
})

export const BatchAnalyticsBody = StrictObject({
  checkIds: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 100 }),
})

const Figure = Nullable(Type.Number())
export const BatchAnalyticsItem = Type.Object(
  {
    checkId: Type.String({ format: 'uuid' }),
    checkType: Type.String(),
    availability: Figure,
    responseTime_avg: Type.Optional(Figure),
    responseTime_p50: Type.Optional(Figure),
    responseTime_p95: Type.Optional(Figure),
    responseTime_p99: Type.Optional(Figure),
    latency_avg: Type.Optional(Figure),
    latency_p50: Type.Optional(Figure),
    latency_p95: Type.Optional(Figure),
    latency_p99: Type.Optional(Figure),
  },
  { title: 'BatchAnalyticsItem' },
)

export const MetricsQuery = StrictObject({
  checkType: StringEnum([...CHECK_TYPES, 'PLAYWRIGHT', 'AGENTIC', 'TRACEROUTE', 'GRPC'] as const, {
    description: 'Types svc has no checks of (AGENTIC, TRACEROUTE, GRPC) list no metrics.',
  }),
})

export const MetricDescriptor = Type.Object(
  {
    name: Type.String(),
    unit: StringEnum(['milliseconds', 'score', 'count', 'percentage'] as const),
    label: Type.String(),
    type: Type.String(),
    aggregated: Type.Boolean(),
  },
  { title: 'MetricDescriptor' },
)
