import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { CheckResult } from '../check-results/check-results.schemas.ts'
import { triggerGroup } from '../checks/check-triggers.service.ts'
import { CheckGroup, GroupIdParams, ListGroupsQuery } from './check-groups.schemas.ts'
import * as groups from './check-groups.service.ts'
import { versionedGroupRoutes } from './check-groups-versioned.routes.ts'

export const checkGroupsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  // Create, update and the checks of a group: shared with v2.
  await app.register(versionedGroupRoutes, { ctx, version: 'v1' })
  groupReadAndDeleteRoutes(app, ctx)
  groupTriggerRoute(app, ctx)
}

const tags = ['check-groups']

/** Listing groups, reading one and deleting one. */
function groupReadAndDeleteRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/check-groups',
    {
      schema: {
        tags,
        summary: 'List check groups',
        querystring: ListGroupsQuery,
        response: { 200: Type.Array(CheckGroup) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { tag, name } = request.query
      const { items, total } = await groups.listGroups(ctx, authOf(request).accountId, page, { tag, name })
      return sendPage(reply, page, items, total)
    },
  )

  app.get(
    '/v1/check-groups/:id',
    {
      schema: {
        tags,
        summary: 'Retrieve a check group',
        params: GroupIdParams,
        response: { 200: CheckGroup },
      },
    },
    async (request) => groups.getGroup(ctx, authOf(request).accountId, request.params.id),
  )

  app.delete(
    '/v1/check-groups/:id',
    {
      schema: {
        tags,
        summary: 'Delete a check group',
        description: 'Refused with 409 while the group holds checks.',
        params: GroupIdParams,
        response: {
          204: { type: 'null', description: 'Deleted' },
          409: ErrorResponse('Conflict: the group holds checks'),
        },
      },
    },
    async (request, reply) => {
      await groups.deleteGroup(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}

/** Running every check of a group now. */
function groupTriggerRoute(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/check-groups/:id/trigger',
    {
      config: { rateLimit: { group: 'trigger', max: 60 } },
      schema: {
        tags,
        summary: 'Run every check of a group now',
        description:
          'Runs each check of the group once, in groupOrder, at most the group’s concurrency at a time, ' +
          'whether or not activated and without retries, as a CI/CD pipeline would; answers the results in ' +
          'that order. They are stored and count like any other result.',
        params: GroupIdParams,
        response: { 200: Type.Array(CheckResult) },
      },
    },
    async (request) => triggerGroup(ctx, authOf(request).accountId, request.params.id),
  )
}
