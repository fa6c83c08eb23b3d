import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import { ListServicesQuery, Service, ServiceBody, ServiceIdParams } from './status-page-services.schemas.ts'
import * as services from './status-page-services.service.ts'

export const statusPageServicesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  const tags = ['status-pages']

  app.get(
    '/v1/status-pages/services',
    {
      schema: {
        tags,
        summary: 'List status page services',
        description: 'Services are the components that status pages show and incidents impact.',
        querystring: ListServicesQuery,
        response: { 200: Type.Array(Service) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await services.listServices(ctx, authOf(request).accountId, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/status-pages/services',
    {
      schema: {
        tags,
        summary: 'Create a status page service',
        body: ServiceBody,
        response: { 201: Service },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.createService(ctx, authOf(request).accountId, request.body)),
  )

  app.get(
    '/v1/status-pages/services/:id',
    {
      schema: {
        tags,
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
        tags,
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
        tags,
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
