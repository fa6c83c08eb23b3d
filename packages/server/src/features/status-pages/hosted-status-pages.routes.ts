import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse, Name, Nullable, StrictObject, Uuid } from '@svc/core'
import { type Static, Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { CursorQuery, cursorOf, cursorPageOf, NextId } from '../../http/cursor-pages.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { StatusPage, StatusPageBody, V1StatusPageIdParams } from './status-pages.schemas.ts'
import * as pages from './status-pages.service.ts'

/**
 * The hosted API's status page body: the v3 body's fields, with the card's `statusPageId` and the page's
 * `version` it sends back from a read (both ignored), and a card's services optional.
 */
const HostedCardBody = StrictObject({
  id: Type.Optional(Uuid({ description: 'An existing card of the page, to keep its id.' })),
  statusPageId: Type.Optional(
    Type.String({ maxLength: 64, description: 'Ignored: the card is the page’s.' }),
  ),
  name: Name({ maxLength: 255 }),
  services: Type.Optional(Type.Array(StrictObject({ id: Uuid() }), { maxItems: 100 })),
})
const HostedStatusPageBody = StrictObject({
  ...StatusPageBody.properties,
  version: Type.Optional(Nullable(Type.Number({ description: 'Ignored: every save bumps it.' }))),
  cards: Type.Array(HostedCardBody, { maxItems: 50 }),
})
type HostedStatusPageBody = Static<typeof HostedStatusPageBody>

const HostedStatusPage = Type.Object(
  { ...StatusPage.properties, accountId: Type.String({ format: 'uuid' }) },
  { title: 'HostedStatusPage' },
)

function toBody(body: HostedStatusPageBody): StatusPageBody {
  const { version: _version, cards, ...rest } = body
  return {
    ...rest,
    cards: cards.map(({ statusPageId: _page, services, ...card }) => ({ ...card, services: services ?? [] })),
  }
}

const withAccount = (accountId: string) => (page: StatusPage) => ({ ...page, accountId })

/**
 * The hosted API's status page operations, on the same pages as `/v3/status-pages` (its GET by id is the
 * seed spec's deprecated v1 form, in status-pages.routes.ts).
 */
export const hostedStatusPagesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  listAndCreateRoutes(app, ctx)
  pageRoutes(app, ctx)
}

const TAGS = ['status-pages']
const conflict = ErrorResponse('Conflict: url or customDomain is taken')

function listAndCreateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/status-pages',
    {
      schema: {
        tags: TAGS,
        summary: 'List status pages (hosted form)',
        description:
          'The pages of `GET /v3/status-pages`, paged by cursor: send `nextId` back for the next page.',
        querystring: StrictObject(CursorQuery),
        response: {
          200: Type.Object({ length: Type.Integer(), entries: Type.Array(HostedStatusPage), nextId: NextId }),
        },
      },
    },
    async (request) => {
      const accountId = authOf(request).accountId
      const page = cursorPageOf(request.query)
      const { items, total } = await pages.listStatusPages(ctx, accountId, page)
      return { ...cursorOf(page, items, total), entries: items.map(withAccount(accountId)) }
    },
  )

  app.post(
    '/v1/status-pages',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a status page (hosted form)',
        description: 'As `POST /v3/status-pages`. Answers 409 when `url` or `customDomain` is taken.',
        body: HostedStatusPageBody,
        response: { 201: HostedStatusPage, 409: conflict },
      },
    },
    async (request, reply) => {
      const accountId = authOf(request).accountId
      const page = await pages.createStatusPage(ctx, accountId, toBody(request.body))
      return reply.status(201).send(withAccount(accountId)(page))
    },
  )
}

/** One page: replace, delete. */
function pageRoutes(app: RouteApp, ctx: ServiceContext) {
  app.put(
    '/v1/status-pages/:statusPageId',
    {
      schema: {
        tags: TAGS,
        summary: 'Update a status page (hosted form)',
        description:
          'As `PUT /v3/status-pages/{statusPageId}`: replaces the settings and cards, bumps `version`.',
        params: V1StatusPageIdParams,
        body: HostedStatusPageBody,
        response: { 200: HostedStatusPage, 409: conflict },
      },
    },
    async (request) => {
      const accountId = authOf(request).accountId
      const { statusPageId } = request.params
      return withAccount(accountId)(
        await pages.updateStatusPage(ctx, accountId, statusPageId, toBody(request.body)),
      )
    },
  )

  app.delete(
    '/v1/status-pages/:statusPageId',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a status page (hosted form)',
        description: 'As `DELETE /v3/status-pages/{statusPageId}`.',
        params: V1StatusPageIdParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await pages.deleteStatusPage(ctx, authOf(request).accountId, request.params.statusPageId)
      return reply.status(204).send(null)
    },
  )
}
