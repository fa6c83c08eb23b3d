import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  ClientCertificate,
  ClientCertificateBody,
  ClientCertificateIdParams,
  ListClientCertificatesQuery,
} from './client-certificates.schemas.ts'
import * as certificates from './client-certificates.service.ts'

export const clientCertificatesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  listAndCreateRoutes(app, ctx)
  certificateRoutes(app, ctx)
}

const TAGS = ['client-certificates']

function listAndCreateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/client-certificates',
    {
      schema: {
        tags: TAGS,
        summary: 'List all client certificates',
        description: 'Newest first. Keys and passphrases are never returned.',
        querystring: ListClientCertificatesQuery,
        response: { 200: Type.Array(ClientCertificate) },
      },
    },
    async (request) => certificates.listCertificates(ctx, authOf(request).accountId),
  )

  app.post(
    '/v1/client-certificates',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a client certificate',
        description:
          'API checks whose request host matches `host` present it in their TLS handshake (mTLS), in every ' +
          'location, private ones included. 400 when the certificate, key, passphrase and CA don’t work together.',
        body: ClientCertificateBody,
        response: { 201: ClientCertificate },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await certificates.createCertificate(ctx, authOf(request).accountId, request.body)),
  )
}

/** One certificate: read, delete. */
function certificateRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/client-certificates/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Retrieve a client certificate',
        params: ClientCertificateIdParams,
        response: { 200: ClientCertificate },
      },
    },
    async (request) => certificates.getCertificate(ctx, authOf(request).accountId, request.params.id),
  )

  app.delete(
    '/v1/client-certificates/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a client certificate',
        description: 'API checks to its host stop presenting it from their next run.',
        params: ClientCertificateIdParams,
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await certificates.deleteCertificate(ctx, authOf(request).accountId, request.params.id)
      return reply.status(204).send(null)
    },
  )
}
