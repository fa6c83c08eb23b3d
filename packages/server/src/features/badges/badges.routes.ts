import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { authenticate } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { enforceRateLimits } from '../../rate-limit/rate-limit.ts'
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
          "No key needed: the group's id with `accountId` (its account's UUID) addresses it, or, as the " +
          "hosted API's clients call it, with an API key (and account header) of the group's account. " +
          'Neither, or another account: a 404.',
        params: GroupBadgeParams,
        querystring: GroupBadgeQuery,
        response: { 200: BadgeResponse },
      },
    },
    async (request, reply) => {
      const accountId = await groupAccountOf(ctx, request, reply)
      return send(reply, await badges.groupBadge(ctx, request.params.groupId, accountId, request.query))
    },
  )
}

/**
 * The account whose group a badge shows: `accountId` in the query (an image in a README), else the
 * caller's key and account header, as the hosted product's API clients call it. Neither: none (404).
 */
async function groupAccountOf(
  ctx: ServiceContext,
  request: FastifyRequest<{ Querystring: GroupBadgeQuery }>,
  reply: FastifyReply,
): Promise<string | undefined> {
  if (request.query.accountId) return request.query.accountId
  if (request.headers.authorization === undefined) return undefined
  const auth = await authenticate(ctx, request, (key) => enforceRateLimits(ctx, key, request, reply))
  return auth.accountId
}
