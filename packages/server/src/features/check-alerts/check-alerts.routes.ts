import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import { CheckAlert, CheckAlertsParams, CheckAlertsQuery } from './check-alerts.schemas.ts'
import { listCheckAlerts } from './check-alerts.service.ts'

export const checkAlertsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const tags = ['alert-channels']
  const description =
    'Newest first, one entry per alert whatever the number of channels it went to. `from` and `to` ' +
    '(unix seconds) are at most 6 hours apart; default: the last 6 hours. The total is in `content-range`.'

  app.get(
    '/v1/check-alerts',
    {
      schema: {
        tags,
        summary: 'List the alerts sent for the account',
        description,
        querystring: CheckAlertsQuery,
        response: { 200: Type.Array(CheckAlert) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await listCheckAlerts(ctx, authOf(request).accountId, request.query, page)
      return sendPage(reply, page, items, total)
    },
  )

  app.get(
    '/v1/check-alerts/:checkId',
    {
      schema: {
        tags,
        summary: 'List the alerts sent for a check',
        description,
        params: CheckAlertsParams,
        querystring: CheckAlertsQuery,
        response: { 200: Type.Array(CheckAlert) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await listCheckAlerts(
        ctx,
        authOf(request).accountId,
        { ...request.query, checkId: request.params.checkId },
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )
}
