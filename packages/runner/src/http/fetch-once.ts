// One request over a fresh connection (direct or through a proxy), timed phase by phase.
import { EventEmitter } from 'node:events'
import { STATUS_CODES as STATUS_TEXTS } from 'node:http'
import { isIP, type Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import type { buildConnector, Client } from 'undici'
import type { HttpCheckResult, RunnerContext, TimingPhases, TlsCertificate } from '../types.ts'
import { clientCredentials } from './client-credentials.ts'
import type { HttpJob } from './http-job.ts'
import { encodedHeaders, type PreparedRequest } from './http-request.ts'
import { connectToProxy, proxyAuthorization, proxyFor, tunnelTls } from './proxy.ts'

/**
 * What `client.destroy` hands a request still pending when a check is over (none is: the request has
 * settled by then). Without one, undici builds a new error with a stack trace per check (~20 µs).
 */
const CHECK_OVER = new Error('The check is over')

export const STORED_BODY_BYTES = 64 * 1024

const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024

export interface Hop {
  response: NonNullable<HttpCheckResult['response']> & { headers: Record<string, string> }
  phases: Omit<TimingPhases, 'total'>
  tls: TlsCertificate | null
  text: string
}

let undici: typeof import('undici') | undefined
/** undici is loaded with the first HTTP request: ~3.5 MB of memory a server running no URL check never holds. */
async function loadUndici(): Promise<typeof import('undici')> {
  undici ??= await import('undici')
  return undici
}

export async function fetchOnce(
  target: URL,
  request: PreparedRequest,
  job: HttpJob,
  ctx: RunnerContext,
  timeout: RunTimeout,
): Promise<Hop> {
  const http = undici ?? (await loadUndici())
  const proxy = proxyFor(target, ctx.proxy)
  const marks = { start: performance.now(), lookup: 0, connect: 0, secure: 0, headers: 0, end: 0 }
  // Expired between hops: no request would hear it.
  if (timeout.expired) throw new FailedHop(new Error('The request timed out'), phasesOf(marks))
  let tls: TlsCertificate | null = null
  const secured = (socket: TLSSocket) => {
    marks.secure = performance.now()
    tls = certificateOf(socket, ctx.now())
  }
  const client = openClient(http, target, proxy, job, ctx, marks, secured)
  // Through a proxy, an http:// target is asked of the proxy in absolute form (https:// ones tunnel).
  const viaProxy = proxy !== null && target.protocol !== 'https:'
  try {
    const response = await client.request({
      method: request.method as 'GET',
      path: viaProxy
        ? `${target.origin}${target.pathname}${target.search}`
        : `${target.pathname}${target.search}`,
      // Encoded only here: the result shows (and scrubs) values as given, `€` rather than its bytes.
      headers: encodedHeaders(
        viaProxy ? { ...request.headers, host: target.host, ...proxyAuthorization(proxy) } : request.headers,
      ),
      body: request.body,
      signal: timeout,
    })
    marks.headers = performance.now()
    const body = await readBody(response.body)
    marks.end = performance.now()
    const headers = flattenHeaders(response.headers)
    const text = body.toString('utf8')
    return {
      response: {
        status: response.statusCode,
        statusText: statusText(response.statusCode),
        headers,
        body: body.length <= STORED_BODY_BYTES ? text : body.subarray(0, STORED_BODY_BYTES).toString('utf8'),
      },
      phases: phasesOf(marks),
      tls,
      text,
    }
  } catch (error) {
    // What was measured before the failure tells where it happened (a slow connect, a silent server).
    throw new FailedHop(error, phasesOf(marks))
  } finally {
    try {
      await client.destroy(CHECK_OVER)
    } catch {}
  }
}

type Marks = { start: number; lookup: number; connect: number; secure: number; headers: number; end: number }

/** Marks when a socket looked its host up and connected (`watchConnect`: connected only). */
function phaseWatchers(marks: Marks) {
  const watchConnect = (socket: Socket) => {
    socket.once('connect', () => {
      marks.connect = performance.now()
    })
  }
  const watch = (socket: Socket) => {
    socket.once('lookup', () => {
      marks.lookup = performance.now()
    })
    watchConnect(socket)
  }
  return { watch, watchConnect }
}

/** The address family the check asks for, as the connector takes it (none: either). */
function familyOf(job: HttpJob): { family?: 4 | 6 } {
  if (job.request.ipFamily === 'IPv6') return { family: 6 }
  if (job.request.ipFamily === 'IPv4') return { family: 4 }
  return {}
}

/** A client whose one connection marks its lookup, connect and TLS times, direct or through `proxy`. */
function openClient(
  { buildConnector, Client }: typeof import('undici'),
  target: URL,
  proxy: URL | null,
  job: HttpJob,
  ctx: RunnerContext,
  marks: Marks,
  secured: (socket: TLSSocket) => void,
): Client {
  const { watch, watchConnect } = phaseWatchers(marks)
  const credentials = clientCredentials(job, target)
  const connector = buildConnector({
    rejectUnauthorized: !job.request.skipSSL,
    ...credentials,
    ...(ctx.lookup ? { lookup: ctx.lookup } : {}),
    ...familyOf(job),
  } as buildConnector.BuildOptions)
  // Through a proxy, phases time the connection to the proxy; https:// targets get TLS inside a
  // CONNECT tunnel, http:// ones are asked of the proxy in absolute form.
  const tunnel = proxy !== null && target.protocol === 'https:'
  const viaProxy = proxy !== null && !tunnel
  return new Client(viaProxy ? proxy.origin : target.origin, {
    connect(options, callback) {
      if (proxy) {
        const socket = connectToProxy(proxy, ctx.lookup)
        watch(socket)
        if (!tunnel) {
          socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => callback(null, socket))
          socket.once('error', (error) => callback(error, null))
          return socket
        }
        const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
        tunnelTls(
          socket,
          proxy,
          {
            host,
            port: Number(target.port) || 443,
            servername: isIP(host) ? '' : host,
            rejectUnauthorized: !job.request.skipSSL,
            credentials,
          },
          (error, secure) => {
            if (error || !secure) return callback(error ?? new Error('No tunnel'), null)
            secured(secure)
            callback(null, secure)
          },
        )
        return socket
      }
      // undici's connector returns the socket it opens, though its type says void.
      const socket = connector(options, callback) as unknown as TLSSocket
      // An IP address is connected to without a lookup (and its event).
      if (isIP(options.hostname)) watchConnect(socket)
      else watch(socket)
      socket.once('secureConnect', () => secured(socket))
      return socket
    },
  })
}

/**
 * The run's time limit, as the signal undici takes: an EventEmitter costs less per request than an
 * AbortSignal, and the timer is cleared when the run is over (AbortSignal.timeout's stays until it fires).
 */
export class RunTimeout extends EventEmitter {
  expired = false
  private timer: NodeJS.Timeout
  constructor(ms: number) {
    super()
    this.timer = setTimeout(() => {
      this.expired = true
      this.emit('abort')
    }, ms)
  }
  clear() {
    clearTimeout(this.timer)
  }
}

export class FailedHop {
  cause: unknown
  phases: Hop['phases']
  constructor(cause: unknown, phases: Hop['phases']) {
    this.cause = cause
    this.phases = phases
  }
}

async function readBody(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    size += chunk.length
    if (size > MAX_DOWNLOAD_BYTES)
      throw Object.assign(new Error('Response body over 20 MB'), { code: 'BODY_TOO_LARGE' })
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

function phasesOf(marks: {
  start: number
  lookup: number
  connect: number
  secure: number
  headers: number
  end: number
}) {
  const afterDns = marks.lookup || marks.start
  const connected = marks.connect || afterDns
  const ready = marks.secure || connected
  return {
    wait: 0,
    dns: round(afterDns - marks.start),
    tcp: round(connected - afterDns),
    tls: round(marks.secure ? marks.secure - connected : 0),
    firstByte: round(marks.headers ? marks.headers - ready : 0),
    download: round(marks.end ? marks.end - marks.headers : 0),
  }
}

function certificateOf(socket: TLSSocket, now: Date): TlsCertificate | null {
  const certificate = socket.getPeerCertificate()
  if (!certificate?.valid_to) return null
  const validTo = new Date(certificate.valid_to)
  return {
    subject: String(certificate.subject?.CN ?? ''),
    issuer: String(certificate.issuer?.CN ?? ''),
    validTo: validTo.toISOString(),
    daysRemaining: Math.floor((validTo.getTime() - now.getTime()) / 86_400_000),
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const key in headers) {
    const value = headers[key]
    if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(', ') : value
  }
  return flat
}

function statusText(status: number): string {
  return STATUS_TEXTS[status] ?? ''
}

export function round(ms: number): number {
  return Math.round(ms * 100) / 100
}
