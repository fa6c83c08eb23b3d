import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import { CheckResult } from '../check-results/check-results.schemas.ts'
import { triggerGroup } from '../checks/check-triggers.service.ts'
import { AnyCheck, UpdateAutoAssignQuery } from '../checks/checks.schemas.ts'
import { getCheckOfGroup, listChecks } from '../checks/checks.service.ts'
import {
  CheckGroup,
  CheckGroupBody,
  GroupAutoAssignQuery,
  GroupCheckParams,
  GroupIdParams,
  ListGroupsQuery,
} from './check-groups.schemas.ts'
import * as groups from './check-groups.service.ts'

export const checkGroupsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const tags = ['check-groups']

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
      const { items, total } = await groups.listGroups(ctx, authOf(request).accountId, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/check-groups',
    {
      schema: {
        tags,
        summary: 'Create a check group',
        querystring: GroupAutoAssignQuery,
        body: CheckGroupBody,
        response: { 201: CheckGroup },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await groups.createGroup(ctx, authOf(request).accountId, request.body, request.query)),
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

  app.put(
    '/v1/check-groups/:id',
    {
      schema: {
        tags,
        summary: 'Update a check group',
        description: 'Replaces the group’s settings; its checks use them from their next run.',
        params: GroupIdParams,
        querystring: UpdateAutoAssignQuery,
        body: CheckGroupBody,
        response: { 200: CheckGroup },
      },
    },
    async (request) => groups.updateGroup(ctx, authOf(request).accountId, request.params.id, request.body),
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

  app.get(
    '/v1/check-groups/:id/checks',
    {
      schema: {
        tags,
        summary: 'List the checks of a check group',
        params: GroupIdParams,
        querystring: ListGroupsQuery,
        response: { 200: Type.Array(AnyCheck) },
      },
    },
    async (request, reply) => {
      const accountId = authOf(request).accountId
      await groups.getGroup(ctx, accountId, request.params.id)
      const page = pageOf(request.query)
      const { items, total } = await listChecks(ctx, accountId, { groupId: request.params.id }, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.get(
    '/v1/check-groups/:groupId/checks/:checkId',
    {
      schema: {
        tags,
        summary: 'Retrieve a check of a check group, with the group’s settings applied',
        description:
          'The check as it runs in the group: what it leaves unsaid (locations, frequency, alert settings, ' +
          'runtime, retries) filled in from the group, tags and variables merged, and an API check’s request ' +
          'with the group’s apiCheckDefaults in it. 404 when the check is not in this group.',
        params: GroupCheckParams,
        response: { 200: AnyCheck },
      },
    },
    async (request) => getCheckOfGroup(ctx, authOf(request).accountId, request.params, 'inGroup'),
  )

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
