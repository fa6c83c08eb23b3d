import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse, StrictObject } from '@svc/core'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { cursorOf, cursorPageOf, NextId } from '../../http/cursor-pages.ts'
import { forbidden, notFound } from '../../http/errors.ts'
import { Account, MemberOrInvite, MemberPatch, MembersQuery } from './accounts.schemas.ts'
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
function actingIn(request: FastifyRequest<{ Params: { accountId: string } }>) {
  const auth = authOf(request)
  if (request.params.accountId !== auth.accountId)
    throw notFound(`Account ${request.params.accountId} not found`)
  return auth
}

export const accountByIdRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const tags = ['accounts']
  const pathNote =
    'The account must be the one the request acts in (its key’s, or the account header’s); else 404.'

  app.get(
    '/v1/accounts/me/entitlements',
    {
      schema: {
        tags,
        summary: 'Fetch the entitlements of the current account',
        description:
          'What this install allows and limits; a metered entitlement without `quantity` is unlimited.',
        response: { 200: Entitlements },
      },
    },
    async () => entitlementsOf(ctx),
  )

  app.get(
    '/v1/accounts/:accountId',
    {
      schema: {
        tags,
        summary: 'Fetch an account',
        description: pathNote,
        params: AccountIdParams,
        response: { 200: Account },
      },
    },
    async (request) => accounts.getAccount(ctx, actingIn(request).accountId),
  )

  app.get(
    '/v1/accounts/:accountId/entitlements',
    {
      schema: {
        tags,
        summary: 'Fetch the entitlements of an account',
        description: `${pathNote} A metered entitlement without \`quantity\` is unlimited.`,
        params: AccountIdParams,
        response: { 200: Entitlements },
      },
    },
    async (request) => {
      actingIn(request)
      return entitlementsOf(ctx)
    },
  )

  app.get(
    '/v1/accounts/:accountId/members',
    {
      schema: {
        tags,
        summary: 'List the members of an account',
        description: `${pathNote} As \`GET /v1/accounts/me/members\`: paged by cursor, the same filters.`,
        params: AccountIdParams,
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

  app.patch(
    '/v1/accounts/:accountId/members/:userId',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags,
        summary: 'Change the role of a member of an account',
        description: pathNote,
        params: MemberParams,
        body: MemberPatch,
        response: {
          200: MemberOrInvite,
          409: ErrorResponse('Conflict: an account must keep at least one OWNER'),
        },
      },
    },
    async (request) => {
      const auth = actingIn(request)
      if (auth.userId === request.params.userId) throw forbidden('You cannot change your own role')
      return accounts.changeMemberRole(ctx, auth, request.params.userId, request.body.role)
    },
  )

  app.delete(
    '/v1/accounts/:accountId/members/:userId',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags,
        summary: 'Remove a member from an account',
        description: pathNote,
        params: MemberParams,
        response: {
          204: { type: 'null', description: 'Removed' },
          409: ErrorResponse('Conflict: an account must keep at least one OWNER'),
        },
      },
    },
    async (request, reply) => {
      await accounts.removeMember(ctx, actingIn(request), request.params.userId)
      return reply.status(204).send(null)
    },
  )
}
