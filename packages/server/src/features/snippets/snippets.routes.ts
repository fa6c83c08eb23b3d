import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { ListSnippetsQuery, Snippet, SnippetBody, SnippetIdParams } from './snippets.schemas.ts'
import * as snippets from './snippets.service.ts'

export const snippetsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  snippetListRoutes(app, ctx)
  snippetRoutes(app, ctx)
}

const tags = ['snippets']

/** Snippets listed and made. */
function snippetListRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/snippets',
    {
      schema: {
        tags,
        summary: 'List all snippets',
        description: 'Oldest first. The total is in the `content-range` header.',
        querystring: ListSnippetsQuery,
        response: { 200: Type.Array(Snippet) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await snippets.listSnippets(ctx, authOf(request).accountId, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/snippets',
    { schema: { tags, summary: 'Create a snippet', body: SnippetBody, response: { 201: Snippet } } },
    async (request, reply) =>
      reply.status(201).send(await snippets.createSnippet(ctx, authOf(request).accountId, request.body)),
  )
}

/** One snippet read, replaced or deleted. */
function snippetRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/snippets/:id',
    { schema: { tags, summary: 'Retrieve a snippet', params: SnippetIdParams, response: { 200: Snippet } } },
    async (request) => snippets.getSnippet(ctx, authOf(request).accountId, request.params.id),
  )

  app.put(
    '/v1/snippets/:id',
    {
      schema: {
        tags,
        summary: 'Update a snippet',
        params: SnippetIdParams,
        body: SnippetBody,
        response: { 200: Snippet },
      },
    },
    async (request) =>
      snippets.updateSnippet(ctx, authOf(request).accountId, request.params.id, request.body),
  )

  app.delete(
    '/v1/snippets/:id',
    {
      schema: {
        tags,
        summary: 'Delete a snippet',
        params: SnippetIdParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await snippets.deleteSnippet(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
