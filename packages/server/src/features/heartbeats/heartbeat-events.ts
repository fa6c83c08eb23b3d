import { Nullable, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { badRequest, notFound } from '../../http/errors.ts'
import { getAccount } from '../accounts/accounts.service.ts'
import { periodFigures } from '../analytics/period-figures.ts'
import { getResult, listResults } from '../check-results/check-results.service.ts'
import { getCheck } from '../checks/checks.service.ts'

/** The hosted heartbeat history: pings and misses (results of the check) and their success ratios. */

const DAY_MS = 86_400_000
const STATES = ['FAILING', 'EARLY', 'RECEIVED', 'GRACE', 'LATE'] as const

export const HeartbeatEvent = Type.Object({
  id: Type.String({ format: 'uuid' }),
  state: StringEnum(STATES, {
    description: 'RECEIVED: a ping; FAILING: a /fail ping; LATE: no ping in time.',
  }),
  timestamp: Type.String({ format: 'date-time' }),
  source: Nullable(Type.String({ description: 'The HTTP method of the ping.' })),
  userAgent: Nullable(Type.String()),
})
export const Availability = Nullable(
  Type.Object({
    successRatio: Type.Object({ previousPeriod: Type.Number(), currentPeriod: Type.Number() }),
    totalEntitiesCurrentPeriod: Type.Number(),
  }),
)
const Stats = Type.Object({ last24Hours: Availability, last7Days: Availability })
export const HeartbeatEvents = Type.Array(Type.Object({ events: Type.Array(HeartbeatEvent), stats: Stats }))
export const OneHeartbeatEvent = Type.Object({ event: HeartbeatEvent, stats: Stats })
type HeartbeatEvent = Static<typeof HeartbeatEvent>
type Availability = Static<typeof Availability>

const DateParam = Type.String({ maxLength: 64, description: 'A date or date-time (ISO 8601).' })
export const HeartbeatIdParams = StrictObject({ checkId: Type.String({ format: 'uuid' }) })
export const HeartbeatEventParams = StrictObject({
  checkId: Type.String({ format: 'uuid' }),
  id: Type.String({ format: 'uuid' }),
})
export const EventsQuery = StrictObject({
  startTime: Type.Optional(DateParam),
  endTime: Type.Optional(DateParam),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 10 })),
})
export const AvailabilityQuery = StrictObject({
  startTime: Type.Optional(DateParam),
  endTime: Type.Optional(DateParam),
})

async function heartbeatOf(ctx: ServiceContext, accountId: string, checkId: string) {
  const check = await getCheck(ctx, accountId, checkId)
  if (check.checkType !== 'HEARTBEAT') throw notFound(`Heartbeat check ${checkId} not found`)
  return check
}

function timeOf(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) {
    const path = `querystring.${name}`
    throw badRequest(`${path} must be a date or date-time`, { errors: [{ path, message: 'must be a date' }] })
  }
  return ms
}

function toEvent(result: Record<string, unknown>): HeartbeatEvent {
  const detail = (result.heartbeatCheckResult ?? {}) as { event?: string; method?: string | null }
  const kind = detail.event ?? (result.hasFailures ? 'FAIL_PING' : 'RECEIVED')
  return {
    id: String(result.id),
    state: kind === 'RECEIVED' ? 'RECEIVED' : kind === 'MISSED' ? 'LATE' : 'FAILING',
    timestamp: String(result.startedAt),
    source: detail.method ?? null,
    userAgent: null,
  }
}

/** Success ratio (percent) of [fromMs, toMs) and of the as long period before it, from the rollups. */
export async function availabilityOf(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  window: { fromMs: number; toMs: number },
): Promise<Availability> {
  const timeZone = (await getAccount(ctx, accountId)).settings.timezone
  const length = window.toMs - window.fromMs
  const [current, previous] = await periodFigures(
    ctx,
    { id: checkId, checkType: 'HEARTBEAT' },
    [window, { fromMs: window.fromMs - length, toMs: window.fromMs }],
    timeZone,
  )
  if (!current?.results && !previous?.results) return null
  return {
    successRatio: { previousPeriod: previous?.availability ?? 0, currentPeriod: current?.availability ?? 0 },
    totalEntitiesCurrentPeriod: current?.results ?? 0,
  }
}

async function statsOf(ctx: ServiceContext, accountId: string, checkId: string) {
  const nowMs = ctx.clock.now().getTime()
  return {
    last24Hours: await availabilityOf(ctx, accountId, checkId, { fromMs: nowMs - DAY_MS, toMs: nowMs }),
    last7Days: await availabilityOf(ctx, accountId, checkId, { fromMs: nowMs - 7 * DAY_MS, toMs: nowMs }),
  }
}

export async function heartbeatEvents(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  query: Static<typeof EventsQuery>,
) {
  await heartbeatOf(ctx, accountId, checkId)
  const from = timeOf(query.startTime, 'startTime')
  const to = timeOf(query.endTime, 'endTime')
  const limit = query.limit ?? 10
  const { items } = await listResults(
    ctx,
    accountId,
    checkId,
    {
      from: from === undefined ? undefined : Math.floor(from / 1000),
      to: to === undefined ? undefined : Math.floor(to / 1000),
      resultType: 'FINAL',
    },
    { limit, page: 1, offset: 0 },
  )
  const events = items.map((item) => toEvent(item as Record<string, unknown>))
  return [{ events, stats: await statsOf(ctx, accountId, checkId) }]
}

export async function heartbeatEvent(ctx: ServiceContext, accountId: string, checkId: string, id: string) {
  await heartbeatOf(ctx, accountId, checkId)
  const result = await getResult(ctx, accountId, checkId, id)
  return { event: toEvent(result as Record<string, unknown>), stats: await statsOf(ctx, accountId, checkId) }
}

export async function heartbeatAvailability(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  query: Static<typeof AvailabilityQuery>,
) {
  await heartbeatOf(ctx, accountId, checkId)
  const nowMs = ctx.clock.now().getTime()
  const toMs = timeOf(query.endTime, 'endTime') ?? nowMs
  const fromMs = timeOf(query.startTime, 'startTime') ?? toMs - DAY_MS
  if (fromMs >= toMs) {
    const path = 'querystring.startTime'
    throw badRequest(`${path} must be before endTime`, {
      errors: [{ path, message: 'must be before endTime' }],
    })
  }
  return availabilityOf(ctx, accountId, checkId, { fromMs, toMs })
}
