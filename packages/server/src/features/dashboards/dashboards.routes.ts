import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  Dashboard,
  DashboardCreateBody,
  DashboardParams,
  DashboardUpdateBody,
  GetDashboardQuery,
  ListDashboardsQuery,
} from './dashboards.schemas.ts'
import * as dashboards from './dashboards.service.ts'

/** The hosted API's `/v1/dashboards`: paths name a dashboard by its string `dashboardId`. */
export const dashboardsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  dashboardCollectionRoutes(app, ctx)
  dashboardItemRoutes(app, ctx)
}

const tags = ['dashboards']

/** Listing and creating dashboards. */
function dashboardCollectionRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/dashboards',
    {
      schema: {
        tags,
        summary: 'List all dashboards',
        description: 'Oldest first. The total is in the `content-range` header.',
        querystring: ListDashboardsQuery,
        response: { 200: Type.Array(Dashboard) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await dashboards.listDashboards(ctx, authOf(request).accountId, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/dashboards',
    {
      schema: {
        tags,
        summary: 'Create a dashboard',
        description:
          'A public page of the status of the checks its tags select, at /dashboards/{customUrl} and at ' +
          'the root of its customDomain. 409 when another dashboard or status page holds either.',
        body: DashboardCreateBody,
        response: { 201: Dashboard },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await dashboards.createDashboard(ctx, authOf(request).accountId, request.body)),
  )
}

/** One dashboard, by id (or by its customUrl or customDomain when reading). */
function dashboardItemRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/dashboards/:dashboardId',
    {
      schema: {
        tags,
        summary: 'Retrieve a dashboard',
        description: 'With `type`, the path names its customUrl or customDomain instead.',
        params: DashboardParams,
        querystring: GetDashboardQuery,
        response: { 200: Dashboard },
      },
    },
    async (request) => {
      const { accountId } = authOf(request)
      const row = await dashboards.findDashboard(
        ctx,
        accountId,
        request.params.dashboardId,
        request.query.type,
      )
      return dashboards.toDashboard(row)
    },
  )

  app.put(
    '/v1/dashboards/:dashboardId',
    {
      schema: {
        tags,
        summary: 'Update a dashboard',
        description: 'Changes the fields sent; the others keep their values.',
        params: DashboardParams,
        body: DashboardUpdateBody,
        response: { 200: Dashboard },
      },
    },
    async (request) =>
      dashboards.updateDashboard(ctx, authOf(request).accountId, request.params.dashboardId, request.body),
  )

  app.delete(
    '/v1/dashboards/:dashboardId',
    {
      schema: {
        tags,
        summary: 'Delete a dashboard',
        description: 'Its incidents go with it.',
        params: DashboardParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await dashboards.deleteDashboard(ctx, authOf(request).accountId, request.params.dashboardId)
      return reply.status(204).send(null)
    },
  )
}
