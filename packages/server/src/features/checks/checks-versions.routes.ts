import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import { getCheckAsAsked, searchChecks } from './check-search.ts'
import { AnyCheck, CheckIdParams, GetCheckQuery, SearchChecksQuery } from './checks.schemas.ts'

/** The hosted product's v2 and v3 check reads: the v1 check shape, with their filters. */
export const checkVersionsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  const tags = ['checks']
  for (const version of ['v2', 'v3']) {
    app.get(
      `/${version}/checks`,
      {
        schema: {
          tags,
          summary: `List checks (${version})`,
          description:
            'Oldest first. Filters: checkType (PLAYWRIGHT is AUTOMATION), tag (every one named), search ' +
            '(name), apiCheckUrlFilterPattern (API checks whose URL contains it), status (current status), ' +
            'applyGroupSettings (checks as they run in their groups).',
          querystring: SearchChecksQuery,
          response: { 200: Type.Array(AnyCheck) },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query)
        const { items, total } = await searchChecks(ctx, authOf(request).accountId, request.query, page)
        return sendPage(reply, page, items, total)
      },
    )

    app.get(
      `/${version}/checks/:id`,
      {
        schema: {
          tags,
          summary: `Retrieve a check (${version})`,
          params: CheckIdParams,
          querystring: GetCheckQuery,
          response: { 200: AnyCheck },
        },
      },
      async (request) => getCheckAsAsked(ctx, authOf(request).accountId, request.params.id, request.query),
    )
  }
}
