import { timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { assertNotThrottled, recordFailedAuth } from '../../auth/failed-auth-throttle.ts'
import type { ServiceContext } from '../../context.ts'
import { badRequest, notFound, unauthorized } from '../../http/errors.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import * as accountLookups from '../accounts/account-lookups.service.ts'
import { Account } from '../accounts/accounts.schemas.ts'
import * as accounts from '../accounts/accounts.service.ts'
import { ApiKey, ApiKeyIdParams, CreatedApiKey } from '../api-keys/api-keys.schemas.ts'
import * as keys from '../api-keys/api-keys.service.ts'
import { PasswordLink } from '../sessions/sessions.schemas.ts'
import { createPasswordLink } from '../sessions/sessions.service.ts'
import {
  CreateAccountBody,
  CreateAdminApiKeyBody,
  CreateMembershipBody,
  CreateUserBody,
  ListAdminApiKeysQuery,
  Membership,
  User,
} from './admin.schemas.ts'

/** The operators' tenant API under /admin/v1, behind SVC_ADMIN_TOKEN; tenant keys get 401 here. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext; adminToken: string }> = async (
  app,
  { ctx, adminToken },
) => {
  const expected = Buffer.from(adminToken)
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.routeOptions.url === '/admin/openapi.json') return
    // A throttled address isn't told whether its token is right, so it can't go on guessing.
    await assertNotThrottled(ctx, 'admin-token', request.ip)
    const presented = Buffer.from(request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? '')
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      await recordFailedAuth(ctx, 'admin-token', request.ip)
      throw unauthorized('Bad Token')
    }
  })
  userRoutes(app, ctx)
  accountRoutes(app, ctx)
  apiKeyRoutes(app, ctx)
}

const conflictResponse = { 409: ErrorResponse('Conflict: it exists already') }

/** Users and their password links. */
function userRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/admin/v1/users',
    {
      schema: {
        summary: 'Create a user',
        body: CreateUserBody,
        response: { 201: User, ...conflictResponse },
      },
    },
    async (request, reply) => reply.status(201).send(await accounts.createUser(ctx, request.body)),
  )

  app.post(
    '/admin/v1/users/:userId/password-link',
    {
      schema: {
        summary: 'Make a one-time link to set a user’s password',
        description:
          'The link opens the dashboard’s set-password page; it works once and expires (SVC_PASSWORD_LINK_HOURS).',
        params: Type.Object({ userId: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        response: { 201: PasswordLink },
      },
    },
    async (request, reply) => reply.status(201).send(await createPasswordLink(ctx, request.params.userId)),
  )
}

/** Accounts and memberships. */
function accountRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/admin/v1/accounts',
    { schema: { summary: 'Create an account', body: CreateAccountBody, response: { 201: Account } } },
    async (request, reply) => reply.status(201).send(await accounts.createAccount(ctx, request.body)),
  )

  app.post(
    '/admin/v1/memberships',
    {
      schema: {
        summary: 'Add a user to an account with a role',
        body: CreateMembershipBody,
        response: { 201: Membership, ...conflictResponse },
      },
    },
    async (request, reply) => reply.status(201).send(await accounts.addMembership(ctx, request.body)),
  )
}

function apiKeyRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/admin/v1/api-keys',
    {
      schema: {
        summary: 'Create a user key or a service key',
        description: 'The raw key is in this response only.',
        body: CreateAdminApiKeyBody,
        response: { 201: CreatedApiKey },
      },
    },
    async (request, reply) => {
      const { name, userId, accountId, role } = request.body
      if (userId && !accountId && !role) {
        if (!(await accountLookups.findUser(ctx, userId))) throw notFound(`User ${userId} not found`)
        return reply.status(201).send(await keys.createApiKey(ctx, { name, owner: { userId } }))
      }
      if (accountId && role && !userId) {
        if (!(await accountLookups.findAccount(ctx, accountId)))
          throw notFound(`Account ${accountId} not found`)
        return reply.status(201).send(await keys.createApiKey(ctx, { name, owner: { accountId, role } }))
      }
      throw badRequest('Give either userId (a user key) or accountId and role (a service key)')
    },
  )

  app.get(
    '/admin/v1/api-keys',
    {
      schema: {
        summary: 'List live API keys',
        querystring: ListAdminApiKeysQuery,
        response: { 200: Type.Array(ApiKey) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { userId, accountId } = request.query
      const { items, total } = await keys.listApiKeys(ctx, { userId, accountId }, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.delete(
    '/admin/v1/api-keys/:id',
    {
      schema: {
        summary: 'Revoke an API key at once',
        params: ApiKeyIdParams,
        response: { 204: { type: 'null', description: 'Revoked' } },
      },
    },
    async (request, reply) => {
      if (!(await keys.findApiKey(ctx, request.params.id))) throw notFound()
      await keys.revokeApiKey(ctx, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
