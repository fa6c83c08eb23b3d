import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { StatusPageIdParams } from '../status-pages/status-pages.schemas.ts'
import {
  CreateIncidentBody,
  EditIncidentUpdateBody,
  Incident,
  IncidentParams,
  IncidentUpdate,
  IncidentUpdateBody,
  IncidentUpdateParams,
  ListIncidentsQuery,
  PageIncidentParams,
  UpdateIncidentBody,
} from './incidents.schemas.ts'
import * as incidents from './incidents.service.ts'

const tags = ['incidents']

export const incidentsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  pageIncidentRoutes(app, ctx)
  incidentRoutes(app, ctx)
  updateRoutes(app, ctx)
  deletionRoutes(app, ctx)
}

/** A status page's incidents: list and create. */
function pageIncidentRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v3/status-pages/:statusPageId/incidents',
    {
      schema: {
        tags,
        summary: 'List the incidents of a status page',
        description: 'Most recently changed first.',
        params: StatusPageIdParams,
        querystring: ListIncidentsQuery,
        response: { 200: Type.Array(Incident) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await incidents.listIncidents(
        ctx,
        authOf(request).accountId,
        request.params.statusPageId,
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v3/status-pages/:statusPageId/incidents',
    {
      schema: {
        tags,
        summary: 'Create an incident',
        description:
          'With at least one update. `componentImpacts` lists services shown on the page and their status.',
        params: StatusPageIdParams,
        body: CreateIncidentBody,
        response: { 201: Incident },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await incidents.createIncident(
            ctx,
            authOf(request).accountId,
            request.params.statusPageId,
            request.body,
          ),
        ),
  )
}

/** One incident of a status page: read, rename and reconcile. */
function incidentRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v3/status-pages/:statusPageId/incidents/:incidentId',
    {
      schema: {
        tags,
        summary: 'Retrieve an incident',
        params: PageIncidentParams,
        response: { 200: Incident },
      },
    },
    async (request) =>
      incidents.getIncident(
        ctx,
        authOf(request).accountId,
        request.params.statusPageId,
        request.params.incidentId,
      ),
  )

  app.put(
    '/v3/status-pages/:statusPageId/incidents/:incidentId',
    {
      schema: {
        tags,
        summary: 'Rename an incident and reconcile its components',
        description:
          'Listed components take the listed status; components left out become OPERATIONAL (their open ' +
          'impact ends now); a component that degrades again gets a new impact. Without ' +
          '`componentImpacts` only the name changes. Progress is posted as incident updates.',
        params: PageIncidentParams,
        body: UpdateIncidentBody,
        response: { 200: Incident },
      },
    },
    async (request) =>
      incidents.updateIncident(
        ctx,
        authOf(request).accountId,
        request.params.statusPageId,
        request.params.incidentId,
        request.body,
      ),
  )
}

/** An incident's updates, a status page's or a dashboard's: post and edit. */
function updateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/incidents/:incidentId/updates',
    {
      schema: {
        tags,
        summary: 'Post an incident update',
        description:
          'The latest update by publicIncidentUpdateDate sets lastUpdateStatus: an unresolved update after ' +
          'the resolving one reopens the incident.',
        params: IncidentParams,
        body: IncidentUpdateBody,
        response: { 201: IncidentUpdate },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await incidents.addIncidentUpdate(
            ctx,
            authOf(request).accountId,
            request.params.incidentId,
            request.body,
          ),
        ),
  )

  app.put(
    '/v1/incidents/:incidentId/updates/:id',
    {
      schema: {
        tags,
        summary: 'Edit an incident update',
        description: 'The incident’s status, start and duration are recomputed.',
        params: IncidentUpdateParams,
        body: EditIncidentUpdateBody,
        response: { 200: IncidentUpdate },
      },
    },
    async (request) =>
      incidents.replaceIncidentUpdate(
        ctx,
        authOf(request).accountId,
        request.params.incidentId,
        request.params.id,
        request.body,
      ),
  )
}

/** Deleting an incident, or one of its updates. */
function deletionRoutes(app: RouteApp, ctx: ServiceContext) {
  app.delete(
    '/v3/status-pages/:statusPageId/incidents/:incidentId',
    {
      schema: {
        tags,
        summary: 'Delete an incident',
        params: PageIncidentParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      const { statusPageId, incidentId } = request.params
      await incidents.deleteIncident(ctx, authOf(request).accountId, statusPageId, incidentId)
      return reply.status(204).send(null)
    },
  )

  app.delete(
    '/v1/incidents/:incidentId/updates/:id',
    {
      schema: {
        tags,
        summary: 'Delete an incident update',
        description:
          'The incident’s status, start and duration are recomputed. Its last update can be deleted too, ' +
          'as the hosted API allows: the incident then keeps the status and times its updates last gave it.',
        params: IncidentUpdateParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      const { incidentId, id } = request.params
      await incidents.deleteIncidentUpdate(ctx, authOf(request).accountId, incidentId, id)
      return reply.status(204).send(null)
    },
  )
}
