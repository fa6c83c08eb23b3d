import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { HttpError } from '../../http/errors.ts'
import { openEventStream } from '../../http/event-stream.ts'
import type { RouteApp } from '../../http/route-app.ts'
import * as progress from './session-progress.service.ts'
import { assetsOfResult, getTestSessionResult, openSessionArtifact } from './session-results.ts'
import { testSessionOut, testSessionResultOut } from './session-views.ts'
import {
  ArtifactParams,
  AssetManifest,
  AssetsQuery,
  CancelBody,
  CompletionQuery,
  ListTestSessionsQuery,
  RunTestSessionBody,
  TestSession,
  TestSessionList,
  TestSessionParams,
  TestSessionResult,
  TestSessionResultParams,
  TriggerTestSessionBody,
} from './test-sessions.schemas.ts'
import * as sessions from './test-sessions.service.ts'

export const testSessionsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  runRoutes(app, ctx)
  readRoutes(app, ctx)
  cancelRoute(app, ctx)
  resultRoutes(app, ctx)
  eventRoutes(app, ctx)
}

const TAGS = ['test-sessions']

/** Starting a session: unsaved definitions run once, or saved checks triggered. */
function runRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/test-sessions/run',
    {
      config: { rateLimit: { group: 'trigger', max: 60 } },
      schema: {
        tags: TAGS,
        summary: 'Run unsaved check definitions once',
        description:
          '`svc test`: each of `checkRunJobs` is the body of a check of its `checkType` (as `POST /v1/checks/{type}` ' +
          'takes it, `logicalId` to name it), run once in `runLocations` (or `runLocation`, else its own ' +
          'locations) without being saved. Answers the session (201) at once; follow it with `.../events`, ' +
          '`.../completion` or `GET`. `sequenceIds` maps each logicalId to its result id.',
        body: RunTestSessionBody,
        response: { 201: TestSession, 400: ErrorResponse('A definition or location is invalid') },
      },
    },
    async (request, reply) => {
      const session = await sessions.runUnsaved(ctx, authOf(request).accountId, request.body)
      return reply.status(201).send(session)
    },
  )

  app.post(
    '/v1/test-sessions/trigger',
    {
      config: { rateLimit: { group: 'trigger', max: 60 } },
      schema: {
        tags: TAGS,
        summary: 'Trigger a new test session',
        description:
          'Runs the saved checks `target` names (by id, or by tags: outer list OR, inner AND, `!tag` not; group ' +
          'tags match) once in `runLocation`, with `environmentVariables` over their own (theirs, their group’s and ' +
          'the account’s). Their results are stored as the checks’ results. 404 when no check matches.',
        body: TriggerTestSessionBody,
        response: { 201: TestSession, 404: ErrorResponse('No matching checks were found') },
      },
    },
    async (request, reply) => {
      const session = await sessions.triggerTestSession(ctx, authOf(request).accountId, request.body)
      return reply.status(201).send(session)
    },
  )
}

/** Listing and reading sessions, and waiting for one to complete. */
function readRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/test-sessions',
    {
      schema: {
        tags: TAGS,
        summary: 'List test sessions',
        description: 'Newest first. `from`/`to` are Unix seconds; `statuses` filters.',
        querystring: ListTestSessionsQuery,
        response: { 200: TestSessionList },
      },
    },
    async (request) => progress.listTestSessions(ctx, authOf(request).accountId, request.query),
  )

  app.get(
    '/v1/test-sessions/:testSessionId',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve a test session',
        params: TestSessionParams,
        response: { 200: TestSession },
      },
    },
    async (request) => progress.getTestSession(ctx, authOf(request).accountId, request.params.testSessionId),
  )

  app.get(
    '/v1/test-sessions/:testSessionId/completion',
    {
      schema: {
        tags: TAGS,
        summary: 'Await the completion of a test session',
        description: 'Answers the session once every run ended; 408 if one still runs after maxWaitSeconds.',
        params: TestSessionParams,
        querystring: CompletionQuery,
        response: { 200: TestSession, 408: ErrorResponse('Still running: call again') },
      },
    },
    async (request) => {
      const waitMs = (request.query.maxWaitSeconds ?? 30) * 1000
      const { accountId } = authOf(request)
      const id = request.params.testSessionId
      const { session, runs } = await progress.awaitSession(ctx, accountId, id, 'TEST', waitMs)
      return testSessionOut(ctx, session, runs)
    },
  )
}

function cancelRoute(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/test-sessions/:testSessionId/cancel',
    {
      schema: {
        tags: TAGS,
        summary: 'Cancel a test session',
        description: 'Runs not ended end cancelled; a run in flight finishes but its result is not kept.',
        params: TestSessionParams,
        body: CancelBody,
        response: { 204: { type: 'null', description: 'Cancelled' } },
      },
    },
    async (request, reply) => {
      await progress.cancelSession(ctx, authOf(request).accountId, request.params.testSessionId, 'TEST')
      return reply.status(204).send(null)
    },
  )
}

/** A session result, its assets and artifacts. */
function resultRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/test-sessions/:testSessionId/results/:testSessionResultId',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve a test session result',
        description:
          'With the whole detail (request, response, assertions, logs, artifact links) of its run.',
        params: TestSessionResultParams,
        response: { 200: TestSessionResult },
      },
    },
    async (request) => {
      const { testSessionId, testSessionResultId } = request.params
      return getTestSessionResult(ctx, authOf(request).accountId, testSessionId, testSessionResultId)
    },
  )

  app.get(
    '/v1/test-sessions/:testSessionId/results/:testSessionResultId/assets',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve the asset manifest of a test session result',
        params: TestSessionResultParams,
        querystring: AssetsQuery,
        response: { 200: AssetManifest },
      },
    },
    async (request) => {
      const { testSessionId, testSessionResultId } = request.params
      const { accountId } = authOf(request)
      return assetsOfResult(ctx, accountId, testSessionId, testSessionResultId, request.query.type)
    },
  )

  app.get(
    '/v1/test-sessions/:testSessionId/results/:testSessionResultId/artifacts/*',
    {
      schema: {
        tags: TAGS,
        summary: 'Download an artifact of a test session result',
        description: 'Screenshots, Playwright traces and videos of an unsaved definition’s run.',
        params: ArtifactParams,
        response: { 200: Type.Unsafe<unknown>({ type: 'string', format: 'binary' }) },
      },
    },
    async (request, reply) => {
      const { testSessionId, testSessionResultId, '*': path } = request.params
      const { accountId } = authOf(request)
      const artifact = await openSessionArtifact(ctx, accountId, testSessionId, testSessionResultId, path)
      return reply.type(artifact.contentType).send(artifact.stream)
    },
  )
}

function eventRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/test-sessions/:testSessionId/events',
    {
      schema: {
        tags: TAGS,
        summary: 'Follow a test session (Server-Sent Events)',
        description:
          'A `result` frame with each result as its run ends (those ended already first), then `complete` ' +
          'with the session.',
        params: TestSessionParams,
        response: {
          200: Type.String({ description: 'A text/event-stream of `result` frames, then `complete`.' }),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request)
      const id = request.params.testSessionId
      // An unknown session answers its 404 before the stream starts.
      await progress.getTestSession(ctx, accountId, id)
      const stream = openEventStream(request, reply)
      try {
        const ended = await progress.followSession(
          ctx,
          accountId,
          id,
          (run) => stream.send('result', testSessionResultOut(ctx, run)),
          stream.isOpen,
        )
        if (stream.isOpen()) stream.send('complete', testSessionOut(ctx, ended.session, ended.runs))
      } catch (error) {
        // A bug's message stays in the log, as a 500's does.
        if (!(error instanceof HttpError))
          request.log.error({ err: error }, 'following a test session failed')
        if (stream.isOpen())
          stream.send('error', {
            message: error instanceof HttpError ? error.message : 'Internal Server Error',
          })
      } finally {
        stream.end()
      }
    },
  )
}
