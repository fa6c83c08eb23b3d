import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { CHECK_BODIES, CHECK_PATHS, type CheckType, ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { CheckResult } from '../check-results/check-results.schemas.ts'
import { getCheckAsAsked, searchChecks } from './check-search.ts'
import * as triggers from './check-triggers.service.ts'
import {
  AnyCheck,
  AutoAssignQuery,
  CheckIdParams,
  CheckPatchBody,
  CheckResponse,
  GetCheckQuery,
  ListChecksQuery,
  UpdateAutoAssignQuery,
} from './checks.schemas.ts'
import * as checks from './checks.service.ts'

const tags = ['checks']

/** The top-level fields a request's body sent, before schema defaults filled in the rest. */
type SentFieldsOf = (request: object) => Set<string>

export const checksRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  // The top-level fields the client sent, seen before schema defaults fill in the rest: a check in a
  // group takes the group's value of an inheritable field it leaves out (e.g. frequency).
  const sentFields = new WeakMap<object, Set<string>>()
  app.addHook('preValidation', async (request) => {
    const body = request.body
    if (body && typeof body === 'object') sentFields.set(request, new Set(Object.keys(body)))
  })
  const sentFieldsOf: SentFieldsOf = (request) => sentFields.get(request) ?? new Set<string>()
  checkCollectionRoutes(app, ctx, sentFieldsOf)
  checkItemRoutes(app, ctx, sentFieldsOf)
  checkRunRoutes(app, ctx)
  for (const [segment, checkType] of Object.entries(CHECK_PATHS) as [string, CheckType][]) {
    typedCheckRoutes(app, ctx, sentFieldsOf, segment, checkType)
  }
}

/** Listing checks of every type, and creating one of the type the body's `checkType` names. */
function checkCollectionRoutes(app: RouteApp, ctx: ServiceContext, sentFieldsOf: SentFieldsOf) {
  app.get(
    '/v1/checks',
    {
      schema: {
        tags,
        summary: 'List all checks',
        description:
          'Filters: checkType, tag, groupId, activated, name (substring), and the hosted ones as `GET /v2/checks` ' +
          'takes them: search, apiCheckUrlFilterPattern, status, applyGroupSettings (a check’s tag filter then ' +
          'counts its group’s tags too). Oldest first.',
        querystring: ListChecksQuery,
        response: { 200: Type.Array(AnyCheck) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { checkType, groupId, activated, name } = request.query
      const { search, apiCheckUrlFilterPattern, status, applyGroupSettings } = request.query
      const tags = [...(request.query.tag ?? []), ...(request.query['tag[]'] ?? [])]
      // The hosted filters need each check resolved (status, group settings): svc's own stay in the store.
      if (search || apiCheckUrlFilterPattern || status || applyGroupSettings || tags.length > 1) {
        const hosted = { apiCheckUrlFilterPattern, status, applyGroupSettings, search: search ?? name }
        const query = { ...hosted, checkType, groupId, activated, tag: tags }
        const { items, total } = await searchChecks(ctx, authOf(request).accountId, query, page)
        return sendPage(reply, page, items, total)
      }
      const filter = { checkType, tag: tags[0], groupId, activated, nameContains: name }
      const { items, total } = await checks.listChecks(ctx, authOf(request).accountId, filter, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/checks',
    {
      schema: {
        tags,
        summary: 'Create a check (any type)',
        description:
          "The body's `checkType` picks the type (PLAYWRIGHT is taken for AUTOMATION); the rest is checked " +
          'as the typed POST /v1/checks/{type} checks it.',
        querystring: AutoAssignQuery,
        body: Type.Record(Type.String(), Type.Unknown()),
        response: { 201: AnyCheck },
      },
    },
    async (request, reply) => {
      const created = await checks.createCheckOfSentType(ctx, authOf(request).accountId, request.body, {
        sentFields: sentFieldsOf(request),
        autoAssignAlerts: request.query.autoAssignAlerts,
      })
      return reply.status(201).send(created)
    },
  )
}

/** One check of any type, by id: its stored type decides how an update is checked. */
function checkItemRoutes(app: RouteApp, ctx: ServiceContext, sentFieldsOf: SentFieldsOf) {
  app.get(
    '/v1/checks/:id',
    {
      schema: {
        tags,
        summary: 'Retrieve a check',
        params: CheckIdParams,
        querystring: GetCheckQuery,
        response: { 200: AnyCheck },
      },
    },
    async (request) =>
      request.query.applyGroupSettings
        ? getCheckAsAsked(ctx, authOf(request).accountId, request.params.id, request.query)
        : checks.getCheck(ctx, authOf(request).accountId, request.params.id),
  )

  app.put(
    '/v1/checks/:id',
    {
      schema: {
        tags,
        summary: 'Update a check (any type)',
        description:
          'Merges the given top-level fields onto the check and validates the result as the typed ' +
          "PUT /v1/checks/{type}/{id} would. `checkType`, when given, must be the check's own " +
          '(PLAYWRIGHT is taken for AUTOMATION). Takes effect on the next run.',
        params: CheckIdParams,
        querystring: UpdateAutoAssignQuery,
        body: Type.Record(Type.String(), Type.Unknown()),
        response: { 200: AnyCheck },
      },
    },
    async (request) =>
      checks.updateCheck(ctx, authOf(request).accountId, request.params.id, request.body, {
        mode: 'merge',
        sentFields: sentFieldsOf(request),
      }),
  )

  app.delete(
    '/v1/checks/:id',
    {
      schema: {
        tags,
        summary: 'Delete a check',
        description:
          'Its runs stop at once: it is not run again, a suite (AUTOMATION) run in flight is stopped, and the results of runs in flight are dropped.',
        params: CheckIdParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await checks.deleteCheck(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}

/** Running a check now, and cancelling a suite's runs in progress. */
function checkRunRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/checks/:id/trigger',
    {
      config: { rateLimit: { group: 'trigger', max: 60 } },
      schema: {
        tags,
        summary: 'Run a check now',
        description:
          'Runs one attempt now, whether or not the check is activated and without retries, in its first ' +
          'location, and answers the result. The result is stored and counts like any other. 404 when the ' +
          'check is deleted while it runs or waits for a private location’s agent.',
        params: CheckIdParams,
        response: { 200: CheckResult },
      },
    },
    async (request) => triggers.triggerCheck(ctx, authOf(request).accountId, request.params.id),
  )

  app.post(
    '/v1/checks/:id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel the runs of a Playwright check suite in progress',
        description:
          'Asks every run of an AUTOMATION check in progress to stop, in every location and however it ' +
          'started (schedule, check or group trigger), and ends its runs not started yet: a trigger queued ' +
          'for a private location’s agents, a suite waiting for its turn in a group trigger, a retry waiting ' +
          'out its backoff. A run in flight stops within seconds and stores its result with ' +
          '`isCancelled: true`, keeping the logs, finished tests and artifacts it had; a run not started ' +
          'ends at once, with no tests. A cancelled result is not retried, raises no alert and counts for ' +
          'no check status or analytics. A run a runner claimed but has not started yet is in progress: it ' +
          'ends without starting. 400 for other check types; 404 for an unknown check, or one deleted while ' +
          'the cancel ends its runs; 409 when no run of the check is in progress or waiting.',
        params: CheckIdParams,
        response: {
          204: {
            type: 'null',
            description: 'The runs in progress were asked to stop, the waiting ones ended',
          },
          400: ErrorResponse(
            'Bad Request: the id is not a UUID, or the check is not a Playwright check suite (AUTOMATION), ' +
              'the only checks that can be cancelled',
          ),
          409: ErrorResponse('Conflict: no run of the check is in progress or waiting'),
        },
      },
    },
    async (request, reply) => {
      await triggers.cancelCheckRuns(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}

/** The typed create and update of one check type, at /v1/checks/{segment}. */
function typedCheckRoutes(
  app: RouteApp,
  ctx: ServiceContext,
  sentFieldsOf: SentFieldsOf,
  segment: string,
  checkType: CheckType,
) {
  const label = checkType.toLowerCase().replace('_', '-')
  app.post(
    `/v1/checks/${segment}`,
    {
      schema: {
        tags,
        summary: `Create a ${label} check`,
        querystring: AutoAssignQuery,
        body: CHECK_BODIES[checkType],
        response: { 201: CheckResponse(checkType) },
      },
    },
    async (request, reply) => {
      const created = await checks.createCheck(ctx, authOf(request).accountId, checkType, request.body, {
        sentFields: sentFieldsOf(request),
        autoAssignAlerts: request.query.autoAssignAlerts,
      })
      return reply.status(201).send(created)
    },
  )
  app.put(
    `/v1/checks/${segment}/:id`,
    {
      schema: {
        tags,
        summary: `Update a ${label} check`,
        description:
          'Merges the given top-level fields onto the check (the others keep their values) and ' +
          'validates the result whole. Takes effect on the next run.',
        params: CheckIdParams,
        querystring: UpdateAutoAssignQuery,
        body: CheckPatchBody(CHECK_BODIES[checkType]),
        response: { 200: CheckResponse(checkType) },
      },
    },
    async (request) =>
      checks.updateCheck(ctx, authOf(request).accountId, request.params.id, request.body, {
        mode: 'merge',
        checkType,
        sentFields: sentFieldsOf(request),
      }),
  )
}
