import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ServiceContext } from '../../context.ts'
import { accountScopedRoutes } from './account-scoped.routes.ts'

/** The hosted routes under `/v1/accounts/{accountId}`: the `/me` handlers, the account found by the path. */
export const accountByIdRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  await app.register(accountScopedRoutes, { ctx, scope: 'byId' })
}
