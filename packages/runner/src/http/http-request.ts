// The request a URL or API check sends, and what of it a redirect carries on.
import { encodedHeaderValue, refusedHeaderName, refusedHeaderValue, sendableHeaders } from '@svc/core'
import type { HttpJob } from './http-job.ts'

const CONTENT_TYPES = {
  JSON: 'application/json',
  GRAPHQL: 'application/json',
  FORM: 'application/x-www-form-urlencoded',
  RAW: 'text/plain',
}

export interface PreparedRequest {
  method: string
  url: string
  /** `url` parsed. */
  target: URL
  headers: Record<string, string>
  body: string | undefined
}

export function methodOf(job: HttpJob): string {
  return job.checkType === 'URL' ? 'GET' : (job.request.method ?? 'GET')
}

export function buildRequest(job: HttpJob): PreparedRequest {
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
export function redirectedRequest(
  request: PreparedRequest,
  status: number,
  from: URL,
  to: URL,
): PreparedRequest {
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

export function encodedHeaders(headers: Record<string, string>): Record<string, string> {
  const encoded: Record<string, string> = {}
  for (const name in headers) encoded[name] = encodedHeaderValue(headers[name] as string)
  return encoded
}

const BODY_HEADERS = ['content-type', 'content-length']

const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization']

function without(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)))
}
