import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import { Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { sendDashboardPage } from './dashboard-site.service.ts'
import { DASHBOARD_SLUG_PATTERN } from './dashboards.schemas.ts'

export const DashboardPageQuery = StrictObject({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Page of checks, from 1.' })),
})

/** Dashboards' public pages at /dashboards/{customUrl} (their custom domains: the status site's root). */
export const dashboardSiteRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  app.get(
    '/dashboards/:customUrl',
    {
      schema: {
        tags: ['status-site'],
        summary: 'Public dashboard (HTML)',
        description:
          'The status of the checks the dashboard’s tags select, reloading itself every refreshRate seconds ' +
          '(every paginationRate, to the next page, when its checks take several). No API key; a private ' +
          'dashboard needs an API key of an account member.',
        security: [],
        params: StrictObject({ customUrl: Type.String({ pattern: DASHBOARD_SLUG_PATTERN, maxLength: 63 }) }),
        querystring: DashboardPageQuery,
        response: {
          200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      },
    },
    async (request, reply) => {
      const { customUrl } = request.params
      return sendDashboardPage(ctx, request, reply, 'custom_url', customUrl, `/dashboards/${customUrl}`)
    },
  )
}
