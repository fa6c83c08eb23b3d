import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  CheckResult,
  CheckResultPageV2,
  CheckResultParams,
  CheckResultsParams,
  ListResultsQuery,
  ListResultsV2Query,
} from './check-results.schemas.ts'
import * as results from './check-results.service.ts'
import { AssetManifest, ResultAssetsQuery, resultAssets } from './result-assets.ts'

const tags = ['check-results']

export const checkResultsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  resultListRoutes(app, ctx)
  resultRoutes(app, ctx)
  resultFileRoutes(app, ctx)
}

/** A check's results, newest first: by page (v1) and by cursor (v2). */
function resultListRoutes(app: RouteApp, ctx: ServiceContext) {
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
    '/v2/check-results/:checkId',
    {
      schema: {
        tags,
        summary: 'List the results of a check, by cursor',
        description:
          'Newest first, as the v1 list filters them; `nextId` of an answer gives the page after it (null on ' +
          'the last), and results stored meanwhile don’t shift the pages. `fields` keeps only the fields named.',
        params: CheckResultsParams,
        querystring: ListResultsV2Query,
        response: { 200: CheckResultPageV2 },
      },
      preValidation: splitFieldLists,
    },
    async (request) =>
      results.listResultsByCursor(ctx, authOf(request).accountId, request.params.checkId, request.query),
  )
}

/** `fields=id,startedAt`, as the hosted CLI sends it, is `fields=id&fields=startedAt`. */
function splitFieldLists(request: FastifyRequest, _reply: FastifyReply, done: () => void) {
  const query = request.query as { fields?: string | string[] }
  if (query.fields !== undefined) {
    query.fields = [query.fields].flat().flatMap((value) => value.split(',').filter(Boolean))
  }
  done()
}

/** One result. */
function resultRoutes(app: RouteApp, ctx: ServiceContext) {
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

/** The screenshots, traces and videos a result keeps: their list and each file. */
function resultFileRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/check-results/:checkId/:resultId/assets',
    {
      schema: {
        tags,
        summary: 'List the assets of a result',
        description:
          'The screenshots, Playwright traces and videos of a browser, multi-step or suite result, each with ' +
          'its download link (see the artifacts route), content type and size; other results have none.',
        params: CheckResultParams,
        querystring: ResultAssetsQuery,
        response: { 200: AssetManifest },
      },
    },
    async (request) => {
      const { checkId, resultId } = request.params
      return resultAssets(ctx, authOf(request).accountId, checkId, resultId, request.query)
    },
  )

  app.get(
    '/v1/check-results/:checkId/:resultId/artifacts/*',
    {
      schema: {
        tags,
        summary: 'Download an artifact of a result',
        description:
          'Screenshots, Playwright traces and videos of browser, multi-step and suite results, as linked ' +
          'from the result (`traceUrl`, `screenshots[].url`, `traces[].url`, `videos[].url`), with their ' +
          'content type (`image/png`, `application/zip`, `video/webm`).',
        params: StrictObject({ ...CheckResultParams.properties, '*': Type.String({ minLength: 1 }) }),
        response: { 200: Type.Unsafe<unknown>({ type: 'string', format: 'binary' }) },
      },
    },
    async (request, reply) => {
      const { checkId, resultId, '*': path } = request.params
      const artifact = await results.openArtifact(ctx, authOf(request).accountId, checkId, resultId, path)
      return reply.type(artifact.contentType).send(artifact.stream)
    },
  )
}
