import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { PageQuery, roleAtLeast, StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { type AuthContext, authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { badRequest, forbidden, notFound } from '../../http/errors.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { ApiKey, ApiKeyIdParams, CreateAccountApiKeyBody, CreatedApiKey } from './api-keys.schemas.ts'
import * as keys from './api-keys.service.ts'

/** Keys inside an account: a user manages their own user keys; an ADMIN manages the account's service keys. */
export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  listAndCreateRoutes(app, ctx)
  revokeRoute(app, ctx)
}

const TAGS = ['api-keys']

function listAndCreateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/api-keys',
    {
      schema: {
        tags: TAGS,
        summary: 'List API keys',
        description: 'Your own user keys, and the account’s service keys when you are ADMIN or OWNER.',
        querystring: StrictObject(PageQuery),
        response: { 200: Type.Array(ApiKey) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request)
      const page = pageOf(request.query)
      const member = {
        userId: auth.userId,
        accountId: auth.accountId,
        withServiceKeys: roleAtLeast(auth.role, 'ADMIN'),
      }
      const { items, total } = await keys.listApiKeys(ctx, { member }, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.post(
    '/v1/api-keys',
    {
      // Any member manages their own user keys; the handler asks ADMIN for service keys.
      config: { minRole: 'READ_ONLY' },
      schema: {
        tags: TAGS,
        summary: 'Create an API key',
        description:
          'type USER (default) creates a key for yourself; type SERVICE creates a key of the account with `role` ' +
          '(needs ADMIN, and no role above your own). The raw key is in this response only. Live user keys per ' +
          'user and service keys per account are capped (100 each unless the operator set otherwise): 403 at the cap.',
        body: CreateAccountApiKeyBody,
        response: { 201: CreatedApiKey },
      },
    },
    async (request, reply) => {
      const auth = authOf(request)
      const { name, type = 'USER', role } = request.body
      if (type === 'USER') {
        if (role) throw roleRefused('applies to SERVICE keys only')
        if (!auth.userId) throw forbidden('A service key cannot create user keys')
        return reply.status(201).send(await keys.createApiKey(ctx, { name, owner: { userId: auth.userId } }))
      }
      if (!role) throw roleRefused('is required for a SERVICE key')
      if (!roleAtLeast(auth.role, 'ADMIN'))
        throw forbidden('Creating service keys needs the ADMIN role or higher')
      if (!roleAtLeast(auth.role, role)) throw forbidden('A key cannot get a role above your own')
      const created = await keys.createApiKey(ctx, { name, owner: { accountId: auth.accountId, role } })
      return reply.status(201).send(created)
    },
  )
}

function revokeRoute(app: RouteApp, ctx: ServiceContext) {
  app.delete(
    '/v1/api-keys/:id',
    {
      // Revoking your own key is never refused; service keys need ADMIN (mayManage).
      config: { minRole: 'READ_ONLY' },
      schema: {
        tags: TAGS,
        summary: 'Revoke an API key',
        description: 'Revoked at once, on every node.',
        params: ApiKeyIdParams,
        response: { 204: { type: 'null', description: 'Revoked' } },
      },
    },
    async (request, reply) => {
      const auth = authOf(request)
      const key = await keys.findApiKey(ctx, request.params.id)
      if (!key || !mayManage(auth, key)) throw notFound()
      await keys.revokeApiKey(ctx, key.id)
      return reply.status(204).send(null)
    },
  )
}

function mayManage(auth: AuthContext, key: ApiKey): boolean {
  if (key.userId) return key.userId === auth.userId
  return key.accountId === auth.accountId && roleAtLeast(auth.role, 'ADMIN')
}

/** A 400 about `body.role` in the error shape of every validation error (the path in `attributes`). */
function roleRefused(message: string) {
  return badRequest(`body.role ${message}`, { errors: [{ path: 'body.role', message }] })
}
