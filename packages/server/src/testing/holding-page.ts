import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A page that answers only when released: a run waits on it, in flight, as long as a test needs. */
export async function holdingServer() {
  const entered = Promise.withResolvers<void>()
  const held: ServerResponse[] = []
  const server = createServer((_request, response) => {
    held.push(response)
    entered.resolve()
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
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
