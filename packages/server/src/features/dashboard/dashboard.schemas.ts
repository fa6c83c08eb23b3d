import { CHECK_TYPES, MAX_PAGE, Nullable, SerialId, StrictObject, StringEnum, Uuid } from '@svc/core'
import { type Static, Type } from 'typebox'

export const OVERVIEW_STATUSES = ['passing', 'degraded', 'failing', 'paused', 'no-data'] as const
export type OverviewStatus = (typeof OVERVIEW_STATUSES)[number]

/** Rows of one page when `limit` is not given: the page the dashboard shows. */
export const OVERVIEW_PAGE_SIZE = 50

export const OverviewQuery = StrictObject({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: OVERVIEW_PAGE_SIZE,
      description: 'Checks per page, 1 to 100.',
    }),
  ),
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE,
      default: 1,
      description: 'Page number, from 1. Past the last page, the last page is served (see `page`).',
    }),
  ),
  id: Type.Optional(Uuid({ description: 'Only this check: its status line on the check’s page.' })),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'Only checks whose name holds this text, any case.' }),
  ),
  status: Type.Optional(StringEnum(OVERVIEW_STATUSES, { description: 'Only checks with this status.' })),
  type: Type.Optional(StringEnum(CHECK_TYPES, { description: 'Only checks of this type.' })),
  tag: Type.Optional(Type.String({ maxLength: 200, description: 'Only checks with this tag.' })),
  group: Type.Optional(SerialId({ description: 'Only checks of this group.' })),
  location: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Only checks that run in this location (a data-center location or a private location’s slug).',
    }),
  ),
})
export type OverviewQuery = Static<typeof OverviewQuery>

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

const count = Type.Integer({ minimum: 0 })

export const Overview = Type.Object(
  {
    checks: Type.Array(OverviewCheck, {
      description:
        'One page of the checks that match the filters: failing first, then degraded, passing, no-data, paused; by name within a status.',
    }),
    total: Type.Integer({ minimum: 0, description: 'How many checks match the filters, on all pages.' }),
    page: Type.Integer({ minimum: 1, description: 'The page served.' }),
    limit: Type.Integer({ minimum: 1 }),
    counts: Type.Object(
      { passing: count, degraded: count, failing: count, paused: count, 'no-data': count },
      { description: 'Every check of the account by status, whatever the filters.' },
    ),
    tags: Type.Array(Type.String(), {
      description: 'The tags of all checks, sorted: the tag filter’s choices.',
    }),
    groupIds: Type.Array(Type.Integer(), { description: 'The groups holding checks, sorted.' }),
    locations: Type.Array(Type.String(), {
      description: 'The locations the checks run in (private locations by slug), sorted.',
    }),
  },
  { title: 'DashboardOverview' },
)
export type Overview = Static<typeof Overview>
