import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ServiceContext } from '../../context.ts'
import {
  BadgeResponse,
  CheckBadgeParams,
  CheckBadgeQuery,
  GroupBadgeParams,
  GroupBadgeQuery,
} from './badges.schemas.ts'
import * as badges from './badges.service.ts'

/** Open routes (no key): a badge is an image in a README. */
export const badgesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const tags = ['badges']
  const send = (reply: { type(t: string): unknown; header(k: string, v: string): unknown }, svg: string) => {
    reply.header('cache-control', 'public, max-age=60')
    reply.type('image/svg+xml; charset=utf-8')
    return svg
  }

  app.get(
    '/v1/badges/checks/:checkId',
    {
      schema: {
        tags,
        summary: 'Get a status badge of a check',
        description: "No key: the check's id (a random UUID) addresses it.",
        params: CheckBadgeParams,
        querystring: CheckBadgeQuery,
        response: { 200: BadgeResponse },
      },
    },
    async (request, reply) =>
      send(reply, await badges.checkBadge(ctx, request.params.checkId, request.query)),
  )

  app.get(
    '/v1/badges/groups/:groupId',
    {
      schema: {
        tags,
        summary: 'Get a status badge of a check group',
        description:
          "No key: the group's id with `accountId` (its account's UUID) addresses it; without the " +
          'account, or with another one, it is a 404.',
        params: GroupBadgeParams,
        querystring: GroupBadgeQuery,
        response: { 200: BadgeResponse },
      },
    },
    async (request, reply) =>
      send(reply, await badges.groupBadge(ctx, request.params.groupId, request.query)),
  )
}
