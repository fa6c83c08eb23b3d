import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  AccessToken,
  AccessTokenBody,
  AccessTokenParams,
  CreatedAccessToken,
  ListStatusPagesQuery,
  StatusPage,
  StatusPageBody,
  StatusPageIdParams,
  StatusPageV1,
  V1StatusPageIdParams,
} from './status-pages.schemas.ts'
import * as pages from './status-pages.service.ts'

export const statusPagesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  listAndCreateRoutes(app, ctx)
  pageRoutes(app, ctx)
  pageV1Route(app, ctx)
  accessTokenRoutes(app, ctx)
  accessTokenRevokeRoute(app, ctx)
}

const TAGS = ['status-pages']

function listAndCreateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v3/status-pages',
    {
      schema: {
        tags: TAGS,
        summary: 'List status pages',
        querystring: ListStatusPagesQuery,
        response: { 200: Type.Array(StatusPage) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await pages.listStatusPages(ctx, authOf(request).accountId, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v3/status-pages',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a status page',
        description: 'Answers 409 when `url` or `customDomain` is used by another status page.',
        body: StatusPageBody,
        response: { 201: StatusPage, 409: ErrorResponse('Conflict: url or customDomain is taken') },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await pages.createStatusPage(ctx, authOf(request).accountId, request.body)),
  )
}

/** One page: read, replace, delete. */
function pageRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v3/status-pages/:statusPageId',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve a status page',
        params: StatusPageIdParams,
        response: { 200: StatusPage },
      },
    },
    async (request) => pages.getStatusPage(ctx, authOf(request).accountId, request.params.statusPageId),
  )

  app.put(
    '/v3/status-pages/:statusPageId',
    {
      schema: {
        tags: TAGS,
        summary: 'Update a status page',
        description:
          'Replaces the settings and cards (a card sent with its `id` keeps it) and bumps `version`. ' +
          'Answers 409 when `url` or `customDomain` is used by another status page.',
        params: StatusPageIdParams,
        body: StatusPageBody,
        response: { 200: StatusPage, 409: ErrorResponse('Conflict: url or customDomain is taken') },
      },
    },
    async (request) =>
      pages.updateStatusPage(ctx, authOf(request).accountId, request.params.statusPageId, request.body),
  )

  app.delete(
    '/v3/status-pages/:statusPageId',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a status page',
        description: 'Deletes the page with its cards, incidents, subscribers and access tokens.',
        params: StatusPageIdParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await pages.deleteStatusPage(ctx, authOf(request).accountId, request.params.statusPageId)
      return reply.status(204).send(null)
    },
  )
}

function pageV1Route(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/status-pages/:statusPageId',
    {
      schema: {
        tags: TAGS,
        deprecated: true,
        summary: 'Retrieve a status page (deprecated v1 form)',
        description: `Deprecated: use GET /v3/status-pages/{statusPageId}. Sunset: ${pages.V1_SUNSET}.`,
        params: V1StatusPageIdParams,
        response: { 200: StatusPageV1 },
      },
    },
    async (request, reply) => {
      const { statusPageId } = request.params
      const page = await pages.getStatusPageV1(ctx, authOf(request).accountId, statusPageId)
      return reply
        .header('deprecation', 'true')
        .header('sunset', pages.V1_SUNSET)
        .header('link', `</v3/status-pages/${statusPageId}>; rel="successor-version"`)
        .send(page)
    },
  )
}

/** The access tokens of a private page: their list, and a new one. */
function accessTokenRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v3/status-pages/:statusPageId/access-tokens',
    {
      schema: {
        tags: TAGS,
        summary: 'List the access tokens of a status page',
        description: 'Access tokens let people outside the account read a private page.',
        params: StatusPageIdParams,
        querystring: ListStatusPagesQuery,
        response: { 200: Type.Array(AccessToken) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await pages.listAccessTokens(
        ctx,
        authOf(request).accountId,
        request.params.statusPageId,
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v3/status-pages/:statusPageId/access-tokens',
    {
      schema: {
        tags: TAGS,
        summary: 'Create an access token for a private status page',
        description:
          'The token is shown once. Viewers open /status/{url}?token=TOKEN (remembered in a cookie) ' +
          'or send `Authorization: Bearer TOKEN`.',
        params: StatusPageIdParams,
        body: AccessTokenBody,
        response: { 201: CreatedAccessToken },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await pages.createAccessToken(
            ctx,
            authOf(request).accountId,
            request.params.statusPageId,
            request.body.name,
          ),
        ),
  )
}

/** Revoking one access token. */
function accessTokenRevokeRoute(app: RouteApp, ctx: ServiceContext) {
  app.delete(
    '/v3/status-pages/:statusPageId/access-tokens/:tokenId',
    {
      schema: {
        tags: TAGS,
        summary: 'Revoke an access token of a status page',
        params: AccessTokenParams,
        response: { 204: { type: 'null', description: 'Revoked' } },
      },
    },
    async (request, reply) => {
      const { statusPageId, tokenId } = request.params
      await pages.deleteAccessToken(ctx, authOf(request).accountId, statusPageId, tokenId)
      return reply.status(204).send(null)
    },
  )
}
