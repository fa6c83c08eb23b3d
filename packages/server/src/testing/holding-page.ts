import { createServer, type ServerResponse } from 'node:http'
import { listenOnLoopback } from '@svc/runner/testing'

/** A page that answers only when released: a run waits on it, in flight, as long as a test needs. */
export async function holdingServer() {
  const entered = Promise.withResolvers<void>()
  const held: ServerResponse[] = []
  const server = createServer((_request, response) => {
    held.push(response)
    entered.resolve()
  })
  const { url } = await listenOnLoopback(server)
  return {
    url: `${url}/`,
    /** Resolves once a request came in. */
    inFlight: entered.promise,
    release: (body: string) => {
      for (const response of held) {
        response.setHeader('content-type', 'text/html')
        response.end(body)
      }
    },
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}
