import { randomUUID } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  ALERT_CHANNEL_TYPES,
  ALERT_TYPES,
  type AlertType,
  Nullable,
  PageQuery,
  SerialId,
  StrictObject,
  StringEnum,
  textOf,
} from '@svc/core'
import type { AlertNotificationsTable } from '@svc/db'
import { type Static, Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { ChannelIdParams } from '../alert-channels/alert-channels.schemas.ts'
import { deliverableChannel } from '../alert-channels/alert-channels.service.ts'
import * as channelLookups from '../alert-channels/channel-lookups.service.ts'
import { sampleEvent } from '../alert-channels/sample-event.ts'
import * as repo from './alert-notifications.repo.ts'
import { type AlertEvent, deliver } from './delivery.ts'
import { MAX_ATTEMPTS } from './dispatcher.ts'

/** Deliveries from the outbox, as `GET /v1/alert-notifications` shows them, and channel test sends. */

const STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'CANCELLED'] as const
/** The hosted API's statuses of a delivery; RATE_LIMITED never happens in svc (it has no send quota). */
const HOSTED_STATUSES = ['IN_PROGRESS', 'SUCCESS', 'FAILURE', 'RATE_LIMITED'] as const
type HostedStatus = (typeof HOSTED_STATUSES)[number]
const HOSTED_STATUS_OF: Record<string, HostedStatus> = {
  PENDING: 'IN_PROGRESS',
  DELIVERED: 'SUCCESS',
  FAILED: 'FAILURE',
  CANCELLED: 'FAILURE',
}
/** svc's statuses each hosted one stands for, as a filter. */
const STATUSES_OF_HOSTED: Record<HostedStatus, string[]> = {
  IN_PROGRESS: ['PENDING'],
  SUCCESS: ['DELIVERED'],
  FAILURE: ['FAILED', 'CANCELLED'],
  RATE_LIMITED: [],
}

const Attempt = Type.Object({
  attempt: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  ok: Type.Boolean(),
  statusCode: Nullable(Type.Integer()),
  body: Nullable(Type.String({ description: 'The first 2 KiB of the response body.' })),
  error: Nullable(Type.String()),
})

export const AlertNotification = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    alertChannelId: Nullable(Type.Integer({ description: 'null once the channel is deleted.' })),
    channelType: StringEnum([...ALERT_CHANNEL_TYPES, 'INCIDENT'] as const, {
      description: 'INCIDENT: a check’s triggerIncident opening or resolving its status-page incident.',
    }),
    type: StringEnum([...ALERT_CHANNEL_TYPES, 'INCIDENT'] as const, {
      description: 'channelType, by its hosted name.',
    }),
    checkId: Nullable(Type.String({ format: 'uuid' })),
    checkType: Nullable(Type.String({ description: 'The check’s type when the alert was decided.' })),
    checkResultId: Nullable(Type.String({ description: 'The result that decided the alert.' })),
    alertType: StringEnum(ALERT_TYPES),
    title: Type.String(),
    test: Type.Boolean({ description: 'Sent by POST /v1/alert-channels/{id}/test.' }),
    status: StringEnum(HOSTED_STATUSES, {
      description:
        'IN_PROGRESS while attempts remain, SUCCESS once delivered, FAILURE when every attempt failed or the ' +
        'channel was deleted first (`deliveryStatus` tells which).',
    }),
    deliveryStatus: StringEnum(STATUSES, {
      description: 'svc’s own status: CANCELLED when the channel went first.',
    }),
    notificationResult: Nullable(Type.String({ description: 'The last attempt’s outcome, in one line.' })),
    timestamp: Nullable(Type.String({ format: 'date-time', description: 'When the last attempt was made.' })),
    attempts: Type.Integer({ description: `Attempts made so far, at most ${MAX_ATTEMPTS}.` }),
    nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'Set while PENDING.' })),
    lastResponse: Nullable(Attempt),
    attemptLog: Type.Array(Attempt),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    deliveredAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'AlertNotification' },
)
export type AlertNotification = Static<typeof AlertNotification>

/** The hosted document says `date`; its clients send either a date or a date-time. */
const DateOrTime = (description: string) =>
  Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })], { description })

const ListQuery = StrictObject({
  ...PageQuery,
  checkId: Type.Optional(Type.String({ format: 'uuid' })),
  alertChannelId: Type.Optional(SerialId()),
  status: Type.Optional(
    StringEnum([...HOSTED_STATUSES, ...STATUSES], {
      description: 'A hosted status, or one of svc’s delivery statuses.',
    }),
  ),
  alertType: Type.Optional(StringEnum(ALERT_TYPES)),
  from: Type.Optional(
    DateOrTime('Notifications created at or after this date-time (a date: its start, UTC).'),
  ),
  to: Type.Optional(DateOrTime('Notifications created before this date-time, or on or before this date.')),
  hasFailures: Type.Optional(
    Type.Boolean({ description: 'true: only those with a failed attempt; false: only those without.' }),
  ),
})

interface Attempted {
  at: string
  ok: boolean
  statusCode: number | null
  error: string | null
}

/** One line for the hosted `notificationResult`: the last attempt's status code or error. */
function resultOf(last: Attempted | null): string | null {
  if (!last) return null
  if (last.error) return last.error
  return last.statusCode === null ? (last.ok ? 'delivered' : 'failed') : `HTTP ${last.statusCode}`
}

function toNotification(row: AlertNotificationsTable): AlertNotification {
  const event = JSON.parse(row.event) as AlertEvent & { test?: boolean }
  const last = row.last_response ? (JSON.parse(row.last_response) as Attempted) : null
  const variable = (name: 'CHECK_TYPE' | 'CHECK_RESULT_ID') => {
    const value = event.variables[name]
    return value ? textOf(value) : null
  }
  return {
    id: row.id,
    alertChannelId: row.channel_id,
    channelType: row.channel_type as AlertNotification['channelType'],
    type: row.channel_type as AlertNotification['channelType'],
    checkId: row.check_id,
    checkType: variable('CHECK_TYPE'),
    checkResultId: variable('CHECK_RESULT_ID'),
    alertType: row.alert_type as AlertType,
    title: textOf(event.variables.ALERT_TITLE),
    test: Boolean(event.test),
    status: HOSTED_STATUS_OF[row.status] ?? 'FAILURE',
    deliveryStatus: row.status as AlertNotification['deliveryStatus'],
    notificationResult: resultOf(last),
    timestamp: last?.at ?? null,
    attempts: Math.min(Number(row.attempts), MAX_ATTEMPTS),
    nextAttemptAt: row.status === 'PENDING' ? new Date(Number(row.next_attempt_ms)).toISOString() : null,
    lastResponse: row.last_response ? JSON.parse(row.last_response) : null,
    attemptLog: JSON.parse(row.attempt_log),
    created_at: row.created_at,
    updated_at: row.updated_at,
    deliveredAt: row.delivered_at,
  }
}

/** For the retention sweep: deletes an account's finished notifications created before `beforeIso`. */
export function pruneNotifications(
  ctx: ServiceContext,
  accountId: string,
  beforeIso: string,
): Promise<number> {
  return repo.deleteFinishedNotificationsBefore(ctx, accountId, beforeIso)
}

/** Sends the sample event through a channel now (one attempt, no retries) and records it. */
export async function testChannel(
  ctx: ServiceContext,
  accountId: string,
  id: number,
): Promise<AlertNotification> {
  const channel = await channelLookups.findChannel(ctx, accountId, id)
  if (!channel) throw notFound(`Alert channel ${id} not found`)
  const event = { test: true, groupId: null, variables: sampleEvent(ctx) }
  const deliveryId = randomUUID()
  const { permanent: _permanent, ...outcome } = await deliver(
    ctx,
    deliverableChannel(ctx, channel),
    event,
    deliveryId,
  )
  const now = ctx.clock.now()
  const entry = { attempt: 1, at: now.toISOString(), ...outcome }
  const row: AlertNotificationsTable = {
    id: deliveryId,
    account_id: accountId,
    channel_id: id,
    channel_type: channel.type,
    check_id: null,
    alert_type: 'ALERT_FAILURE',
    event: JSON.stringify(event),
    status: outcome.ok ? 'DELIVERED' : 'FAILED',
    attempts: 1,
    next_attempt_ms: now.getTime(),
    lease_owner: null,
    lease_until_ms: null,
    last_response: JSON.stringify(entry),
    attempt_log: JSON.stringify([entry]),
    created_at: now.toISOString(),
    position: 0,
    updated_at: now.toISOString(),
    delivered_at: outcome.ok ? now.toISOString() : null,
  }
  await repo.insertNotifications(ctx, [row])
  return toNotification(row)
}

/** The end of `to`: a date alone includes its whole day (UTC). */
function endOf(to: string | undefined): string | undefined {
  if (to === undefined) return undefined
  const ms = Date.parse(to)
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(to) ? ms + 86_400_000 : ms).toISOString()
}

export const alertNotificationsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  notificationRoutes(app, ctx)
  channelTestRoute(app, ctx)
}

/** The account's alert deliveries: their list, and one. */
function notificationRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/alert-notifications',
    {
      schema: {
        tags: ['alert-channels'],
        summary: 'List alert deliveries',
        description:
          'Each notification decided for a channel, newest first, with its status (IN_PROGRESS while retries remain), ' +
          `attempts (the first and up to ${MAX_ATTEMPTS - 1} retries, 20 s apart) and the last response.`,
        querystring: ListQuery,
        response: { 200: Type.Array(AlertNotification) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { checkId, alertChannelId, status, alertType, from, to, hasFailures } = request.query
      const statuses =
        status === undefined ? undefined : (STATUSES_OF_HOSTED[status as HostedStatus] ?? [status])
      const filter = {
        checkId,
        channelId: alertChannelId,
        statuses,
        alertType,
        from: from === undefined ? undefined : new Date(Date.parse(from)).toISOString(),
        to: endOf(to),
        hasFailures,
      }
      const { rows, total } = await repo.listNotifications(ctx, authOf(request).accountId, filter, page)
      return sendPage(reply, page, rows.map(toNotification), total)
    },
  )

  app.get(
    '/v1/alert-notifications/:id',
    {
      schema: {
        tags: ['alert-channels'],
        summary: 'Retrieve one alert delivery',
        params: StrictObject({ id: Type.String({ format: 'uuid' }) }),
        response: { 200: AlertNotification },
      },
    },
    async (request) => {
      const row = await repo.findNotification(ctx, authOf(request).accountId, request.params.id)
      if (!row) throw notFound(`Alert notification ${request.params.id} not found`)
      return toNotification(row)
    },
  )
}

/** A sample alert sent through a channel now. */
function channelTestRoute(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/alert-channels/:id/test',
    {
      schema: {
        tags: ['alert-channels'],
        summary: 'Send a sample alert through a channel',
        description:
          'Sends a sample ALERT_FAILURE event now, once (no retries), and answers the delivery with its response.',
        params: ChannelIdParams,
        response: { 200: AlertNotification },
      },
    },
    async (request) => testChannel(ctx, authOf(request).accountId, request.params.id),
  )
}
