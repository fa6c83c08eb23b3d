import { STATUS_CODES } from 'node:http'
import {
  DASHBOARD_PAGE_URL_PATTERN,
  DASHBOARD_SLUG_PATTERN,
  NOT_BLANK_PATTERN,
  THEME_COLOR_PATTERN,
} from '@svc/core'
import { isForeignKeyViolation, isStoreBusy, isTransactionConflict, isUniqueViolation } from '@svc/db'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { savedPartOf } from './request-commits.ts'

/** A failure the client caused or may see; anything else thrown is a bug and answers a bare 500. */
export class HttpError extends Error {
  readonly statusCode: number
  readonly attributes: Record<string, unknown> | undefined
  readonly headers: Record<string, string>

  constructor(
    statusCode: number,
    message: string,
    options: { attributes?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message)
    this.statusCode = statusCode
    this.attributes = options.attributes
    this.headers = options.headers ?? {}
  }
}

/** The longest path parameter the router takes (longer is 414). */
export const MAX_PARAM_LENGTH = 500

export const badRequest = (message: string, attributes?: Record<string, unknown>) =>
  new HttpError(400, message, { attributes })
export const unauthorized = (message = 'Bad Token') => new HttpError(401, message, { attributes: {} })
export const forbidden = (message = 'Forbidden') => new HttpError(403, message)
export const notFound = (message = 'Not Found') => new HttpError(404, message)
export const conflict = (message: string) => new HttpError(409, message)

/** A 409 about one field (an address another holds), named in `errors` too so a form shows it beside it. */
export function conflictOn(path: string, message: string) {
  return new HttpError(409, `${path} ${message}`, { attributes: { errors: [{ path, message }] } })
}

export function errorBody(statusCode: number, message: string, attributes?: Record<string, unknown>) {
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message,
    ...(attributes === undefined ? {} : { attributes }),
  }
}

export interface AjvIssue {
  instancePath: string
  schemaPath?: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

/** `body.frequency`-style path of one validation issue, naming the missing or unknown property itself. */
function issuePath(context: string, issue: AjvIssue): string {
  const segments = issue.instancePath.split('/').slice(1).map(decodePointer)
  const property = issue.params.missingProperty ?? issue.params.additionalProperty
  if (typeof property === 'string') segments.push(property)
  return [context, ...segments].join('.')
}

function decodePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~')
}

/** Patterns whose regex means nothing to a reader, said in words. */
const PATTERN_MESSAGES = new Map<unknown, string>([
  [NOT_BLANK_PATTERN, 'must not be blank'],
  [THEME_COLOR_PATTERN, 'must be a colour: #RRGGBB, a colour name, rgb() or hsl()'],
  [DASHBOARD_SLUG_PATTERN, 'must be lowercase letters, digits and -, not starting or ending with -'],
  [DASHBOARD_PAGE_URL_PATTERN, 'must be an http:// or https:// URL'],
])

function issueMessage(issue: AjvIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not allowed'
  if (issue.keyword === 'required') return 'is required'
  const patternMessage = issue.keyword === 'pattern' && PATTERN_MESSAGES.get(issue.params.pattern)
  if (patternMessage) return patternMessage
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
    return `must be one of ${issue.params.allowedValues.map(String).join(', ')}`
  }
  return issue.message ?? 'is invalid'
}

/** The schema node an issue comes from (`#/properties/frequency` of `#/properties/frequency/enum`). */
const nodeOf = (issue: AjvIssue) => `${issue.instancePath} ${issue.schemaPath?.replace(/\/[^/]*$/, '')}`

export function validationError(context: string, issues: AjvIssue[]): HttpError {
  // A value of the wrong type is one issue: the enum its schema also holds ("10" for 10) adds only
  // noise. Another schema's rules (a union's other branch) still count.
  const mistyped = new Set(issues.filter((i) => i.keyword === 'type' && i.schemaPath).map(nodeOf))
  // An empty name is too short; that it is also blank says the same thing again.
  const tooShort = new Set(issues.filter((i) => i.keyword === 'minLength' && i.schemaPath).map(nodeOf))
  const blank = (issue: AjvIssue) => issue.keyword === 'pattern' && issue.params.pattern === NOT_BLANK_PATTERN
  const errors = issues
    .filter((issue) => issue.keyword === 'type' || !mistyped.has(nodeOf(issue)))
    .filter((issue) => !(blank(issue) && tooShort.has(nodeOf(issue))))
    .map((issue) => ({ path: issuePath(context, issue), message: issueMessage(issue) }))
  const first = errors[0] ?? { path: context, message: 'is invalid' }
  return badRequest(`${first.path} ${first.message}`, { errors })
}

/**
 * How long a client waits before it tries again after a 503 of a busy store: a writer that held the
 * store for all of the busy timeout (5 s) is in a long transaction.
 */
const STORE_BUSY_RETRY_AFTER_SECONDS = 5

/** The one error handler: every error leaves in the spec's shape, and a 5xx says nothing internal. */
/** A 400 for one field: `path message`, also as the only entry of `errors`. */
export function invalid(path: string, message: string) {
  return badRequest(`${path} ${message}`, { errors: [{ path, message }] })
}

export function handleError(error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) {
  // SQLite waited out its busy timeout for another process's write (a runner sharing the file): the
  // write failed and may be sent again; not a bug, so no 500.
  if (isStoreBusy(error)) {
    request.log.warn({ err: error }, 'the store was busy with another write')
    const saved = savedPartOf(request)
      ? `${PART_SAVED}; see what it changed before sending it again`
      : 'nothing was saved; try again in a few seconds'
    return reply
      .header('retry-after', String(STORE_BUSY_RETRY_AFTER_SECONDS))
      .status(503)
      .send(errorBody(503, `The store is busy: ${saved}`))
  }
  const client = clientErrorOf(error, request)
  if (!client) {
    request.log.error({ err: error }, 'request failed')
    return reply.status(500).send(errorBody(500, 'Internal Server Error'))
  }
  if (storeConflictOf(error)) request.log.warn({ err: error }, 'request conflicted with a concurrent change')
  const { statusCode, message, attributes, headers } = client
  return reply
    .headers(headers)
    .status(statusCode)
    .send(errorBody(statusCode, message, attributes))
}

/** What a client may see of an error it caused. */
export interface ClientError {
  statusCode: number
  message: string
  attributes?: Record<string, unknown>
  headers: Record<string, string>
}

/**
 * The client's part of an error (validation, HttpError, Fastify's 4xx, a store conflict) of `request`;
 * undefined for a 5xx.
 */
export function clientErrorOf(
  error: FastifyError | HttpError,
  request?: FastifyRequest,
): ClientError | undefined {
  const conflict = storeConflictOf(error)
  if (conflict) {
    const saved = savedPartOf(request)
      ? PART_SAVED
      : `nothing was saved${conflict.retry ? '; try again' : ''}`
    return { statusCode: 409, message: `${conflict.cause}: ${saved}`, headers: {} }
  }
  if ('validation' in error && error.validation) {
    const { statusCode, message, attributes } = validationError(
      error.validationContext ?? 'request',
      error.validation as AjvIssue[],
    )
    return { statusCode, message, attributes, headers: {} }
  }
  const statusCode = error.statusCode ?? 500
  if (statusCode >= 500 || !(statusCode >= 400)) return undefined
  if (error instanceof HttpError)
    return { statusCode, message: error.message, attributes: error.attributes, headers: error.headers }
  // Fastify's own client errors (bad JSON, body too large, unsupported media type): keep the status and a plain message.
  const attributes = statusCode === 401 ? {} : undefined
  return { statusCode, message: fastifyClientMessage(error), attributes, headers: {} }
}

/**
 * What a request that saves in steps (see request-commits.ts) says when a step fails after another
 * committed: the client can't just send it again.
 */
const PART_SAVED = 'the request stopped part way, after some of its changes were saved'

/**
 * A constraint of the store that a request broke because another changed the store at the same time
 * (a service that checks what it can answers more precisely before): a row it names was deleted after it
 * was found, a unique key it takes was taken after it was found free, or PostgreSQL ended its
 * transaction to break a deadlock with another. Writes that go together are one transaction, so the
 * failed one saved nothing (an earlier step of a request saving in steps stays saved). Undefined for
 * anything else.
 */
function storeConflictOf(error: unknown): { cause: string; retry?: boolean } | undefined {
  if (error instanceof HttpError) return undefined
  if (isForeignKeyViolation(error))
    return { cause: 'A resource this request refers to was deleted at the same time' }
  if (isUniqueViolation(error))
    return { cause: 'A resource with the same unique key was saved at the same time' }
  if (isTransactionConflict(error))
    return { cause: 'A change made at the same time got in the way', retry: true }
  return undefined
}

function fastifyClientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Body is not valid JSON'
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Body cannot be empty when content-type is set to application/json'
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large'
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported media type'
    default:
      return error.message
  }
}

/**
 * Errors the router raises before any route runs (Fastify's `frameworkErrors`): they leave in the
 * spec's shape too, without echoing the URL.
 */
export function handleFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply
      .status(414)
      .send(errorBody(414, `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`))
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return reply.status(400).send(errorBody(400, 'The URL path is not validly percent-encoded'))
  }
  const statusCode = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 400
  return reply.status(statusCode).send(errorBody(statusCode, STATUS_CODES[statusCode] ?? 'Bad Request'))
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply) {
  return reply
    .status(404)
    .send(errorBody(404, `Route ${request.method} ${request.url.split('?')[0]} not found`))
}
