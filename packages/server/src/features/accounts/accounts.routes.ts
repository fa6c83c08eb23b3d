import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse, PageQuery, StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { cursorOf, cursorPageOf, NextId } from '../../http/cursor-pages.ts'
import { forbidden } from '../../http/errors.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import {
  Account,
  AccountPatch,
  InviteBody,
  InviteCreated,
  MemberOrInvite,
  MemberPatch,
  MembersQuery,
  UserIdParams,
} from './accounts.schemas.ts'
import * as accounts from './accounts.service.ts'
import { inviteMember } from './member-invites.service.ts'

export const accountsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const tags = ['accounts']

  app.get(
    '/v1/accounts',
    {
      config: { userLevel: true },
      schema: {
        tags,
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

  app.get(
    '/v1/accounts/me',
    { schema: { tags, summary: 'Fetch the current account', response: { 200: Account } } },
    async (request) => accounts.getAccount(ctx, authOf(request).accountId),
  )

  app.patch(
    '/v1/accounts/me',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags,
        summary: 'Update the current account',
        description: 'Changes name, default runtime, settings and account-level alert settings. Needs ADMIN.',
        body: AccountPatch,
        response: { 200: Account },
      },
    },
    async (request) => accounts.updateAccount(ctx, authOf(request).accountId, request.body),
  )

  app.get(
    '/v1/accounts/me/members',
    {
      schema: {
        tags,
        summary: 'List the members of the current account',
        description:
          'Paged by cursor: send `nextId` back for the next page. Filters: search (name or email), role, ' +
          'type (`member`: joined; `invite`: invited, no password set yet) and status (ACTIVE: joined; ' +
          'PENDING: invited, the link still works; EXPIRED: invited, the link expired).',
        querystring: MembersQuery,
        response: {
          200: Type.Object({ members: Type.Array(MemberOrInvite), length: Type.Integer(), nextId: NextId }),
        },
      },
    },
    async (request) => {
      const page = cursorPageOf(request.query)
      const { items, total } = await accounts.listMembers(ctx, authOf(request).accountId, page, request.query)
      return { ...cursorOf(page, items, total), members: items }
    },
  )

  app.post(
    '/v1/accounts/me/members',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags,
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

  app.patch(
    '/v1/accounts/me/members/:userId',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags,
        summary: 'Change the role of a member',
        params: UserIdParams,
        body: MemberPatch,
        response: {
          200: MemberOrInvite,
          409: ErrorResponse('Conflict: an account must keep at least one OWNER'),
        },
      },
    },
    async (request) => {
      const auth = authOf(request)
      if (auth.userId === request.params.userId) throw forbidden('You cannot change your own role')
      return accounts.changeMemberRole(ctx, auth, request.params.userId, request.body.role)
    },
  )

  app.delete(
    '/v1/accounts/me/members/:userId',
    {
      config: { minRole: 'ADMIN' },
      schema: {
        tags,
        summary: 'Remove a member from the current account',
        params: UserIdParams,
        response: {
          204: { type: 'null', description: 'Removed' },
          409: ErrorResponse('Conflict: an account must keep at least one OWNER'),
        },
      },
    },
    async (request, reply) => {
      await accounts.removeMember(ctx, authOf(request), request.params.userId)
      return reply.status(204).send(null)
    },
  )
}
