import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { MaintenanceWindowBody, MaintenanceWindowPatch } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { ListWindowsQuery, MaintenanceWindow, WindowIdParams } from './maintenance-windows.schemas.ts'
import * as windows from './maintenance-windows.service.ts'

export const maintenanceWindowsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  windowCollectionRoutes(app, ctx)
  windowItemRoutes(app, ctx)
}

const tags = ['maintenance-windows']

/** Listing and creating maintenance windows. */
function windowCollectionRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/maintenance-windows',
    {
      schema: {
        tags,
        summary: 'List maintenance windows',
        querystring: ListWindowsQuery,
        response: { 200: Type.Array(MaintenanceWindow) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await windows.listWindows(ctx, authOf(request).accountId, page, request.query)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/maintenance-windows',
    {
      schema: {
        tags,
        summary: 'Create a maintenance window',
        description:
          'Checks whose tags (or whose group tags) include one of the window tags send no alerts while it is on. ' +
          'When it ends, a failure still going is alerted, and a check that recovered from a failure alerted before the window sends its recovery. ' +
          'A repeating window recurs every repeatInterval repeatUnits (DAY, WEEK, MONTH) until repeatEndsAt.',
        body: MaintenanceWindowBody,
        response: { 201: MaintenanceWindow },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await windows.createWindow(ctx, authOf(request).accountId, request.body)),
  )
}

/** One maintenance window, by id. */
function windowItemRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/maintenance-windows/:id',
    {
      schema: {
        tags,
        summary: 'Retrieve a maintenance window',
        params: WindowIdParams,
        response: { 200: MaintenanceWindow },
      },
    },
    async (request) => windows.getWindow(ctx, authOf(request).accountId, request.params.id),
  )

  app.put(
    '/v1/maintenance-windows/:id',
    {
      schema: {
        tags,
        summary: 'Update a maintenance window',
        description:
          'Partial: the fields sent replace those of the window, which is then checked whole. ' +
          'A change to its schedule forgets the occurrences changed by hand.',
        params: WindowIdParams,
        body: MaintenanceWindowPatch,
        response: { 200: MaintenanceWindow },
      },
    },
    async (request) => windows.updateWindow(ctx, authOf(request).accountId, request.params.id, request.body),
  )

  app.delete(
    '/v1/maintenance-windows/:id',
    {
      schema: {
        tags,
        summary: 'Delete a maintenance window',
        params: WindowIdParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await windows.deleteWindow(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
