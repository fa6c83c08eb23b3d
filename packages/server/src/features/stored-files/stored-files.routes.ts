import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { HttpError } from '../../http/errors.ts'
import type { RouteApp } from '../../http/route-app.ts'
import * as files from './stored-files.service.ts'

const Stored = StrictObject({
  key: Type.String({ description: 'Names the file in a deploy or a download.' }),
})

/**
 * The hosted product's CLI storage (`/next/checkly-storage/*`, outside its public OpenAPI): it uploads
 * a Playwright check suite's code before a deploy names it as `codeBundlePath`, and browser check
 * snapshots. Bytes go as application/octet-stream.
 */
export const storedFilesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.addContentTypeParser(
    'application/octet-stream',
    { parseAs: 'buffer', bodyLimit: files.UPLOAD_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  )
  uploadRoutes(app, ctx)
  downloadRoute(app, ctx)
}

const tags = ['projects']

const bytesOf = (body: unknown): Buffer => {
  // Other content types this server parses (JSON, text) are not an upload's bytes.
  if (!Buffer.isBuffer(body)) throw new HttpError(415, 'An upload is sent as application/octet-stream')
  return body
}
const upload = { bodyLimit: files.UPLOAD_LIMIT_BYTES }
// Any bytes: a schema without a type, which the body validator lets a Buffer through.
const uploadSchema = {
  consumes: ['application/octet-stream'],
  body: { description: 'The bytes, as application/octet-stream' },
}

/** A code bundle or any file uploaded, as bytes. */
function uploadRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/next/checkly-storage/upload-code-bundle',
    {
      ...upload,
      schema: {
        ...uploadSchema,
        tags,
        summary: "Upload a Playwright check suite's code bundle (hosted CLI)",
        description:
          'A gzipped tar of the project (at most 10 MiB, unpacking to at most 50 MiB; 400 if it is not ' +
          'one, 413 past the size). A deploy within a day names it by its key as `codeBundlePath`.',
        response: { 200: Stored },
      },
    },
    async (request) => files.storeCodeBundle(ctx, authOf(request).accountId, bytesOf(request.body)),
  )

  app.post(
    '/next/checkly-storage/upload',
    {
      ...upload,
      schema: {
        ...uploadSchema,
        tags,
        summary: 'Upload a file, such as a browser check snapshot (hosted CLI)',
        description: 'Any bytes, at most 10 MiB.',
        response: { 200: Stored },
      },
    },
    async (request) => files.storeFile(ctx, authOf(request).accountId, bytesOf(request.body)),
  )
}

/** An uploaded file read back. */
function downloadRoute(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/next/checkly-storage/download',
    {
      schema: {
        tags,
        summary: 'Download an uploaded file (hosted CLI)',
        description: 'Answers the bytes as application/octet-stream; 404 for a key the account has none of.',
        body: StrictObject({ key: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: {
            description: 'The bytes',
            // Sent as is: Fastify doesn't serialize a Buffer.
            content: {
              'application/octet-stream': {
                schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }),
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const bytes = await files.readFile(ctx, authOf(request).accountId, request.body.key)
      return reply.type('application/octet-stream').send(bytes)
    },
  )
}
