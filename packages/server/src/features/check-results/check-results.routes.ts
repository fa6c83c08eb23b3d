import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import {
  CheckResult,
  CheckResultParams,
  CheckResultsParams,
  ListResultsQuery,
} from './check-results.schemas.ts'
import * as results from './check-results.service.ts'

export const checkResultsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  const tags = ['check-results']

  app.get(
    '/v1/check-results/:checkId',
    {
      schema: {
        tags,
        summary: 'List the results of a check',
        description: 'Newest first. `from` and `to` are unix seconds on the run start.',
        params: CheckResultsParams,
        querystring: ListResultsQuery,
        response: { 200: Type.Array(CheckResult) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { items, total } = await results.listResults(
        ctx,
        authOf(request).accountId,
        request.params.checkId,
        request.query,
        page,
      )
      return sendPage(reply, page, items, total)
    },
  )

  app.get(
    '/v1/check-results/:checkId/:resultId',
    {
      schema: {
        tags,
        summary: 'Retrieve one check result',
        params: CheckResultParams,
        response: { 200: CheckResult },
      },
    },
    async (request) =>
      results.getResult(ctx, authOf(request).accountId, request.params.checkId, request.params.resultId),
  )
}
