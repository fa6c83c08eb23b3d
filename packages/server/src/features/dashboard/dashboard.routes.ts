import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { Overview, OverviewQuery } from './dashboard.schemas.ts'
import { accountOverview } from './dashboard.service.ts'

/** What the dashboard's pages need in one request each, beside the resource routes. */
export const dashboardRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/dashboard/overview',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'One page of the account’s checks with their status and last 24 hours',
        description:
          'The checks that match the filters, failing first, one page at a time (50 by default): status, availability and hourly response times of the last 24 hours, from the analytics rollups. Beside the page: how many checks match, every check counted by status, and the tags, groups and locations to filter by.',
        querystring: OverviewQuery,
        response: { 200: Overview },
      },
    },
    async (request) => accountOverview(ctx, authOf(request).accountId, request.query),
  )
}
