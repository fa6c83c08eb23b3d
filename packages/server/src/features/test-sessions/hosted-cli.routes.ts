import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { errorBody, HttpError } from '../../http/errors.ts'
import type { RouteApp } from '../../http/route-app.ts'
import * as progress from './session-progress.service.ts'
import { assetsOfResult, getTestSessionResult } from './session-results.ts'
import {
  HostedTriggerAnswer,
  HostedTriggerBody,
  TestSessionParams,
  TestSessionResultParams,
} from './test-sessions.schemas.ts'
import * as sessions from './test-sessions.service.ts'

/**
 * What the hosted product's CLI calls around `checkly test` and `checkly trigger`, besides
 * `POST /v1/test-sessions/run`: its trigger, and the links it prints. Results reach it live over MQTT
 * (`live-results/`).
 */
export const hostedCliSessionRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  hostedTriggerRoute(app, ctx)
  linkRoutes(app, ctx)
}

const TAGS = ['test-sessions']

/** `checkly trigger`: the saved checks it names run once; 403 with the CLI's code when none matches. */
function hostedTriggerRoute(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/next/test-sessions/trigger',
    {
      config: { rateLimit: { group: 'trigger', max: 60 } },
      schema: {
        tags: TAGS,
        summary: 'Trigger saved checks for the hosted CLI',
        description:
          'What `checkly trigger` calls: the checks `checkId` and `targetTags` name (tags: outer list OR, inner ' +
          'AND) run once in `runLocation`, in a test session whose id is `checkRunSuiteId`, with ' +
          '`environmentVariables` (`--env`) over their own. `sequenceIds` maps ' +
          'each check id to its result id. 403 with `errorCode: ERR_NO_MATCHING_CHECKS` when none matches.',
        body: HostedTriggerBody,
        response: {
          201: HostedTriggerAnswer,
          400: ErrorResponse('A location or variable is invalid'),
          403: Type.Object({
            statusCode: Type.Integer(),
            error: Type.String(),
            message: Type.String(),
            errorCode: Type.Optional(Type.String()),
          }),
        },
      },
    },
    async (request, reply) => {
      try {
        const answer = await sessions.triggerForHostedCli(ctx, authOf(request).accountId, request.body)
        return reply.status(201).send(answer)
      } catch (error) {
        if (!(error instanceof HttpError && error.statusCode === 404)) throw error
        // The hosted CLI tells "no matching checks" by this code, not by a 404.
        const body = { ...errorBody(403, error.message), errorCode: 'ERR_NO_MATCHING_CHECKS' }
        return reply.status(403).send(body)
      }
    },
  )
}

/** The links the CLI prints: the session, and a failed result with its traces and videos. */
function linkRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/next/test-sessions/:testSessionId/link',
    {
      schema: {
        tags: TAGS,
        summary: 'The link of a test session',
        params: TestSessionParams,
        response: { 200: Type.Object({ link: Type.String() }) },
      },
    },
    async (request) => {
      const session = await progress.getTestSession(
        ctx,
        authOf(request).accountId,
        request.params.testSessionId,
      )
      // The dashboard's page of the session, which people open from the CLI's output.
      return { link: `${ctx.publicUrl}/test-sessions/${session.testSessionId}` }
    },
  )

  app.get(
    '/next/test-sessions/:testSessionId/results/:testSessionResultId/links',
    {
      schema: {
        tags: TAGS,
        summary: 'The links of a test session result',
        params: TestSessionResultParams,
        response: {
          200: Type.Object({
            testResultLink: Type.String(),
            testTraceLinks: Type.Array(Type.String()),
            videoLinks: Type.Array(Type.String()),
            screenshotLinks: Type.Array(Type.String()),
          }),
        },
      },
    },
    async (request) => {
      const { testSessionId, testSessionResultId } = request.params
      const { accountId } = authOf(request)
      const result = await getTestSessionResult(ctx, accountId, testSessionId, testSessionResultId)
      const { assets } = await assetsOfResult(ctx, accountId, testSessionId, testSessionResultId)
      const urls = (type: string) => assets.filter((asset) => asset.type === type).map((asset) => asset.url)
      return {
        testResultLink: `${ctx.publicUrl}/test-sessions/${testSessionId}/results/${result.testSessionResultId}`,
        testTraceLinks: urls('trace'),
        videoLinks: urls('video'),
        screenshotLinks: urls('screenshot'),
      }
    },
  )
}
