import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse, PageQuery, StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { forbidden } from '../../http/errors.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { accountScopedRoutes } from './account-scoped.routes.ts'
import { Account, AccountPatch, InviteBody, InviteCreated } from './accounts.schemas.ts'
import * as accounts from './accounts.service.ts'
import { inviteMember } from './member-invites.service.ts'

export const accountsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  // The account, its entitlements and members: shared with /v1/accounts/{accountId}.
  await app.register(accountScopedRoutes, { ctx, scope: 'me' })
  listRoute(app, ctx)
  changeRoutes(app, ctx)
}

const TAGS = ['accounts']

function listRoute(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/accounts',
    {
      config: { userLevel: true },
      schema: {
        tags: TAGS,
        summary: 'Fetch the accounts of the user (beta)',
        description:
          'A user key lists every account its user belongs to (no `x-svc-account` needed); a service key lists its own account.',
        querystring: StrictObject(PageQuery),
        response: { 200: Type.Array(Account) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request)
      const page = pageOf(request.query)
      if (auth.userId) {
        const { items, total } = await accounts.listAccountsOfUser(ctx, auth.userId, page)
        return sendPage(reply, page, items, total)
      }
      const own = [await accounts.getAccount(ctx, auth.accountId)]
      return sendPage(reply, page, own.slice(page.offset, page.offset + page.limit), own.length)
    },
  )
}

/** Changing the current account, and inviting into it. */
function changeRoutes(app: RouteApp, ctx: ServiceContext) {
  app.patch(
    '/v1/accounts/me',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags: TAGS,
        summary: 'Update the current account',
        description: 'Changes name, default runtime, settings and account-level alert settings. Needs ADMIN.',
        body: AccountPatch,
        response: { 200: Account },
      },
    },
    async (request) => accounts.updateAccount(ctx, authOf(request).accountId, request.body),
  )

  app.post(
    '/v1/accounts/me/members',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags: TAGS,
        summary: 'Invite a person into the current account (svc)',
        description:
          'Makes the member with the role at once and answers a one-time set-password link to hand to the ' +
          'person (mailed too when SVC_SMTP_URL is set). The member lists as `type: invite` until they ' +
          'set their password; inviting the same email again renews the link. A person who has a ' +
          'password already joins at once (no link). Needs ADMIN, and a user (a service key cannot invite).',
        body: InviteBody,
        response: {
          201: InviteCreated,
          409: ErrorResponse('Conflict: the person is a member of this account already'),
        },
      },
    },
    async (request, reply) => {
      const auth = authOf(request)
      if (!auth.userId) throw forbidden('Inviting needs a user: the invitation names who invited')
      const inviter = await accounts.getUser(ctx, auth.userId)
      const outcome = await inviteMember(
        ctx,
        { accountId: auth.accountId, inviterEmail: inviter.email },
        request.body,
      )
      return reply.status(201).send(outcome)
    },
  )
}
