import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  ListOccurrencesQuery,
  MaintenanceOccurrence,
  MaintenanceOccurrenceUpdate,
  MoveOccurrenceBody,
  OccurrenceParams,
  OccurrenceUpdateBody,
  OccurrenceUpdateEditBody,
  OccurrenceUpdateParams,
} from './maintenance-occurrences.schemas.ts'
import * as occurrences from './maintenance-occurrences.service.ts'
import { WindowIdParams } from './maintenance-windows.schemas.ts'

const PATH = '/v1/maintenance-windows/:id/maintenances'

/** The occurrences ("maintenances") of a window, and the status updates posted on them. */
export const maintenanceOccurrencesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  occurrenceReadRoutes(app, ctx)
  occurrenceWriteRoutes(app, ctx)
  updateRoutes(app, ctx)
}

const tags = ['maintenance-windows']

/** A window’s occurrences, listed or one read. */
function occurrenceReadRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    PATH,
    {
      schema: {
        tags,
        summary: "List a maintenance window's occurrences",
        description:
          'Oldest first: every occurrence that started, and those starting within a year. Deleted ones are left out.',
        params: WindowIdParams,
        querystring: ListOccurrencesQuery,
        response: { 200: Type.Array(MaintenanceOccurrence) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const account = authOf(request).accountId
      const { items, total } = await occurrences.listOccurrences(ctx, account, request.params.id, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.get(
    `${PATH}/:maintenanceId`,
    {
      schema: {
        tags,
        summary: 'Retrieve one occurrence of a maintenance window',
        params: OccurrenceParams,
        response: { 200: MaintenanceOccurrence },
      },
    },
    async (request) => {
      const { id, maintenanceId } = request.params
      return occurrences.getOccurrence(ctx, authOf(request).accountId, id, maintenanceId)
    },
  )
}

/** One occurrence moved or deleted. */
function occurrenceWriteRoutes(app: RouteApp, ctx: ServiceContext) {
  app.patch(
    `${PATH}/:maintenanceId`,
    {
      schema: {
        tags,
        summary: 'Move one occurrence of a maintenance window',
        description: 'It then silences alerts over its new span; the window keeps its schedule.',
        params: OccurrenceParams,
        body: MoveOccurrenceBody,
        response: { 200: MaintenanceOccurrence },
      },
    },
    async (request) => {
      const { id, maintenanceId } = request.params
      return occurrences.moveOccurrence(ctx, authOf(request).accountId, id, maintenanceId, request.body)
    },
  )

  app.delete(
    `${PATH}/:maintenanceId`,
    {
      schema: {
        tags,
        summary: 'Delete one occurrence of a maintenance window',
        description: 'It silences nothing and leaves the list; the other occurrences stay.',
        params: OccurrenceParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      const { id, maintenanceId } = request.params
      await occurrences.deleteOccurrence(ctx, authOf(request).accountId, id, maintenanceId)
      return reply.status(204).send(null)
    },
  )
}

/** The status updates posted on an occurrence: post, edit, delete. */
function updateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    `${PATH}/:maintenanceId/updates`,
    {
      schema: {
        tags,
        summary: 'Post a status update on an occurrence',
        description:
          'CANCELLED stops it silencing alerts; IN_PROGRESS or VERIFYING before its start starts it now; ' +
          'COMPLETED before its end ends it now; SCHEDULED, IN_PROGRESS and COMPLETED take a cancellation back.',
        params: OccurrenceParams,
        body: OccurrenceUpdateBody,
        response: { 201: MaintenanceOccurrenceUpdate },
      },
    },
    async (request, reply) => {
      const { id, maintenanceId } = request.params
      const account = authOf(request).accountId
      return reply
        .status(201)
        .send(await occurrences.postUpdate(ctx, account, id, maintenanceId, request.body))
    },
  )

  app.put(
    `${PATH}/:maintenanceId/updates/:updateId`,
    {
      schema: {
        tags,
        summary: "Edit an occurrence's status update",
        description: 'Changes what the update says; what it did to the occurrence stays.',
        params: OccurrenceUpdateParams,
        body: OccurrenceUpdateEditBody,
        response: { 200: MaintenanceOccurrenceUpdate },
      },
    },
    async (request) => {
      const { id, maintenanceId, updateId } = request.params
      const account = authOf(request).accountId
      return occurrences.editUpdate(ctx, account, id, maintenanceId, updateId, request.body)
    },
  )

  app.delete(
    `${PATH}/:maintenanceId/updates/:updateId`,
    {
      schema: {
        tags,
        summary: "Delete an occurrence's status update",
        params: OccurrenceUpdateParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      const { id, maintenanceId, updateId } = request.params
      await occurrences.deleteUpdate(ctx, authOf(request).accountId, id, maintenanceId, updateId)
      return reply.status(204).send(null)
    },
  )
}
