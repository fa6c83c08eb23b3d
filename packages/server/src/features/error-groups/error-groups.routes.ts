import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  CheckIdParams,
  ErrorGroup,
  ErrorGroupParams,
  ErrorGroupPatch,
  ListErrorGroupsQuery,
} from './error-groups.schemas.ts'
import * as errorGroups from './error-groups.service.ts'

export const errorGroupsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  listRoutes(app, ctx)
  groupRoutes(app, ctx)
}

const TAGS = ['error-groups']

/** The groups of a check, and of the account. */
function listRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/error-groups/checks/:checkId',
    {
      schema: {
        tags: TAGS,
        summary: 'List the error groups of a check',
        description:
          "The check's failing final results grouped by normalized error, most recently seen first.",
        params: CheckIdParams,
        querystring: ListErrorGroupsQuery,
        response: { 200: Type.Array(ErrorGroup) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await errorGroups.listErrorGroups(
        ctx,
        authOf(request).accountId,
        request.params.checkId,
        { archived: request.query.archived },
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )

  app.get(
    '/v1/error-groups',
    {
      schema: {
        tags: TAGS,
        summary: 'List the error groups of every check',
        description: 'Most recently seen first.',
        querystring: ListErrorGroupsQuery,
        response: { 200: Type.Array(ErrorGroup) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const filter = { archived: request.query.archived }
      const { items, total } = await errorGroups.listAccountErrorGroups(
        ctx,
        authOf(request).accountId,
        filter,
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )
}

/** One group: archive or reopen, read. */
function groupRoutes(app: RouteApp, ctx: ServiceContext) {
  app.patch(
    '/v1/error-groups/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Archive or reopen an error group',
        description:
          '`archivedUntilNextEvent: true` archives it until its error is seen again, `false` reopens it.',
        params: ErrorGroupParams,
        body: ErrorGroupPatch,
        response: { 200: ErrorGroup },
      },
    },
    async (request) =>
      errorGroups.patchErrorGroup(ctx, authOf(request).accountId, request.params.id, request.body),
  )

  app.get(
    '/v1/error-groups/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve one error group',
        params: ErrorGroupParams,
        response: { 200: ErrorGroup },
      },
    },
    async (request) => errorGroups.getErrorGroup(ctx, authOf(request).accountId, request.params.id),
  )
}
