import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { Overview } from './dashboard.schemas.ts'
import { accountOverview } from './dashboard.service.ts'

/** What the dashboard's pages need in one request each, beside the resource routes. */
export const dashboardRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/dashboard/overview',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'Every check of the account with its status and last 24 hours',
        description:
          'All checks in one answer (no paging), sorted by name: status, availability and hourly response times of the last 24 hours, from the analytics rollups.',
        response: { 200: Overview },
      },
    },
    async (request) => ({ checks: await accountOverview(ctx, authOf(request).accountId) }),
  )
}
