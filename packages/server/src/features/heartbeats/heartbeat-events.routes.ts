import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import {
  Availability,
  AvailabilityQuery,
  EventsQuery,
  HeartbeatEventParams,
  HeartbeatEvents,
  HeartbeatIdParams,
  heartbeatAvailability,
  heartbeatEvent,
  heartbeatEvents,
  OneHeartbeatEvent,
} from './heartbeat-events.ts'

export const heartbeatEventsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  const tags = ['heartbeats']

  app.get(
    '/v1/checks/heartbeats/:checkId/events',
    {
      schema: {
        tags,
        summary: 'List the events of a heartbeat',
        description: 'The latest pings and misses (newest first, at most 10), with success ratios.',
        params: HeartbeatIdParams,
        querystring: EventsQuery,
        response: { 200: HeartbeatEvents },
      },
    },
    async (request) => heartbeatEvents(ctx, authOf(request).accountId, request.params.checkId, request.query),
  )

  app.get(
    '/v1/checks/heartbeats/:checkId/events/:id',
    {
      schema: {
        tags,
        summary: 'Retrieve an event of a heartbeat',
        params: HeartbeatEventParams,
        response: { 200: OneHeartbeatEvent },
      },
    },
    async (request) =>
      heartbeatEvent(ctx, authOf(request).accountId, request.params.checkId, request.params.id),
  )

  app.get(
    '/v1/checks/heartbeats/:checkId/availability',
    {
      schema: {
        tags,
        summary: 'Get the availability of a heartbeat',
        description:
          'Success ratio (percent) of the window (default: the last 24 hours) and of the one before.',
        params: HeartbeatIdParams,
        querystring: AvailabilityQuery,
        response: { 200: Availability },
      },
    },
    async (request) =>
      heartbeatAvailability(ctx, authOf(request).accountId, request.params.checkId, request.query),
  )
}
