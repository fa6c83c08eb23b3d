import { Nullable, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'

export const OVERVIEW_STATUSES = ['passing', 'degraded', 'failing', 'paused', 'no-data'] as const

export const OverviewCheck = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    checkType: Type.String(),
    activated: Type.Boolean(),
    muted: Type.Boolean(),
    tags: Type.Array(Type.String()),
    groupId: Nullable(Type.Integer()),
    locations: Type.Array(Type.String()),
    privateLocations: Type.Array(Type.String()),
    frequency: Type.Integer({ description: 'Minutes between runs, the group’s when the check inherits it.' }),
    status: StringEnum(OVERVIEW_STATUSES, {
      description:
        'From the latest final result; `paused` when the check or its group is deactivated; `no-data` before the first result.',
    }),
    statusSince: Nullable(
      Type.String({ format: 'date-time', description: 'When the current status began.' }),
    ),
    lastRunAt: Nullable(Type.String({ format: 'date-time' })),
    lastResponseTime: Nullable(Type.Number({ description: 'Milliseconds, of the latest final result.' })),
    availability24h: Nullable(
      Type.Number({ description: 'Percent (0–100) of final results that passed in the last 24 hours.' }),
    ),
    responseTimes24h: Type.Array(Nullable(Type.Number()), {
      description:
        'Hourly averages of the response time (ICMP: latency) in milliseconds, 24 of them, oldest first, the current hour last; null for an hour without results.',
    }),
  },
  { title: 'OverviewCheck' },
)
export type OverviewCheck = Static<typeof OverviewCheck>

export const Overview = Type.Object({ checks: Type.Array(OverviewCheck) }, { title: 'DashboardOverview' })
