import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject, Uuid } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { Account } from './accounts.schemas.ts'
import * as accounts from './accounts.service.ts'

/**
 * What the hosted product's CLI reads before and around a deploy (`/next/*`, outside its public OpenAPI):
 * served so its `whoami`, `login` and `deploy` work against svc.
 */
export const nextAccountsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  accountRoutes(app, ctx)
  userRoutes(app, ctx)
}

const TAGS = ['accounts']
const everyAccount = { limit: 100, offset: 0 }

function accountRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/next/accounts',
    {
      config: { userLevel: true },
      schema: {
        tags: TAGS,
        summary: 'The accounts of the caller (hosted CLI)',
        response: { 200: Type.Array(Account) },
      },
    },
    async (request) => {
      const auth = authOf(request)
      if (!auth.userId) return [await accounts.getAccount(ctx, auth.accountId)]
      return (await accounts.listAccountsOfUser(ctx, auth.userId, everyAccount)).items
    },
  )

  app.get(
    '/next/accounts/:accountId',
    {
      config: { userLevel: true },
      schema: {
        tags: TAGS,
        summary: 'One account of the caller (hosted CLI)',
        params: StrictObject({ accountId: Uuid() }),
        response: { 200: Account },
      },
    },
    async (request) => {
      const auth = authOf(request)
      const { accountId } = request.params
      const mine = auth.userId
        ? (await accounts.listAccountsOfUser(ctx, auth.userId, everyAccount)).items.some(
            (a) => a.id === accountId,
          )
        : auth.accountId === accountId
      if (!mine) throw notFound(`Account ${accountId} not found`)
      return accounts.getAccount(ctx, accountId)
    },
  )
}

function userRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/next/users/me',
    {
      config: { userLevel: true },
      schema: {
        tags: TAGS,
        summary: 'The calling user (hosted CLI)',
        response: { 200: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }) },
      },
    },
    async (request) => {
      const auth = authOf(request)
      if (auth.userId) return accounts.getUser(ctx, auth.userId)
      const account = await accounts.getAccount(ctx, auth.accountId)
      return { id: auth.keyId, name: `Service key of ${account.name}`, email: '' }
    },
  )
}
