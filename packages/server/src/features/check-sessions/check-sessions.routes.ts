import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  CancelBody,
  CheckSession,
  CheckSessionParams,
  CompletionQuery,
  TriggerCheckSessionBody,
  TriggerCheckSessionResponse,
} from './check-sessions.schemas.ts'
import * as checkSessions from './check-sessions.service.ts'

const tags = ['check-sessions']

export const checkSessionsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  // The hosted API serves the same sessions under /v2 (without cancel): one set of handlers for both.
  for (const version of ['v1', 'v2'] as const) {
    const base = `/${version}/check-sessions`
    const suffix = version === 'v2' ? ' (v2)' : ''
    triggerSessionRoute(app, ctx, base, suffix)
    readSessionRoutes(app, ctx, base, suffix)
  }
  cancelSessionRoute(app, ctx)
}

/** Starting sessions for the checks a target names. */
function triggerSessionRoute(app: RouteApp, ctx: ServiceContext, base: string, suffix: string) {
  app.post(
    `${base}/trigger`,
    {
      config: { rateLimit: { group: 'trigger', max: 60 } },
      schema: {
        tags,
        summary: `Trigger a new check session${suffix}`,
        description:
          'Runs each check `target` names (`checkId`, or `matchTags`: outer list OR, inner AND, `!tag` not; ' +
          'group tags match; deactivated checks too) once in each of its locations, on any node or agent. ' +
          'One session per check; its results are stored as the check’s results. 404 when none matches. ' +
          'svc takes `environmentVariables` too (`svc trigger --env`): the runs see them over the checks’ own ' +
          '(400 for a check in a private location, whose agents run checks with their own).',
        body: TriggerCheckSessionBody,
        response: {
          201: TriggerCheckSessionResponse,
          404: ErrorResponse('No matching checks were found'),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request)
      const sessions = await checkSessions.triggerCheckSessions(
        ctx,
        accountId,
        request.body?.target ?? {},
        'TRIGGER_API',
        request.body?.environmentVariables,
      )
      return reply.status(201).send(sessions)
    },
  )
}

/** A session as it stands, and as it ends. */
function readSessionRoutes(app: RouteApp, ctx: ServiceContext, base: string, suffix: string) {
  app.get(
    `${base}/:checkSessionId`,
    {
      schema: {
        tags,
        summary: `Retrieve a check session${suffix}`,
        description: 'Results are partial until the session completed.',
        params: CheckSessionParams,
        response: { 200: CheckSession },
      },
    },
    async (request) =>
      checkSessions.getCheckSession(ctx, authOf(request).accountId, request.params.checkSessionId),
  )

  app.get(
    `${base}/:checkSessionId/completion`,
    {
      schema: {
        tags,
        summary: `Await the completion of a check session${suffix}`,
        description: 'Answers the session once every run ended; 408 if one still runs after maxWaitSeconds.',
        params: CheckSessionParams,
        querystring: CompletionQuery,
        response: { 200: CheckSession, 408: ErrorResponse('Still running: call again') },
      },
    },
    async (request) => {
      const waitMs = (request.query.maxWaitSeconds ?? 30) * 1000
      return checkSessions.awaitCheckSession(
        ctx,
        authOf(request).accountId,
        request.params.checkSessionId,
        waitMs,
      )
    },
  )
}

/** Ending a session's runs not ended yet (v1 only, as hosted). */
function cancelSessionRoute(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/check-sessions/:checkSessionId/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a check session',
        description: 'Runs not ended end cancelled; a run in flight finishes but its result is not kept.',
        params: CheckSessionParams,
        body: CancelBody,
        response: { 204: { type: 'null', description: 'Cancelled' } },
      },
    },
    async (request, reply) => {
      await checkSessions.cancelCheckSession(ctx, authOf(request).accountId, request.params.checkSessionId)
      return reply.status(204).send(null)
    },
  )
}
