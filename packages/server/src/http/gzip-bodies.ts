import { createGunzip } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { HttpError } from './errors.ts'

/**
 * Request bodies may come gzip-encoded (`Content-Encoding: gzip`, as the hosted product's CLI sends its
 * deploys). They are decoded as they stream in, so the body size limit counts the decoded bytes and a
 * small body that inflates past it is refused (413) without being inflated whole.
 */
export function acceptGzipBodies(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase()
    if (!encoding || encoding === 'identity') return payload
    if (encoding !== 'gzip') {
      throw new HttpError(
        415,
        `Content-Encoding ${encoding} is not supported: send the body as gzip or plain`,
      )
    }
    const decoded = createGunzip() as ReturnType<typeof createGunzip> & { receivedEncodedLength: number }
    // Fastify compares the received length with Content-Length, which counts the encoded bytes.
    decoded.receivedEncodedLength = 0
    payload.on('data', (chunk: Buffer) => {
      decoded.receivedEncodedLength += chunk.length
    })
    payload.on('error', (error) => decoded.destroy(error))
    decoded.on('error', () => payload.destroy())
    return payload.pipe(decoded)
  })
}
