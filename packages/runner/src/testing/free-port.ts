import { createServer } from 'node:net'

/** A free loopback port: listen on 0, read it, close. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const address = server.address()
  await new Promise((done) => server.close(done))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}
