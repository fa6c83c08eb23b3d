import type { AddressInfo, Server } from 'node:net'
import type { TestContext } from 'node:test'

/**
 * Starts `server` (node:http, https, net, …) on a free loopback port and gives its port and
 * `http://127.0.0.1:port`. Given the test's context, it is closed when the test ends, kept-alive
 * connections too (as `startHeaderRecorder`'s `close` does), so the test doesn't wait on clients.
 */
export async function listenOnLoopback(
  server: Server,
  t?: TestContext,
): Promise<{ port: number; url: string }> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as AddressInfo
  t?.after(async () => {
    if ('closeAllConnections' in server && typeof server.closeAllConnections === 'function')
      server.closeAllConnections()
    await new Promise<void>((done) => server.close(() => done()))
  })
  return { port, url: `http://127.0.0.1:${port}` }
}
