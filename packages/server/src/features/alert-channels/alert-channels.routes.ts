import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AlertChannelBody } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  AlertChannel,
  AlertChannelSubscriptionOut,
  ChannelIdParams,
  ListChannelsQuery,
  SubscriptionBody,
} from './alert-channels.schemas.ts'
import * as channels from './alert-channels.service.ts'

export const alertChannelsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  listAndCreateRoutes(app, ctx)
  channelRoutes(app, ctx)
  subscriptionRoutes(app, ctx)
}

const TAGS = ['alert-channels']

function listAndCreateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/alert-channels',
    {
      schema: {
        tags: TAGS,
        summary: 'List alert channels',
        querystring: ListChannelsQuery,
        response: { 200: Type.Array(AlertChannel) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await channels.listChannels(ctx, authOf(request).accountId, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/alert-channels',
    {
      schema: {
        tags: TAGS,
        summary: 'Create an alert channel',
        description:
          'Webhook URL, headers, query parameters and template are compiled here: a template that does not ' +
          'compile is 400 with its line and column. A template naming a secret variable is saved with a warning ' +
          '(secrets render empty).',
        body: AlertChannelBody,
        response: { 201: AlertChannel },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await channels.createChannel(ctx, authOf(request).accountId, request.body)),
  )
}

/** One channel: read, replace, delete. */
function channelRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/alert-channels/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve an alert channel',
        params: ChannelIdParams,
        response: { 200: AlertChannel },
      },
    },
    async (request) => channels.getChannel(ctx, authOf(request).accountId, request.params.id),
  )

  app.put(
    '/v1/alert-channels/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Update an alert channel',
        description: 'Replaces type, config and flags. An omitted webhookSecret keeps the stored one.',
        params: ChannelIdParams,
        body: AlertChannelBody,
        response: { 200: AlertChannel },
      },
    },
    async (request) =>
      channels.updateChannel(ctx, authOf(request).accountId, request.params.id, request.body),
  )

  app.delete(
    '/v1/alert-channels/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete an alert channel',
        params: ChannelIdParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await channels.deleteChannel(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}

/** What one channel alerts for: its subscriptions replaced at once. */
function subscriptionRoutes(app: RouteApp, ctx: ServiceContext) {
  app.put(
    '/v1/alert-channels/:id/subscriptions',
    {
      schema: {
        tags: TAGS,
        summary: 'Subscribe a check or a group to an alert channel',
        description:
          'Pass either checkId or groupId, not both. activated: false keeps the subscription, silenced.',
        params: ChannelIdParams,
        body: SubscriptionBody,
        response: { 200: AlertChannelSubscriptionOut },
      },
    },
    async (request) =>
      channels.updateSubscription(ctx, authOf(request).accountId, request.params.id, request.body),
  )
}
