import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
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
 * The routes v1 and v2 of the hosted product share. Its v2 groups differ from v1 in overriding nothing
 * a check says itself, which is how every svc group works (effective-check.ts), so both versions have
 * one set of handlers; they differ in their docs and in how a check of a group reads.
 */
const VERSIONS = {
  v1: {
    create: { summary: 'Create a check group' },
    update: {
      summary: 'Update a check group',
      description: 'Replaces the group’s settings; its checks use them from their next run.',
    },
    listChecks: { summary: 'List the checks of a check group' },
    getCheck: {
      summary: 'Retrieve a check of a check group, with the group’s settings applied',
      description:
        'The check as it runs in the group: what it leaves unsaid (locations, frequency, alert settings, ' +
        'runtime, retries) filled in from the group, tags and variables merged, and an API check’s request ' +
        'with the group’s apiCheckDefaults in it. 404 when the check is not in this group.',
    },
    checkView: 'inGroup',
  },
  v2: {
    create: {
      summary: 'Create a check group (v2)',
      description: 'As POST /v1/check-groups: the group fills in only what its checks leave unsaid.',
    },
    update: {
      summary: 'Update a check group (v2)',
      description: 'As PUT /v1/check-groups/{id}: replaces the group’s settings.',
    },
    listChecks: {
      summary: 'List the checks of a check group (v2)',
      description: 'The checks as saved, without the group’s settings applied.',
    },
    getCheck: {
      summary: 'Retrieve a check of a check group (v2)',
      description:
        'The check as saved, without the group’s settings applied. 404 when it is not in this group.',
    },
    checkView: 'own',
  },
} as const

export const versionedGroupRoutes: FastifyPluginAsyncTypebox<{
  ctx: ServiceContext
  version: keyof typeof VERSIONS
}> = async (app, { ctx, version }) => {
  groupWriteRoutes(app, ctx, version)
  groupChecksRoutes(app, ctx, version)
}

const tags = ['check-groups']

type Version = keyof typeof VERSIONS

/** Creating and updating a group. */
function groupWriteRoutes(app: RouteApp, ctx: ServiceContext, version: Version) {
  const docs = VERSIONS[version]
  app.post(
    `/${version}/check-groups`,
    {
      schema: {
        tags,
        ...docs.create,
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
    `/${version}/check-groups/:id`,
    {
      schema: {
        tags,
        ...docs.update,
        params: GroupIdParams,
        querystring: UpdateAutoAssignQuery,
        body: CheckGroupBody,
        response: { 200: CheckGroup },
      },
    },
    async (request) => groups.updateGroup(ctx, authOf(request).accountId, request.params.id, request.body),
  )
}

/** The checks of a group, and one of them as the version shows it. */
function groupChecksRoutes(app: RouteApp, ctx: ServiceContext, version: Version) {
  const docs = VERSIONS[version]
  app.get(
    `/${version}/check-groups/:id/checks`,
    {
      schema: {
        tags,
        ...docs.listChecks,
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
    `/${version}/check-groups/:groupId/checks/:checkId`,
    { schema: { tags, ...docs.getCheck, params: GroupCheckParams, response: { 200: AnyCheck } } },
    async (request) => getCheckOfGroup(ctx, authOf(request).accountId, request.params, docs.checkView),
  )
}
