import { createSecureServer, type IncomingHttpHeaders, type ServerHttp2Session } from 'node:http2'
import { getCACertificates, setDefaultCACertificates } from 'node:tls'
import { selfSignedCertificate } from './certificate.ts'
import { listenOnLoopback } from './loopback.ts'

export interface Http2Request {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

/**
 * A real HTTP/2 server over TLS on loopback (`https://localhost:port`), HTTP/2 only: a client that
 * doesn't speak it fails to connect. Its self-signed certificate is trusted by this process (Node's
 * default CA set, which fetch and undici use) until `close`. It answers 200 `thanks` and keeps what came.
 */
export async function startHttp2Server() {
  const tls = selfSignedCertificate('localhost')
  const trusted = getCACertificates('default')
  setDefaultCACertificates([...trusted, tls.cert.toString()])
  const received: Http2Request[] = []
  const sessions = new Set<ServerHttp2Session>()
  const server = createSecureServer({ ...tls, allowHTTP1: false })
  server.on('session', (session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () => {
      received.push({
        method: String(headers[':method']),
        path: String(headers[':path']),
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      stream.respond({ ':status': 200, 'content-type': 'text/plain' })
      stream.end('thanks')
    })
  })
  const { port } = await listenOnLoopback(server)
  return {
    url: `https://localhost:${port}`,
    received,
    /** Ends every session (clients keep theirs open) and stops trusting the certificate. */
    async close() {
      for (const session of sessions) session.destroy()
      await new Promise<void>((done) => server.close(() => done()))
      setDefaultCACertificates(trusted)
    },
  }
}
