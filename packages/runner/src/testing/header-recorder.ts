import { createServer, type IncomingHttpHeaders } from 'node:http'
import { listenOnLoopback } from './loopback.ts'

export interface Http1Request {
  method: string
  path: string
  /** As the server read them: Node hands header bytes over as Latin-1 text. */
  headers: IncomingHttpHeaders
  body: string
}

/**
 * A real HTTP/1.1 server on loopback (`http://127.0.0.1:port`) that keeps each request's headers as
 * they arrived and, once it has ended, its body, then answers 200 `thanks`.
 */
export async function startHeaderRecorder() {
  const received: Http1Request[] = []
  const server = createServer((request, response) => {
    const recorded = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: '',
    }
    // Kept on arrival: a request whose body never ends was still sent.
    received.push(recorded)
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      recorded.body = Buffer.concat(chunks).toString('utf8')
      response.end('thanks')
    })
  })
  const { url } = await listenOnLoopback(server)
  return {
    url,
    received,
    /** Ends kept-alive connections too, so `close` doesn't wait for clients to drop theirs. */
    async close() {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}
