import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  CreateVariableBody,
  ListVariablesQuery,
  UpdateVariableBody,
  Variable,
  VariableKeyParams,
} from './variables.schemas.ts'
import * as variables from './variables.service.ts'

export const variablesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  listAndCreateRoutes(app, ctx)
  variableRoutes(app, ctx)
}

const TAGS = ['variables']

function listAndCreateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/variables',
    {
      schema: {
        tags: TAGS,
        summary: 'List all environment variables',
        description: 'Sorted by key. The total is in the `content-range` header.',
        querystring: ListVariablesQuery,
        response: { 200: Type.Array(Variable) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await variables.listVariables(
        ctx,
        authOf(request).accountId,
        request.query,
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/variables',
    {
      schema: {
        tags: TAGS,
        summary: 'Create an environment variable',
        body: CreateVariableBody,
        response: { 201: Variable, 409: ErrorResponse('Conflict: a variable with this key exists') },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await variables.createVariable(ctx, authOf(request).accountId, request.body)),
  )
}

/** One variable: read, replace, delete. */
function variableRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/variables/:key',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve an environment variable',
        params: VariableKeyParams,
        response: { 200: Variable },
      },
    },
    async (request) => variables.getVariable(ctx, authOf(request).accountId, request.params.key),
  )

  app.put(
    '/v1/variables/:key',
    {
      schema: {
        tags: TAGS,
        summary: 'Update an environment variable',
        description: 'The key comes from the path and cannot be changed.',
        params: VariableKeyParams,
        body: UpdateVariableBody,
        response: { 200: Variable },
      },
    },
    async (request) =>
      variables.updateVariable(ctx, authOf(request).accountId, request.params.key, request.body),
  )

  app.delete(
    '/v1/variables/:key',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete an environment variable',
        params: VariableKeyParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await variables.deleteVariable(ctx, authOf(request).accountId, request.params.key)
      return reply.status(204).send(null)
    },
  )
}
