import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http'
import { connect } from 'node:net'
import { listenOnLoopback } from './loopback.ts'

export interface RecordedRequest {
  /** The `host:port` it went to. */
  host: string
  method: string
  path: string
  /** Request line, headers and body as forwarded to the server (for CONNECT: the request, then each chunk). */
  bytes: Buffer
}

export interface RecordingProxyOptions {
  /** Requests without these credentials (Basic, in `Proxy-Authorization`) are answered 407. */
  credentials?: { username: string; password: string }
}

export interface RecordingProxy {
  url: string
  server: Server
  /** Every request forwarded so far, in order. */
  requests: RecordedRequest[]
  /** Requests answered 407 for want of the proxy's credentials. */
  refused: RecordedRequest[]
  /** Everything forwarded towards `host` (`host:port`; every server when omitted), as one buffer. */
  sent(host?: string): Buffer
  /**
   * The next `count` requests whose path starts with `pathPrefix` are answered `status` with `body`,
   * or, with status 0, have their connection dropped (a network error).
   */
  failNext(pathPrefix: string, count: number, status: number, body: string): void
  /** The next request to exactly `path` waits before it is forwarded, until `release()`. */
  holdNext(path: string): { release(): void }
  close(): Promise<void>
}

/**
 * A small forward proxy on loopback (absolute-form requests and CONNECT tunnels) that records what
 * clients send through it, can require credentials, and can answer some requests itself with an error.
 */
export async function startRecordingProxy(options: RecordingProxyOptions = {}): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = []
  const refused: RecordedRequest[] = []
  const expected =
    options.credentials &&
    `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`
  const authorized = (request: IncomingMessage) =>
    !expected || request.headers['proxy-authorization'] === expected
  const failures: { pathPrefix: string; count: number; status: number; body: string }[] = []
  const holds: { path: string; released: Promise<void> }[] = []
  const server = createServer(async (request, response) => {
    const target = new URL(request.url ?? '/')
    const body = await readAll(request)
    const path = `${target.pathname}${target.search}`
    const recorded = {
      host: target.host,
      method: request.method ?? 'GET',
      path,
      bytes: Buffer.concat([headOf(request, `${request.method} ${path} HTTP/1.1`), body]),
    }
    if (!authorized(request)) {
      refused.push(recorded)
      response.writeHead(407, PROXY_AUTHENTICATE)
      response.end()
      return
    }
    requests.push(recorded)
    const failure = failures.find((f) => f.count > 0 && target.pathname.startsWith(f.pathPrefix))
    if (failure) {
      failure.count--
      if (failure.status === 0) {
        request.socket.destroy()
        return
      }
      response.writeHead(failure.status, { 'content-type': 'application/json' })
      response.end(failure.body)
      return
    }
    const hold = holds.findIndex((h) => h.path === target.pathname)
    if (hold >= 0) await holds.splice(hold, 1)[0]?.released
    const headers = { ...request.headers }
    delete headers['proxy-connection']
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: request.method, path, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      },
    )
    upstream.on('error', () => response.destroy())
    // A client that gives up (an aborted long-poll) closes the upstream request too.
    response.on('close', () => upstream.destroy())
    upstream.end(body)
  })
  server.on('connect', (request, socket, head) => {
    const recorded = {
      host: request.url ?? '',
      method: 'CONNECT',
      path: '',
      bytes: headOf(request, `CONNECT ${request.url} HTTP/1.1`),
    }
    if (!authorized(request)) {
      refused.push(recorded)
      const headers = Object.entries(PROXY_AUTHENTICATE).map(([name, value]) => `${name}: ${value}\r\n`)
      socket.end(`HTTP/1.1 407 Proxy Authentication Required\r\n${headers.join('')}\r\n`)
      return
    }
    requests.push(recorded)
    const [host, port] = (request.url ?? '').split(':')
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    socket.on('data', (chunk: Buffer) =>
      requests.push({ host: request.url ?? '', method: 'CONNECT', path: '', bytes: chunk }),
    )
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  const { url } = await listenOnLoopback(server)
  return {
    url,
    server,
    requests,
    refused,
    sent: (host) => Buffer.concat(requests.filter((r) => !host || r.host === host).map((r) => r.bytes)),
    failNext(pathPrefix, count, status, body) {
      failures.push({ pathPrefix, count, status, body })
    },
    holdNext(path) {
      const { promise, resolve } = Promise.withResolvers<void>()
      holds.push({ path, released: promise })
      return { release: () => resolve() }
    },
    async close() {
      server.closeAllConnections()
      await new Promise((done) => server.close(done))
    },
  }
}

const PROXY_AUTHENTICATE = {
  'proxy-authenticate': 'Basic realm="recording proxy"',
  'content-length': '0',
  connection: 'close',
}

function headOf(request: IncomingMessage, line: string): Buffer {
  const head = [line]
  for (let i = 0; i < request.rawHeaders.length; i += 2)
    head.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`)
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n`)
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
