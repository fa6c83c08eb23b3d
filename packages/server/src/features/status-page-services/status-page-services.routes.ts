import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse, StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { CursorQuery, cursorOf, cursorPageOf, NextId } from '../../http/cursor-pages.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { Service, ServiceBody, ServiceIdParams } from './status-page-services.schemas.ts'
import * as services from './status-page-services.service.ts'

export const statusPageServicesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  listAndCreateRoutes(app, ctx)
  serviceRoutes(app, ctx)
}

const TAGS = ['status-pages']

function listAndCreateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/status-pages/services',
    {
      schema: {
        tags: TAGS,
        summary: 'List status page services',
        description:
          'Services are the components that status pages show and incidents impact. Paged by cursor: ' +
          'send `nextId` back for the next page; `paginated=false` answers every service in one page.',
        querystring: StrictObject({
          ...CursorQuery,
          paginated: Type.Optional(Type.Boolean({ default: true })),
        }),
        response: {
          200: Type.Object({ length: Type.Integer(), entries: Type.Array(Service), nextId: NextId }),
        },
      },
    },
    async (request) => {
      const accountId = authOf(request).accountId
      if (request.query.paginated === false) {
        const entries = await services.allServices(ctx, accountId)
        return { length: entries.length, entries, nextId: null }
      }
      const page = cursorPageOf(request.query)
      const { items, total } = await services.listServices(ctx, accountId, page)
      return { ...cursorOf(page, items, total), entries: items }
    },
  )

  app.post(
    '/v1/status-pages/services',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a status page service',
        description: 'Answers 200, as the hosted API does.',
        body: ServiceBody,
        response: { 200: Service },
      },
    },
    async (request) => services.createService(ctx, authOf(request).accountId, request.body),
  )
}

/** One service: read, replace, delete. */
function serviceRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/status-pages/services/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve a status page service',
        params: ServiceIdParams,
        response: { 200: Service },
      },
    },
    async (request) => services.getService(ctx, authOf(request).accountId, request.params.id),
  )

  app.put(
    '/v1/status-pages/services/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Update a status page service',
        description: 'Replaces the name, description and linked checks.',
        params: ServiceIdParams,
        body: ServiceBody,
        response: { 200: Service },
      },
    },
    async (request) =>
      services.updateService(ctx, authOf(request).accountId, request.params.id, request.body),
  )

  app.delete(
    '/v1/status-pages/services/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a status page service',
        description:
          'Refused with 409 while a status page shows the service or a check’s triggerIncident names it.',
        params: ServiceIdParams,
        response: {
          204: { type: 'null', description: 'Deleted' },
          409: ErrorResponse(
            'Conflict: a status page shows the service or a check’s triggerIncident names it',
          ),
        },
      },
    },
    async (request, reply) => {
      await services.deleteService(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
