import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
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

/**
 * The hosted product's v2 check groups. Its v2 groups differ from v1 in overriding nothing a check says
 * itself, which is how every svc group works (effective-check.ts), so both versions share one service.
 */
export const checkGroupsV2Routes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  const tags = ['check-groups']

  app.post(
    '/v2/check-groups',
    {
      schema: {
        tags,
        summary: 'Create a check group (v2)',
        description: 'As POST /v1/check-groups: the group fills in only what its checks leave unsaid.',
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

  app.put(
    '/v2/check-groups/:id',
    {
      schema: {
        tags,
        summary: 'Update a check group (v2)',
        description: 'As PUT /v1/check-groups/{id}: replaces the group’s settings.',
        params: GroupIdParams,
        querystring: UpdateAutoAssignQuery,
        body: CheckGroupBody,
        response: { 200: CheckGroup },
      },
    },
    async (request) => groups.updateGroup(ctx, authOf(request).accountId, request.params.id, request.body),
  )

  app.get(
    '/v2/check-groups/:id/checks',
    {
      schema: {
        tags,
        summary: 'List the checks of a check group (v2)',
        description: 'The checks as saved, without the group’s settings applied.',
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
    '/v2/check-groups/:groupId/checks/:checkId',
    {
      schema: {
        tags,
        summary: 'Retrieve a check of a check group (v2)',
        description:
          'The check as saved, without the group’s settings applied. 404 when it is not in this group.',
        params: GroupCheckParams,
        response: { 200: AnyCheck },
      },
    },
    async (request) => getCheckOfGroup(ctx, authOf(request).accountId, request.params, 'own'),
  )
}
