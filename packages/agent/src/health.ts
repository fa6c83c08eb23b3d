import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Readiness = 'ready' | 'starting' | 'shutting down' | 'not polling'

/**
 * The spec's probes: `/-/readiness` 200 when registered and polling, 503 otherwise (from the moment
 * shutdown starts); `/-/liveness` and `/health` 200 whenever the process serves, shutdown included.
 */
export async function startHealthServer(
  port: number,
  readiness: () => Readiness,
): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    const send = (status: number, body: Record<string, string>) => {
      const text = JSON.stringify(body)
      response.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        'cache-control': 'no-store',
      })
      response.end(request.method === 'HEAD' ? undefined : text)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return send(405, { status: 'method not allowed' })
    if (path === '/-/readiness') {
      const state = readiness()
      return send(state === 'ready' ? 200 : 503, { status: state })
    }
    if (path === '/-/liveness' || path === '/health') return send(200, { status: 'ok' })
    send(404, { status: 'not found' })
  })
  // Probes are short; don't let an idle keep-alive connection hold the process at exit.
  server.keepAliveTimeout = 1_000
  await new Promise<void>((listening, fail) => {
    server.once('error', fail)
    server.listen(port, () => {
      server.off('error', fail)
      listening()
    })
  })
  return { server, port: (server.address() as AddressInfo).port }
}
