import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Nullable, PageQuery, StrictObject, Uuid } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import { StatusPageIdParams } from '../status-pages/status-pages.schemas.ts'
import * as subscribers from './status-page-subscribers.service.ts'

const Subscriber = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    status: Type.Unsafe<'PENDING' | 'CONFIRMED'>({
      type: 'string',
      enum: ['PENDING', 'CONFIRMED'],
      description: 'PENDING until the address opens its confirmation link.',
    }),
    confirmedAt: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'StatusPageSubscriber' },
)

export const statusPageSubscribersRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  const tags = ['status-pages']

  app.get(
    '/v3/status-pages/:statusPageId/subscribers',
    {
      schema: {
        tags,
        summary: 'List the email subscribers of a status page',
        description: 'People subscribe on the public page (POST /status/{url}/subscribe).',
        params: StatusPageIdParams,
        querystring: StrictObject(PageQuery),
        response: { 200: Type.Array(Subscriber) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await subscribers.listSubscribers(
        ctx,
        authOf(request).accountId,
        request.params.statusPageId,
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )

  app.delete(
    '/v3/status-pages/:statusPageId/subscribers/:subscriberId',
    {
      schema: {
        tags,
        summary: 'Remove a subscriber of a status page',
        params: StrictObject({ statusPageId: Uuid(), subscriberId: Uuid() }),
        response: { 204: { type: 'null', description: 'Removed' } },
      },
    },
    async (request, reply) => {
      const { statusPageId, subscriberId } = request.params
      await subscribers.deleteSubscriber(ctx, authOf(request).accountId, statusPageId, subscriberId)
      return reply.status(204).send(null)
    },
  )
}
