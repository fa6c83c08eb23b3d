import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { V1StatusPageIdParams } from '../status-pages/status-pages.schemas.ts'
import * as subscriptions from './hosted-subscriptions.service.ts'

const Subscription = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    type: Type.Literal('EMAIL'),
    address: Type.String(),
    status: Type.Unsafe<'PENDING' | 'VERIFIED'>({
      type: 'string',
      enum: ['PENDING', 'VERIFIED'],
      description: 'PENDING until the address opens its confirmation link.',
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time', description: 'When it was verified, else created.' }),
  },
  { title: 'StatusPageSubscription' },
)

const BulkBody = StrictObject({
  subscriptions: Type.Array(
    StrictObject({
      type: Type.Literal('EMAIL'),
      config: Type.String({ minLength: 1, maxLength: 320, description: 'The email address.' }),
    }),
    { minItems: 1, maxItems: 100 },
  ),
  autoVerify: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Verified at once, with no confirmation email (addresses that agreed elsewhere).',
    }),
  ),
})

/** The hosted API's subscriptions of a status page: the subscribers of `/v3/status-pages/{id}/subscribers`. */
export const hostedSubscriptionsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  listRoutes(app, ctx)
  bulkRoutes(app, ctx)
  deleteRoute(app, ctx)
}

const TAGS = ['status-pages']

function listRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/status-pages/:statusPageId/subscriptions',
    {
      schema: {
        tags: TAGS,
        summary: 'List the subscriptions of a status page (hosted form)',
        description: 'Every email subscriber of the page, oldest first.',
        params: V1StatusPageIdParams,
        response: { 200: Type.Array(Subscription) },
      },
    },
    async (request) =>
      subscriptions.listSubscriptions(ctx, authOf(request).accountId, request.params.statusPageId),
  )
}

function bulkRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/status-pages/:statusPageId/subscriptions/bulk',
    {
      schema: {
        tags: TAGS,
        summary: 'Subscribe up to 100 email addresses to a status page',
        description:
          'New addresses are PENDING and get a confirmation email (as the public page’s subscribe sends), ' +
          'or are VERIFIED at once with `autoVerify`. Addresses subscribed already are skipped.',
        params: V1StatusPageIdParams,
        body: BulkBody,
        response: {
          201: Type.Object({
            created: Type.Integer(),
            skipped: Type.Integer(),
            status: Type.Unsafe<'PENDING' | 'VERIFIED'>({ type: 'string', enum: ['PENDING', 'VERIFIED'] }),
          }),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await subscriptions.bulkSubscribe(
            ctx,
            authOf(request).accountId,
            request.params.statusPageId,
            request.body,
          ),
        ),
  )
}

function deleteRoute(app: RouteApp, ctx: ServiceContext) {
  app.delete(
    '/v1/status-pages/:statusPageId/subscriptions/:subscriptionId',
    {
      schema: {
        tags: TAGS,
        summary: 'Remove a subscription of a status page (hosted form)',
        params: StrictObject({
          statusPageId: V1StatusPageIdParams.properties.statusPageId,
          subscriptionId: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: { 204: { type: 'null', description: 'Removed' } },
      },
    },
    async (request, reply) => {
      const { statusPageId, subscriptionId } = request.params
      await subscriptions.deleteSubscription(ctx, authOf(request).accountId, statusPageId, subscriptionId)
      return reply.status(204).send(null)
    },
  )
}
