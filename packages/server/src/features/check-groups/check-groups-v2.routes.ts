import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ServiceContext } from '../../context.ts'
import { versionedGroupRoutes } from './check-groups-versioned.routes.ts'

/** The hosted product's v2 check groups: the v1 handlers with v2's docs and check view. */
export const checkGroupsV2Routes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  await app.register(versionedGroupRoutes, { ctx, version: 'v2' })
}
