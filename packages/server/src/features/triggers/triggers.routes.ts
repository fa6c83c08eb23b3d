import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { authenticate, authOf } from '../../auth/authenticate.ts'
import { assertNotThrottled, recordFailedAuth } from '../../auth/failed-auth-throttle.ts'
import type { ServiceContext } from '../../context.ts'
import { HttpError } from '../../http/errors.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { enforceAddressRateLimit, enforceRateLimits } from '../../rate-limit/rate-limit.ts'
import { TriggerCheckSessionResponse } from '../check-sessions/check-sessions.schemas.ts'
import {
  CheckGroupTrigger,
  CheckTrigger,
  CheckTriggerParams,
  GroupTriggerParams,
  RunTriggerQuery,
} from './triggers.schemas.ts'
import * as triggers from './triggers.service.ts'

/** Runs per minute and client address through trigger URLs called with a token. */
const TOKEN_RUNS_PER_MINUTE = 60

const tags = ['triggers']

/** What a check's trigger and a group's trigger differ in: their path, params and answer. */
const TRIGGER_KINDS = [
  {
    path: '/v1/triggers/checks/:checkId',
    what: 'check',
    params: CheckTriggerParams,
    schema: CheckTrigger,
    target: (params: Record<string, unknown>) => ({ checkId: params.checkId as string }),
  },
  {
    path: '/v1/triggers/check-groups/:groupId',
    what: 'check group',
    params: GroupTriggerParams,
    schema: CheckGroupTrigger,
    target: (params: Record<string, unknown>) => ({ groupId: params.groupId as number }),
  },
] as const

type TriggerKind = (typeof TRIGGER_KINDS)[number]

export const triggersRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  for (const kind of TRIGGER_KINDS) {
    triggerTokenRoutes(app, ctx, kind)
    triggerRunRoutes(app, ctx, kind)
  }
}

/** Creating, reading and deleting the token of a check's or a group's trigger. */
function triggerTokenRoutes(app: RouteApp, ctx: ServiceContext, kind: TriggerKind) {
  app.post(
    kind.path,
    {
      schema: {
        tags,
        summary: `Create the ${kind.what} trigger`,
        description: `A token that runs the ${kind.what} through \`${kind.path}/run?token=\`. One per ${kind.what}: a second call answers the same one.`,
        params: kind.params,
        response: { 201: kind.schema },
      },
    },
    async (request, reply) => {
      const target = kind.target(request.params as Record<string, unknown>)
      return reply.status(201).send(await triggers.createTrigger(ctx, authOf(request).accountId, target))
    },
  )

  app.get(
    kind.path,
    {
      schema: {
        tags,
        summary: `Get the ${kind.what} trigger`,
        params: kind.params,
        response: { 200: kind.schema, 404: ErrorResponse(`No such ${kind.what}, or it has no trigger`) },
      },
    },
    async (request) =>
      triggers.getTrigger(
        ctx,
        authOf(request).accountId,
        kind.target(request.params as Record<string, unknown>),
      ),
  )

  app.delete(
    kind.path,
    {
      schema: {
        tags,
        summary: `Delete the ${kind.what} trigger`,
        description: 'Its URL stops working. Idempotent.',
        params: kind.params,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      const target = kind.target(request.params as Record<string, unknown>)
      await triggers.deleteTrigger(ctx, authOf(request).accountId, target)
      return reply.status(204).send(null)
    },
  )
}

/** Running a check or group through its trigger URL, by token or API key. */
function triggerRunRoutes(app: RouteApp, ctx: ServiceContext, kind: TriggerKind) {
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: `${kind.path}/run`,
      config: { rateLimit: { group: 'trigger', max: 60 } },
      schema: {
        tags,
        summary: `Run the ${kind.what} through its trigger URL (${method})`,
        description:
          `With \`?token=\` (no API key) or an API key: runs the ${kind.what}'s checks once now in each of their ` +
          'locations, as check sessions (201); follow them with `/v1/check-sessions/{id}/completion` and a key. ' +
          'A wrong token is a 401 that counts toward the failed-attempt throttle of the address.',
        params: kind.params,
        querystring: RunTriggerQuery,
        response: { 201: TriggerCheckSessionResponse, 401: ErrorResponse('Wrong token or key') },
      },
      handler: async (request, reply) => {
        const target = kind.target(request.params as Record<string, unknown>)
        const accountId = await callerAccount(ctx, request, reply, target)
        return reply.status(201).send(await triggers.runTrigger(ctx, accountId, target))
      },
    })
  }
}

/** The account of the trigger token (`?token=`), or of the API key when there is none. */
async function callerAccount(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  target: triggers.TriggerOf,
): Promise<string> {
  const { token } = request.query as { token?: string }
  if (token === undefined) {
    const auth = await authenticate(ctx, request, (key) => enforceRateLimits(ctx, key, request, reply))
    return auth.accountId
  }
  await assertNotThrottled(ctx, 'api-key', request.ip)
  try {
    const accountId = await triggers.accountOfToken(ctx, target, token)
    await enforceAddressRateLimit(ctx, 'trigger-url', request.ip, {
      max: TOKEN_RUNS_PER_MINUTE,
      windowSeconds: 60,
    })
    return accountId
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 401)
      await recordFailedAuth(ctx, 'api-key', request.ip)
    throw error
  }
}
