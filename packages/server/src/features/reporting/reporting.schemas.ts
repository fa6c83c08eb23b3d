import { StrictObject, StringEnum, UnixSeconds } from '@svc/core'
import { type Static, Type } from 'typebox'

/** The hosted product's preset windows (`last24Hrs`, not analytics' `last24Hours`). */
export const REPORT_QUICK_RANGES = [
  'last24Hrs',
  'last7Days',
  'last30Days',
  'thisWeek',
  'thisMonth',
  'lastWeek',
  'lastMonth',
] as const
export const GRANULARITIES = ['day', 'week', 'month'] as const
export const MAX_REPORT_DAYS = 400
export const MAX_REPORT_BUCKETS = 120

export const ReportingQuery = StrictObject({
  from: Type.Optional(UnixSeconds({ description: 'Unix seconds; overrides `quickRange`.' })),
  to: Type.Optional(UnixSeconds({ description: 'Unix seconds; overrides `quickRange`.' })),
  quickRange: Type.Optional(
    StringEnum(REPORT_QUICK_RANGES, {
      default: 'last24Hrs',
      description: "A preset window, in `timezone` or else the account's time zone.",
    }),
  ),
  filterByTags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      maxItems: 100,
      description:
        'Only checks with at least one of these tags. Repeat the parameter, or separate by commas.',
    }),
  ),
  deactivated: Type.Optional(
    Type.Boolean({ description: 'true: only deactivated checks; false: only active ones; omitted: all.' }),
  ),
  granularity: Type.Optional(
    StringEnum(GRANULARITIES, {
      description: `One aggregate per calendar bucket in \`aggregates\` (at most ${MAX_REPORT_DAYS} days, ${MAX_REPORT_BUCKETS} buckets).`,
    }),
  ),
  timezone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'IANA time zone of the calendar buckets (default UTC); offsets such as +05:00 are refused.',
    }),
  ),
})
export type ReportingQuery = Static<typeof ReportingQuery>

const Figures = {
  successRatio: Type.Number({
    minimum: 0,
    description: 'Percent of final results that passed; 0 without results.',
  }),
  avg: Type.Number({ minimum: 0, description: 'Average response time (ms); 0 without results.' }),
  p95: Type.Number({ minimum: 0 }),
  p99: Type.Number({ minimum: 0 }),
}
export const ReportAggregate = Type.Object(Figures)
export const ReportBucket = Type.Object({
  ...Figures,
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
})

export const ReportRow = Type.Object(
  {
    name: Type.String(),
    checkId: Type.String(),
    checkType: Type.String(),
    deactivated: Type.Boolean(),
    tags: Type.Array(Type.String()),
    aggregate: Type.Optional(ReportAggregate),
    aggregates: Type.Optional(Type.Array(ReportBucket)),
  },
  { title: 'ReportingCheck' },
)
export type ReportRow = Static<typeof ReportRow>
export type ReportBucket = Static<typeof ReportBucket>
