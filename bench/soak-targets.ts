import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import dns2 from 'dns2'
import { freePort } from '../packages/server/src/testing/server-process.ts'

/** What the soak's checks run against, all on loopback in the bench's own process. */
export interface SoakTargets {
  httpOrigin: string
  tcpPort: number
  dnsPort: number
  receiverUrl: string
  /** Webhook requests the receiver answered 2xx, and those it failed on purpose. */
  received: { ok: number; failed: number }
  close(): Promise<void>
}

/**
 * An HTTP site (`/ok`, and `/flaky` failing every other `flapMinutes`, so that checks open and close
 * alerts), a TCP port that accepts and closes, a DNS server answering A records, and a webhook receiver
 * that fails `failShare` of the deliveries.
 */
export async function startSoakTargets(options: {
  flapMinutes: number
  failShare: number
}): Promise<SoakTargets> {
  const site = createHttpServer((request, response) => {
    const failing = Math.floor(Date.now() / (options.flapMinutes * 60_000)) % 2 === 1
    response.statusCode = request.url === '/flaky' && failing ? 500 : 200
    response.setHeader('content-type', 'text/html')
    response.end('<!doctype html><title>soak</title><h1>Hello</h1>')
  })
  const tcp = createTcpServer((socket) => socket.end())
  const received = { ok: 0, failed: 0 }
  const receiver = createHttpServer((request, response) => {
    request.resume()
    request.on('end', () => {
      const fail = Math.random() < options.failShare
      received[fail ? 'failed' : 'ok']++
      response.statusCode = fail ? 503 : 200
      response.end()
    })
  })
  const dns = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request)
      const name = request.questions[0]?.name ?? 'soak.test'
      const record = {
        name,
        type: dns2.Packet.TYPE.A,
        class: dns2.Packet.CLASS.IN,
        ttl: 60,
        address: '127.0.0.1',
      }
      response.answers.push(record as (typeof response.answers)[number])
      send(response)
    },
  })
  const dnsPort = await freePort()
  await dns.listen({
    udp: { port: dnsPort, address: '127.0.0.1' },
    tcp: { port: dnsPort, address: '127.0.0.1' },
  })
  const listen = (server: Server | ReturnType<typeof createTcpServer>) =>
    new Promise<number>((done) =>
      server.listen(0, '127.0.0.1', () => done((server.address() as { port: number }).port)),
    )
  const [sitePort, tcpPort, receiverPort] = [await listen(site), await listen(tcp), await listen(receiver)]
  return {
    httpOrigin: `http://127.0.0.1:${sitePort}`,
    tcpPort,
    dnsPort,
    receiverUrl: `http://127.0.0.1:${receiverPort}/hook`,
    received,
    async close() {
      site.closeAllConnections()
      receiver.closeAllConnections()
      await Promise.all([
        new Promise((done) => site.close(done)),
        new Promise((done) => tcp.close(done)),
        new Promise((done) => receiver.close(done)),
        dns.close(),
      ])
    },
  }
}
