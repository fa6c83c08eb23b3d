import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { CursorQuery, cursorOf, cursorPageOf, NextId } from '../../http/cursor-pages.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  HostedCreateIncidentBody,
  HostedIncident,
  HostedIncidentBody,
  HostedIncidentParams,
  HostedIncidentUpdateParams,
  HostedUpdateBody,
  IncidentUpdate,
} from './hosted-incidents.schemas.ts'
import * as hosted from './hosted-incidents.service.ts'

/**
 * The hosted API's `/v1/status-pages/incidents*`: the incidents of `/v3/status-pages/{id}/incidents`,
 * named by id alone. Registered as static paths, they are never taken for `/v1/status-pages/{id}`.
 */
export const hostedIncidentsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  incidentListRoutes(app, ctx)
  incidentRoutes(app, ctx)
  updateListRoutes(app, ctx)
  updateRoutes(app, ctx)
}

const tags = ['incidents']
const base = '/v1/status-pages/incidents'

/** Every status page's incidents: list and create. */
function incidentListRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List the incidents of every status page (hosted form)',
        description: 'Most recently changed first, paged by cursor: send `nextId` back for the next page.',
        querystring: StrictObject(CursorQuery),
        response: {
          200: Type.Object({ length: Type.Integer(), entries: Type.Array(HostedIncident), nextId: NextId }),
        },
      },
    },
    async (request) => {
      const page = cursorPageOf(request.query)
      const { items, total } = await hosted.listHostedIncidents(ctx, authOf(request).accountId, page)
      return { ...cursorOf(page, items, total), entries: items }
    },
  )

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Create an incident (hosted form)',
        description:
          'Posted on the oldest status page that shows every listed service (or the page `statusPageId` ' +
          'names); 400 when none does.',
        body: HostedCreateIncidentBody,
        response: { 201: HostedIncident },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await hosted.createHostedIncident(ctx, authOf(request).accountId, request.body)),
  )
}

/** One incident: read, update, delete. */
function incidentRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    `${base}/:incidentId`,
    {
      schema: {
        tags,
        summary: 'Retrieve an incident (hosted form)',
        params: HostedIncidentParams,
        response: { 200: HostedIncident },
      },
    },
    async (request) => hosted.getHostedIncident(ctx, authOf(request).accountId, request.params.incidentId),
  )

  app.put(
    `${base}/:incidentId`,
    {
      schema: {
        tags,
        summary: 'Update an incident (hosted form)',
        description:
          'Sets the name, severity and impacted services: a service impacted already keeps its status, a ' +
          'new one takes the severity’s, one left out is OPERATIONAL again.',
        params: HostedIncidentParams,
        body: HostedIncidentBody,
        response: { 200: HostedIncident },
      },
    },
    async (request) =>
      hosted.updateHostedIncident(ctx, authOf(request).accountId, request.params.incidentId, request.body),
  )

  app.delete(
    `${base}/:incidentId`,
    {
      schema: {
        tags,
        summary: 'Delete an incident (hosted form)',
        params: HostedIncidentParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await hosted.deleteHostedIncident(ctx, authOf(request).accountId, request.params.incidentId)
      return reply.status(204).send(null)
    },
  )
}

/** An incident's updates: list and post. */
function updateListRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    `${base}/:incidentId/incident-updates`,
    {
      schema: {
        tags,
        summary: 'List the updates of an incident (hosted form)',
        description: 'Oldest first.',
        params: HostedIncidentParams,
        response: { 200: Type.Array(IncidentUpdate) },
      },
    },
    async (request) => hosted.listHostedUpdates(ctx, authOf(request).accountId, request.params.incidentId),
  )

  app.post(
    `${base}/:incidentId/incident-updates`,
    {
      schema: {
        tags,
        summary: 'Post an incident update (hosted form)',
        description: 'As `POST /v1/incidents/{incidentId}/updates`, answering 200 as the hosted API does.',
        params: HostedIncidentParams,
        body: HostedUpdateBody,
        response: { 200: IncidentUpdate },
      },
    },
    async (request) =>
      hosted.addHostedUpdate(ctx, authOf(request).accountId, request.params.incidentId, request.body),
  )
}

/** One update: read, edit, delete. */
function updateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    `${base}/:incidentId/incident-updates/:incidentUpdateId`,
    {
      schema: {
        tags,
        summary: 'Retrieve an incident update (hosted form)',
        params: HostedIncidentUpdateParams,
        response: { 200: IncidentUpdate },
      },
    },
    async (request) => {
      const { incidentId, incidentUpdateId } = request.params
      return hosted.getHostedUpdate(ctx, authOf(request).accountId, incidentId, incidentUpdateId)
    },
  )

  app.put(
    `${base}/:incidentId/incident-updates/:incidentUpdateId`,
    {
      schema: {
        tags,
        summary: 'Edit an incident update (hosted form)',
        description: 'A status, date or notifySubscribers left out stays as it was.',
        params: HostedIncidentUpdateParams,
        body: HostedUpdateBody,
        response: { 200: IncidentUpdate },
      },
    },
    async (request) => {
      const { incidentId, incidentUpdateId } = request.params
      return hosted.editHostedUpdate(
        ctx,
        authOf(request).accountId,
        incidentId,
        incidentUpdateId,
        request.body,
      )
    },
  )

  app.delete(
    `${base}/:incidentId/incident-updates/:incidentUpdateId`,
    {
      schema: {
        tags,
        summary: 'Delete an incident update (hosted form)',
        description:
          'Its last update too, as the hosted API allows: the incident keeps the status its updates last gave it.',
        params: HostedIncidentUpdateParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      const { incidentId, incidentUpdateId } = request.params
      await hosted.deleteHostedUpdate(ctx, authOf(request).accountId, incidentId, incidentUpdateId)
      return reply.status(204).send(null)
    },
  )
}
