import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  KeyIdParams,
  ListLocationsQuery,
  LocationIdParams,
  PrivateLocation,
  PrivateLocationBody,
  PrivateLocationKey,
  PrivateLocationUpdate,
} from './private-locations.schemas.ts'
import * as locations from './private-locations.service.ts'

export const privateLocationsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  listAndCreateRoutes(app, ctx)
  locationRoutes(app, ctx)
  keyRoutes(app, ctx)
}

const TAGS = ['private-locations']
const IN_USE = { 409: ErrorResponse('Conflict: the slugName is taken, or checks or groups run there') }

function listAndCreateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/private-locations',
    {
      schema: {
        tags: TAGS,
        summary: 'List private locations',
        querystring: ListLocationsQuery,
        response: { 200: Type.Array(PrivateLocation) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await locations.listLocations(ctx, authOf(request).accountId, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/private-locations',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a private location',
        description:
          'Checks run there once they name its `slugName` in `privateLocations` and an agent serves it.',
        body: PrivateLocationBody,
        response: { 201: PrivateLocation, ...IN_USE },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await locations.createLocation(ctx, authOf(request).accountId, request.body)),
  )
}

/** One location: read, replace, delete. */
function locationRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/private-locations/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve a private location, its keys and connected agents',
        params: LocationIdParams,
        response: { 200: PrivateLocation },
      },
    },
    async (request) => locations.getLocation(ctx, authOf(request).accountId, request.params.id),
  )

  app.put(
    '/v1/private-locations/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Update a private location',
        description: 'Only `name` is required; the fields left out keep their values.',
        params: LocationIdParams,
        body: PrivateLocationUpdate,
        response: { 200: PrivateLocation, ...IN_USE },
      },
    },
    async (request) =>
      locations.updateLocation(ctx, authOf(request).accountId, request.params.id, request.body),
  )

  app.delete(
    '/v1/private-locations/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a private location',
        description: 'Refused with 409 while checks or groups run there.',
        params: LocationIdParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...IN_USE },
      },
    },
    async (request, reply) => {
      await locations.deleteLocation(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}

/** The keys its agents use. */
function keyRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/private-locations/:id/keys',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags: TAGS,
        summary: 'Generate a key for the location’s agents',
        description: 'The answer is the only place the raw key is ever shown.',
        params: LocationIdParams,
        response: { 201: PrivateLocationKey },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await locations.createKey(ctx, authOf(request).accountId, request.params.id)),
  )

  app.delete(
    '/v1/private-locations/:id/keys/:keyId',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags: TAGS,
        summary: 'Revoke a key',
        description: 'Agents using it are refused from their next call.',
        params: KeyIdParams,
        response: { 204: { type: 'null', description: 'Revoked' } },
      },
    },
    async (request, reply) => {
      await locations.deleteKey(ctx, authOf(request).accountId, request.params.id, request.params.keyId)
      return reply.status(204).send(null)
    },
  )
}
