import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse, StrictObject } from '@svc/core'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { type AuthContext, authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { cursorOf, cursorPageOf, NextId } from '../../http/cursor-pages.ts'
import { forbidden, notFound } from '../../http/errors.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { Account, MemberOrInvite, MemberPatch, MembersQuery, UserIdParams } from './accounts.schemas.ts'
import * as accounts from './accounts.service.ts'
import { Entitlements, entitlementsOf } from './entitlements.ts'

const AccountIdParams = StrictObject({ accountId: Type.String({ minLength: 1, maxLength: 100 }) })
const MemberParams = StrictObject({
  accountId: Type.String({ minLength: 1, maxLength: 100 }),
  userId: Type.String({ format: 'uuid' }),
})

/**
 * The hosted routes that name the account in their path. The path's account must be the one the request
 * acts in (its key's, or the account header's); any other is 404, as another account's resources are.
 */
function actingIn(request: FastifyRequest): AuthContext {
  const auth = authOf(request)
  const { accountId } = request.params as { accountId: string }
  if (accountId !== auth.accountId) throw notFound(`Account ${accountId} not found`)
  return auth
}

const pathNote =
  'The account must be the one the request acts in (its key’s, or the account header’s); else 404.'
const membersNote =
  'Paged by cursor: send `nextId` back for the next page. Filters: search (name or email), role, ' +
  'type (`member`: joined; `invite`: invited, no password set yet) and status (ACTIVE: joined; ' +
  'PENDING: invited, the link still works; EXPIRED: invited, the link expired).'

/**
 * An account's own routes under `/v1/accounts/me` and `/v1/accounts/{accountId}`: one handler per verb,
 * told how to find the account the request acts in, and each path's docs.
 */
const SCOPES = {
  me: {
    path: '/v1/accounts/me',
    actingIn: authOf,
    accountParams: {},
    memberParams: UserIdParams,
    docs: {
      account: { summary: 'Fetch the current account' },
      entitlements: {
        summary: 'Fetch the entitlements of the current account',
        description:
          'What this install allows and limits; a metered entitlement without `quantity` is unlimited.',
      },
      members: { summary: 'List the members of the current account', description: membersNote },
      changeRole: { summary: 'Change the role of a member' },
      remove: { summary: 'Remove a member from the current account' },
    },
  },
  byId: {
    path: '/v1/accounts/:accountId',
    actingIn,
    accountParams: { params: AccountIdParams },
    memberParams: MemberParams,
    docs: {
      account: { summary: 'Fetch an account', description: pathNote },
      entitlements: {
        summary: 'Fetch the entitlements of an account',
        description: `${pathNote} A metered entitlement without \`quantity\` is unlimited.`,
      },
      members: {
        summary: 'List the members of an account',
        description: `${pathNote} As \`GET /v1/accounts/me/members\`: paged by cursor, the same filters.`,
      },
      changeRole: { summary: 'Change the role of a member of an account', description: pathNote },
      remove: { summary: 'Remove a member from an account', description: pathNote },
    },
  },
}

export const accountScopedRoutes: FastifyPluginAsyncTypebox<{
  ctx: ServiceContext
  scope: keyof typeof SCOPES
}> = async (app, { ctx, scope }) => {
  accountRoutes(app, ctx, SCOPES[scope])
  memberListRoute(app, ctx, SCOPES[scope])
  memberChangeRoutes(app, ctx, SCOPES[scope])
}

const tags = ['accounts']

type Scope = (typeof SCOPES)[keyof typeof SCOPES]

/** The account and its entitlements. */
function accountRoutes(app: RouteApp, ctx: ServiceContext, scope: Scope) {
  const { path, actingIn, accountParams, docs } = scope
  app.get(
    path,
    { schema: { tags, ...docs.account, ...accountParams, response: { 200: Account } } },
    async (request) => accounts.getAccount(ctx, actingIn(request).accountId),
  )

  app.get(
    `${path}/entitlements`,
    { schema: { tags, ...docs.entitlements, ...accountParams, response: { 200: Entitlements } } },
    async (request) => {
      actingIn(request)
      return entitlementsOf(ctx)
    },
  )
}

/** The account's members and invites. */
function memberListRoute(app: RouteApp, ctx: ServiceContext, scope: Scope) {
  const { path, actingIn, accountParams, docs } = scope
  app.get(
    `${path}/members`,
    {
      schema: {
        tags,
        ...docs.members,
        ...accountParams,
        querystring: MembersQuery,
        response: {
          200: Type.Object({ members: Type.Array(MemberOrInvite), length: Type.Integer(), nextId: NextId }),
        },
      },
    },
    async (request) => {
      const page = cursorPageOf(request.query)
      const { items, total } = await accounts.listMembers(
        ctx,
        actingIn(request).accountId,
        page,
        request.query,
      )
      return { ...cursorOf(page, items, total), members: items }
    },
  )
}

const memberConflict = ErrorResponse('Conflict: an account must keep at least one OWNER')

/** Changing a member's role, and removing a member. */
function memberChangeRoutes(app: RouteApp, ctx: ServiceContext, scope: Scope) {
  const { path, actingIn, memberParams, docs } = scope
  app.patch(
    `${path}/members/:userId`,
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags,
        ...docs.changeRole,
        params: memberParams,
        body: MemberPatch,
        response: { 200: MemberOrInvite, 409: memberConflict },
      },
    },
    async (request) => {
      const auth = actingIn(request)
      if (auth.userId === request.params.userId) throw forbidden('You cannot change your own role')
      return accounts.changeMemberRole(ctx, auth, request.params.userId, request.body.role)
    },
  )

  app.delete(
    `${path}/members/:userId`,
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags,
        ...docs.remove,
        params: memberParams,
        response: { 204: { type: 'null', description: 'Removed' }, 409: memberConflict },
      },
    },
    async (request, reply) => {
      await accounts.removeMember(ctx, actingIn(request), request.params.userId)
      return reply.status(204).send(null)
    },
  )
}
