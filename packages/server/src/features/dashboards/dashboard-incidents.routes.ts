import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  DashboardIncident,
  DashboardIncidentCreateBody,
  DashboardIncidentEditBody,
  DashboardIncidentParams,
  EditDashboardIncidentQuery,
  EditedDashboardIncident,
  GetDashboardIncidentQuery,
  ListDashboardIncidentsQuery,
} from './dashboard-incidents.schemas.ts'
import * as incidents from './dashboard-incidents.service.ts'

/** The hosted API's `/v1/incidents/{id}`: incidents of dashboards (status pages' are elsewhere). */
export const dashboardIncidentsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  incidentListRoute(app, ctx)
  incidentCreateRoute(app, ctx)
  incidentItemRoutes(app, ctx)
  incidentDeleteRoute(app, ctx)
}

const tags = ['dashboards']

/** Listing dashboard incidents: an svc addition, so that a dashboard's page can show them. */
function incidentListRoute(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/incidents',
    {
      schema: {
        tags,
        summary: 'List dashboard incidents',
        description:
          'An svc addition (the hosted API has no list). The incidents of the dashboard with the numeric ' +
          'id `dashboardId` (left out: every dashboard’s), newest first, each with all its updates, oldest ' +
          'first. The total is in the `content-range` header.',
        querystring: ListDashboardIncidentsQuery,
        response: { 200: Type.Array(DashboardIncident) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await incidents.listDashboardIncidents(
        ctx,
        authOf(request).accountId,
        request.query.dashboardId,
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )
}

/** Creating a dashboard incident. */
function incidentCreateRoute(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/incidents',
    {
      schema: {
        tags,
        summary: 'Create a dashboard incident',
        description:
          'On the dashboard with the numeric id `dashboardId`; shown on its page when it has enableIncidents. ' +
          'Answered with 200, as the hosted API does.',
        body: DashboardIncidentCreateBody,
        response: { 200: DashboardIncident },
      },
    },
    async (request) => incidents.createDashboardIncident(ctx, authOf(request).accountId, request.body),
  )
}

/** One dashboard incident, by id: read and edit. */
function incidentItemRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/incidents/:id',
    {
      schema: {
        tags,
        summary: 'Retrieve a dashboard incident',
        description: 'With its latest update, or all of them (oldest first) with includeAllIncidentUpdates.',
        params: DashboardIncidentParams,
        querystring: GetDashboardIncidentQuery,
        response: { 200: DashboardIncident },
      },
    },
    async (request) =>
      incidents.getDashboardIncident(
        ctx,
        authOf(request).accountId,
        request.params.id,
        request.query.includeAllIncidentUpdates ?? false,
      ),
  )

  app.put(
    '/v1/incidents/:id',
    {
      schema: {
        tags,
        summary: 'Update a dashboard incident',
        description:
          'Sets its name, impact and (when sent) startedAt and stoppedAt; updates are posted with ' +
          '`POST /v1/incidents/{incidentId}/updates`. `probe=true` answers the change without saving it.',
        params: DashboardIncidentParams,
        querystring: EditDashboardIncidentQuery,
        body: DashboardIncidentEditBody,
        response: { 200: EditedDashboardIncident },
      },
    },
    async (request) =>
      incidents.editDashboardIncident(
        ctx,
        authOf(request).accountId,
        request.params.id,
        request.body,
        request.query.probe ?? false,
      ),
  )
}

/** Deleting a dashboard incident. */
function incidentDeleteRoute(app: RouteApp, ctx: ServiceContext) {
  app.delete(
    '/v1/incidents/:id',
    {
      schema: {
        tags,
        summary: 'Delete a dashboard incident',
        params: DashboardIncidentParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await incidents.deleteDashboardIncident(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
