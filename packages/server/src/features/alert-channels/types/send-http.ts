import {
  cachedAlertTemplate,
  type EscapeContext,
  encodedHeaderValue,
  type RenderOptions,
  type TemplateVariables,
  withoutControlCharacters,
} from '@svc/core'
import type { Dispatcher } from 'undici'
import type { ServiceContext } from '../../../context.ts'
import { type AttemptOutcome, PermanentFailure } from './channel-type.ts'

export const RESPONSE_BODY_LIMIT = 2048
export const USER_AGENT = 'svc-alerts/1'

export interface OutgoingRequest {
  url: string
  method: string
  headers: Record<string, string>
  body: Buffer | string | undefined
}

export interface AnswerReading {
  /** The receiver's own words for a refusal (status above 399), added to `HTTP <status>`. */
  reason?: (body: string) => string | null
  /** A refusal a receiver answers with 2xx (Slack's Web API: `{"ok": false}`); null when accepted. */
  refusal?: (body: string) => string | null
}

/**
 * One HTTP request through undici's request (fetch drops a `Host` header silently, and a channel may
 * need one: a receiver reached by IP behind a virtual host). Redirects are not followed.
 */
export async function httpAttempt(
  ctx: ServiceContext,
  request: OutgoingRequest,
  reading: AnswerReading = {},
): Promise<AttemptOutcome> {
  try {
    const { url, headers } = credentialsAsHeader(request.url, request.headers)
    // undici is loaded with the first webhook: ~3.5 MB of memory a server sending none never holds.
    const { request: undiciRequest } = await import('undici')
    const response = await undiciRequest(url, {
      method: request.method as Dispatcher.HttpMethod,
      headers,
      body: request.body,
      signal: AbortSignal.timeout(ctx.alerting?.timeoutMs ?? 10_000),
    })
    const status = response.statusCode
    const body = await bodyStart(response.body)
    if (status >= 400) {
      const reason = reading.reason?.(body)
      return {
        ok: false,
        statusCode: status,
        body,
        error: reason ? `HTTP ${status}: ${reason}` : `HTTP ${status}`,
      }
    }
    const refusal = reading.refusal?.(body) ?? null
    return { ok: refusal === null, statusCode: status, body, error: refusal }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    const name = (error as { name?: string }).name
    if (name === 'TimeoutError' || name === 'AbortError') return failure('timed out')
    if (typeof code === 'string' && code.startsWith('E') && !code.startsWith('ERR_')) return failure(code)
    return failure(error instanceof Error ? error.message : String(error))
  }
}

/**
 * What the JSON APIs svc sends to say when they refuse: `message`, `description`, `error` (text or
 * `{message}`), `errors` (texts or `{message}`), joined; else the body's first line. At most 300 characters.
 */
export function receiverReason(body: string): string | null {
  const short = (text: string) => (text.length > 300 ? `${text.slice(0, 297)}...` : text)
  const textOf = (value: unknown): string | null =>
    typeof value === 'string' && value.trim() !== ''
      ? value.trim()
      : typeof value === 'object' &&
          value !== null &&
          typeof (value as { message?: unknown }).message === 'string'
        ? (value as { message: string }).message
        : null
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    const line = body.trim().split('\n')[0]?.trim()
    return line ? short(line) : null
  }
  if (typeof parsed !== 'object' || parsed === null) return textOf(parsed)
  const answer = parsed as Record<string, unknown>
  const errors = Array.isArray(answer.errors) ? answer.errors.map(textOf).filter((e) => e !== null) : []
  const parts = [textOf(answer.message) ?? textOf(answer.description) ?? textOf(answer.error), ...errors]
  const words = parts.filter((part): part is string => part !== null)
  return words.length > 0 ? short(words.join(': ')) : null
}

/**
 * The first 2 KiB of a response body, for the record. The status has decided the attempt already: a
 * body that never ends (or stops after a timeout) keeps what came, and a huge one is not read past it.
 */
async function bodyStart(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer)
      size += (chunk as Buffer).byteLength
      if (size >= RESPONSE_BODY_LIMIT) break
    }
  } catch {
    // Timed out or cut off mid-body: what came is the record.
  } finally {
    body.destroy()
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_BODY_LIMIT)
}

export function failure(error: string): AttemptOutcome {
  return { ok: false, statusCode: null, body: null, error }
}

/** fetch refuses a URL with credentials; browsers and curl send them as Basic authorization. */
function credentialsAsHeader(text: string, headers: Record<string, string>) {
  const url = new URL(text)
  if (!url.username && !url.password) return { url: text, headers }
  const credentials = `${decodedUserinfo(url.username)}:${decodedUserinfo(url.password)}`
  url.username = ''
  url.password = ''
  return {
    url: url.toString(),
    headers: { authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`, ...headers },
  }
}

function decodedUserinfo(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Renders a channel template; one that fails (too much output, a helper's error) fails the same way again. */
export function rendered(
  source: string,
  variables: TemplateVariables,
  context: EscapeContext,
  options: RenderOptions,
): string {
  try {
    return cachedAlertTemplate(source).render(variables, context, options)
  } catch (error) {
    throw new PermanentFailure(
      `the template does not render: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

/** The rendered URL; one that is not a URL (say, a variable changed since the save) is a permanent failure. */
export function parsedUrl(text: string): URL {
  if (!URL.canParse(text)) throw new PermanentFailure(`the URL template renders no URL: ${text}`)
  return new URL(text)
}

/**
 * Control characters (refused at save; from a variable, or stored before, they failed every attempt) go
 * as spaces, tabs stay; the text goes as its UTF-8 bytes.
 */
export function headerValue(text: string): string {
  return encodedHeaderValue(withoutControlCharacters(text))
}

/**
 * Sent compacted, parsed and re-serialized (API.md), so receivers that verify the signature over
 * `JSON.stringify(parsedBody)` agree with the one over the bytes sent. The price: a number JSON.parse can't
 * hold exactly (an integer above 2^53) arrives as JSON.parse reads it. Text that is not JSON goes as is.
 */
export function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text))
  } catch {
    return text
  }
}

/** A JSON POST to a receiver's API, as svc's own channel types send it. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): OutgoingRequest {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
    body: JSON.stringify(body),
  }
}
