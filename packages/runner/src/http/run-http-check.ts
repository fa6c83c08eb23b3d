import { EventEmitter } from 'node:events'
import { STATUS_CODES as STATUS_TEXTS } from 'node:http'
import { isIP, type Socket } from 'node:net'
import { type ConnectionOptions, getCACertificates, type TLSSocket } from 'node:tls'
import {
  type Assertion,
  type AssertionOutcome,
  type ClientCertificateMaterial,
  encodedHeaderValue,
  evaluateAssertion,
  hostMatchesPattern,
  refusedHeaderName,
  refusedHeaderValue,
  sendableHeaders,
} from '@svc/core'
import { buildConnector, Client } from 'undici'
import { describeAssertionFailure } from '../describe-assertion.ts'
import type {
  HttpCheckResult,
  RunError,
  RunnerContext,
  RunVerdict,
  TimingPhases,
  TlsCertificate,
} from '../types.ts'
import { timedVerdict } from '../types.ts'
import { classifyNetworkError } from './classify-error.ts'
import { connectToProxy, proxyAuthorization, proxyFor, tunnelTls } from './proxy.ts'

export interface HttpJob {
  checkType: 'API' | 'URL'
  request: {
    method?: string
    url: string
    headers?: { key: string; value: string }[]
    queryParameters?: { key: string; value: string }[]
    body?: string
    bodyType?: 'JSON' | 'FORM' | 'RAW' | 'GRAPHQL' | 'NONE'
    basicAuth?: { username: string; password: string } | null
    followRedirects?: boolean
    skipSSL?: boolean
    ipFamily?: 'IPv4' | 'IPv6'
    assertions?: Assertion[]
  }
  degradedResponseTime: number
  maxResponseTime: number
  shouldFail: boolean
  /** Set by the server on an API check whose host matches one of its account's client certificates. */
  clientCertificate?: ClientCertificateMaterial | null
}

export type HttpRunResult = RunVerdict & { checkResult: HttpCheckResult }

const MAX_REDIRECTS = 10
/**
 * What `client.destroy` hands a request still pending when a check is over (none is: the request has
 * settled by then). Without one, undici builds a new error with a stack trace per check (~20 µs).
 */
const CHECK_OVER = new Error('The check is over')
const STORED_BODY_BYTES = 64 * 1024
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
const CONTENT_TYPES = {
  JSON: 'application/json',
  GRAPHQL: 'application/json',
  FORM: 'application/x-www-form-urlencoded',
  RAW: 'text/plain',
}

/** Runs a URL or API check once: a fresh connection, measured phase by phase. Never throws. */
export async function runHttpCheck(job: HttpJob, ctx: RunnerContext): Promise<HttpRunResult> {
  const startedAt = ctx.now()
  const started = performance.now()
  const timeout = new RunTimeout(job.maxResponseTime)
  let request: PreparedRequest | undefined
  let hop: Hop | undefined
  let failedPhases: Hop['phases'] | undefined
  let error: RunError | null = null
  try {
    // Inside: a URL that doesn't parse (a space, a variable's value) is a failed run, not a throw.
    request = buildRequest(job)
    let url = request.target
    let sent = request
    for (let redirects = 0; ; redirects++) {
      hop = await fetchOnce(url, sent, job, ctx, timeout)
      const location = hop.response.headers.location
      const redirected = hop.response.status >= 300 && hop.response.status < 400 && location
      if (!redirected || job.request.followRedirects === false) break
      if (redirects >= MAX_REDIRECTS) {
        error = { type: 'NETWORK_ERROR', message: `More than ${MAX_REDIRECTS} redirects` }
        break
      }
      const next = new URL(location, url)
      sent = redirectedRequest(sent, hop.response.status, url, next)
      url = next
    }
  } catch (caught) {
    const failed = caught instanceof FailedHop
    error = classifyNetworkError(failed ? caught.cause : caught, timeout.expired)
    if (failed) failedPhases = caught.phases
  } finally {
    timeout.clear()
  }
  const total = performance.now() - started
  const assertions = hop && !error ? evaluateAssertions(job, hop, total) : []
  const failedAssertion = assertions.find((a) => !a.passed)
  if (!error && failedAssertion)
    error = { type: 'ASSERTION', message: describeAssertionFailure(failedAssertion) }
  if (!error && hop && !job.request.assertions?.length && hop.response.status >= 400) {
    error = { type: 'ASSERTION', message: `Status code ${hop.response.status} is not below 400` }
  }
  // shouldFail validates error statuses: a run that got no response (refused, timed out, TLS) still fails.
  const invertible = hop !== undefined && (error === null || error.type === 'ASSERTION')
  const verdict = timedVerdict(job, { error, responseTime: total, startedAt, invertible }, ctx)
  const phases = failedPhases ?? hop?.phases
  return {
    ...verdict,
    checkResult: {
      request: request
        ? { method: request.method, url: request.url, headers: request.headers }
        : { method: methodOf(job), url: job.request.url, headers: {} },
      response: hop?.response ?? null,
      timingPhases: phases ? { ...phases, total: round(total) } : emptyPhases(total),
      assertions,
      tls: hop?.tls ?? null,
    },
  }
}

interface PreparedRequest {
  method: string
  url: string
  /** `url` parsed. */
  target: URL
  headers: Record<string, string>
  body: string | undefined
}

function methodOf(job: HttpJob): string {
  return job.checkType === 'URL' ? 'GET' : (job.request.method ?? 'GET')
}

function buildRequest(job: HttpJob): PreparedRequest {
  const method = methodOf(job)
  const url = new URL(job.request.url)
  const parameters = job.request.queryParameters
  // Appended as text: going through `url.searchParams` would re-encode the URL's own query (%20 to +,
  // `flag` to `flag=`), which signed URLs and picky servers don't take.
  if (parameters?.length) {
    const added = new URLSearchParams(parameters.map(({ key, value }) => [key, value])).toString()
    url.search = url.search ? `${url.search}&${added}` : added
  }
  const headers: Record<string, string> = { 'user-agent': 'svc-monitor/0.1' }
  const bodyType = job.request.bodyType ?? 'NONE'
  const body = bodyType === 'NONE' || job.checkType === 'URL' ? undefined : (job.request.body ?? '')
  if (body !== undefined && bodyType in CONTENT_TYPES)
    headers['content-type'] = CONTENT_TYPES[bodyType as keyof typeof CONTENT_TYPES]
  // An empty `{username: '', password: ''}` (a form left blank, a check exported from elsewhere) is none.
  if (job.request.basicAuth && (job.request.basicAuth.username || job.request.basicAuth.password)) {
    const { username, password } = job.request.basicAuth
    headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`
  }
  const given = job.request.headers ?? []
  for (const { key } of given) {
    // Such a name can't go out at all, and leaving it out would send another request than the one set.
    const malformed = refusedHeaderName(key)
    if (malformed) throw new Error(`Request header ${malformed.message}`)
  }
  // The rest a save refuses only svc's HTTP client manages (framing, connection options): a check stored
  // before that rule runs without them rather than fail every run.
  for (const { key, value } of sendableHeaders(given)) {
    // A control character, from a variable's value (or stored before the save refused it), can't go out.
    const unsendable = refusedHeaderValue(key, value)
    if (unsendable) throw new Error(`Request header ${unsendable.message}`)
    headers[key.toLowerCase()] = value
  }
  return { method, url: url.toString(), target: url, headers, body }
}

/**
 * What a redirect asks for, as fetch and curl do: a 303, or a 301/302 answering a POST, is a GET without
 * the body. Credentials don't go on to another host, nor from https to http.
 */
function redirectedRequest(request: PreparedRequest, status: number, from: URL, to: URL): PreparedRequest {
  let next = request
  if (
    (status === 303 && request.method !== 'HEAD') ||
    ((status === 301 || status === 302) && request.method === 'POST')
  ) {
    next = { ...next, method: 'GET', body: undefined, headers: without(next.headers, BODY_HEADERS) }
  }
  if (to.host !== from.host || (from.protocol === 'https:' && to.protocol !== 'https:')) {
    next = { ...next, headers: without(next.headers, CREDENTIAL_HEADERS) }
  }
  return next
}

function encodedHeaders(headers: Record<string, string>): Record<string, string> {
  const encoded: Record<string, string> = {}
  for (const name in headers) encoded[name] = encodedHeaderValue(headers[name] as string)
  return encoded
}

const BODY_HEADERS = ['content-type', 'content-length']
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization']

function without(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)))
}

interface Hop {
  response: NonNullable<HttpCheckResult['response']> & { headers: Record<string, string> }
  phases: Omit<TimingPhases, 'total'>
  tls: TlsCertificate | null
  text: string
}

async function fetchOnce(
  target: URL,
  request: PreparedRequest,
  job: HttpJob,
  ctx: RunnerContext,
  timeout: RunTimeout,
): Promise<Hop> {
  const proxy = proxyFor(target, ctx.proxy)
  const marks = { start: performance.now(), lookup: 0, connect: 0, secure: 0, headers: 0, end: 0 }
  // Expired between hops: no request would hear it.
  if (timeout.expired) throw new FailedHop(new Error('The request timed out'), phasesOf(marks))
  let tls: TlsCertificate | null = null
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
  const secured = (socket: TLSSocket) => {
    marks.secure = performance.now()
    tls = certificateOf(socket, ctx.now())
  }
  const credentials = clientCredentials(job, target)
  const connector = buildConnector({
    rejectUnauthorized: !job.request.skipSSL,
    ...credentials,
    ...(ctx.lookup ? { lookup: ctx.lookup } : {}),
    ...(job.request.ipFamily === 'IPv6'
      ? { family: 6 }
      : job.request.ipFamily === 'IPv4'
        ? { family: 4 }
        : {}),
  } as buildConnector.BuildOptions)
  // Through a proxy, phases time the connection to the proxy; https:// targets get TLS inside a
  // CONNECT tunnel, http:// ones are asked of the proxy in absolute form.
  const tunnel = proxy !== null && target.protocol === 'https:'
  const viaProxy = proxy !== null && !tunnel
  const client = new Client(viaProxy ? proxy.origin : target.origin, {
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

/**
 * The TLS options presenting the job's client certificate, for an https:// hop to a host it matches only:
 * a redirect to another host gets none, as it gets no credentials. Its CA is trusted besides the system's.
 */
function clientCredentials(job: HttpJob, target: URL): ConnectionOptions {
  const certificate = job.clientCertificate
  if (!certificate || target.protocol !== 'https:') return {}
  if (!hostMatchesPattern(certificate.host, target.hostname)) return {}
  return {
    cert: certificate.cert,
    key: certificate.key,
    ...(certificate.passphrase ? { passphrase: certificate.passphrase } : {}),
    ...(certificate.ca ? { ca: [...getCACertificates('default'), certificate.ca] } : {}),
  }
}

/**
 * The run's time limit, as the signal undici takes: an EventEmitter costs less per request than an
 * AbortSignal, and the timer is cleared when the run is over (AbortSignal.timeout's stays until it fires).
 */
class RunTimeout extends EventEmitter {
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

class FailedHop {
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

function evaluateAssertions(job: HttpJob, hop: Hop, total: number): AssertionOutcome[] {
  const assertions = job.request.assertions ?? []
  if (assertions.length === 0) return []
  // Parsed only when asked for: a body that isn't JSON costs a thrown SyntaxError per run.
  const json = assertions.some((a) => a.source === 'JSON_BODY') ? parseJson(hop.text) : undefined
  const sources: Record<string, unknown> = {
    STATUS_CODE: hop.response.status,
    JSON_BODY: json,
    TEXT_BODY: hop.text,
    HEADERS: hop.response.headers,
    RESPONSE_TIME: Math.round(total),
  }
  return assertions.map((assertion) => {
    // No JSON parses to undefined: an HTML error page must not pass `$.error IS_NULL`.
    if (assertion.source === 'JSON_BODY' && json === undefined)
      return { ...assertion, actual: null, passed: false, error: 'The response body is not JSON' }
    // Header names are case-insensitive, and the response's are lowercase.
    if (assertion.source === 'HEADERS' && !assertion.property && assertion.comparison.endsWith('HAS_KEY')) {
      const target = assertion.target?.toLowerCase()
      return {
        ...evaluateAssertion({ ...assertion, target }, hop.response.headers),
        target: assertion.target,
      }
    }
    return evaluateAssertion(assertion, sources[assertion.source])
  })
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const key in headers) {
    const value = headers[key]
    if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(', ') : value
  }
  return flat
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function statusText(status: number): string {
  return STATUS_TEXTS[status] ?? ''
}

function emptyPhases(total: number): TimingPhases {
  return { wait: 0, dns: 0, tcp: 0, tls: 0, firstByte: 0, download: 0, total: round(total) }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100
}
