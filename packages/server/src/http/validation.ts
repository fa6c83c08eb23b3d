import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify'
import { compiledOnce, compiledOnFirstUse } from './compiled-schemas.ts'
import { type AjvIssue, badRequest, type HttpError, validationError } from './errors.ts'
import { isAgentRoute, isOpenRoute } from './route-kinds.ts'

/**
 * Bodies are validated as sent: no coercion (`5` is not `"5"`), no removal of unknown fields.
 * Query strings, path params and headers are text on the wire, so they are coerced.
 */
export function installValidators(app: FastifyInstance): void {
  const compiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyValidatorOf : coercingValidatorOf)(schema as object)
  app.setValidatorCompiler(compiler)
  // A callback hook, not an async one: it runs on every request, pings included.
  app.addHook('preValidation', (request, _reply, done) => {
    // No route: the answer is the 404 naming it, whatever was sent (a client given a wrong base URL).
    if (request.is404) return done()
    lowerCaseUuidParams(request.params)
    const route = request.routeOptions.url ?? request.url
    const agent = isAgentRoute(route)
    const bodySchema = request.routeOptions.schema?.body
    if (bodySchema === undefined) {
      // Open routes (pings, one-click unsubscribes) take any body; agents are versioned clients.
      const refused = agent || isOpenRoute(route) ? undefined : unwantedBody(request.body)
      if (refused) return done(refused)
    } else if (request.body !== null && typeof request.body === 'object') {
      lowerCaseUuids(bodySchema, request.body)
    }
    for (const [part, value] of [
      ['params', request.params],
      ['querystring', request.query],
      ['body', request.body],
    ] as const) {
      const path = nulCharacterPath(value, part, agent)
      if (path) {
        const message = 'must not contain the NUL character (U+0000)'
        return done(badRequest(`${path} ${message}`, { errors: [{ path, message }] }))
      }
    }
    done()
  })
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Ids are stored as generated, in lower case; a UUID is the same in either case (RFC 9562), so a path
 * naming one in upper case finds it. The wildcard (an artifact's file name) is taken as sent.
 */
function lowerCaseUuidParams(params: unknown): void {
  if (params === null || typeof params !== 'object') return
  const named = params as Record<string, unknown>
  for (const [name, value] of Object.entries(named)) {
    if (name !== '*' && typeof value === 'string' && UUID.test(value)) named[name] = value.toLowerCase()
  }
}

/**
 * A route that declares no body takes none: what is sent to it is refused as unknown fields are, never
 * ignored. No body at all, an empty one and `{}` or `null` (what many clients send on every POST or
 * DELETE) are no body.
 */
function unwantedBody(body: unknown): HttpError | undefined {
  if (body === undefined || body === null || body === '') return undefined
  if (typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body)) {
    const fields = Object.keys(body)
    if (fields.length === 0) return undefined
    const errors = fields.map((field) => ({ path: `body.${field}`, message: 'is not allowed' }))
    return badRequest(`${errors[0]?.path} is not allowed: this route takes no body`, { errors })
  }
  const message = 'must be empty: this route takes no body'
  return badRequest(`body ${message}`, { errors: [{ path: 'body', message }] })
}

type SchemaNode = {
  format?: string
  properties?: Record<string, SchemaNode>
  items?: SchemaNode
  anyOf?: SchemaNode[]
  oneOf?: SchemaNode[]
  allOf?: SchemaNode[]
}

/**
 * Lowers in place, as `lowerCaseUuidParams` does for paths, every UUID in `data` where `schema` says
 * `format: 'uuid'` (a component, service, check or membership id): stored ids are lower case, and an id
 * sent in upper case names the same resource. Other strings (names, payloads) are kept as sent.
 * It recurses only where the schema names properties or items, so no deeper than the schema itself.
 */
export function lowerCaseUuids(schema: unknown, data: unknown): unknown {
  if (schema === null || typeof schema !== 'object') return data
  const node = schema as SchemaNode
  if (node.format === 'uuid' && typeof data === 'string' && UUID.test(data)) return data.toLowerCase()
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) {
    data = lowerCaseUuids(branch, data)
  }
  if (data === null || typeof data !== 'object') return data
  if (Array.isArray(data)) {
    if (node.items) for (const [i, item] of data.entries()) data[i] = lowerCaseUuids(node.items, item)
    return data
  }
  const fields = data as Record<string, unknown>
  for (const [name, property] of Object.entries(node.properties ?? {})) {
    if (Object.hasOwn(fields, name)) fields[name] = lowerCaseUuids(property, fields[name])
  }
  return data
}

/**
 * Where `value` holds a string with U+0000, which PostgreSQL text can't store (a 500 otherwise).
 * A check's request payloads (TCP `data`, API `body`) may carry it: they are stored JSON-escaped. So may
 * what agents' runs found (`outcome`, a target's bytes included): its error text is stored without it.
 */
function nulCharacterPath(value: unknown, path: string, agent: boolean): string | undefined {
  // A list of what is left to look at, not recursion: a body's depth must never reach the stack's.
  const pending: [unknown, string][] = [[value, path]]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, at] = next
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return at
      continue
    }
    // An artifact's bytes.
    if (item === null || typeof item !== 'object' || Buffer.isBuffer(item)) continue
    // Reversed onto the stack, so that the first field is looked at (and named) first.
    for (const [key, field] of Object.entries(item).reverse()) {
      if (at === 'body.request' && (key === 'data' || key === 'body')) continue
      if (agent && key === 'outcome') continue
      pending.push([field, `${at}.${key}`])
    }
  }
  return undefined
}

/** Validates a body against `schema` outside routing (e.g. a partial update merged onto stored state). */
export function compileBodyValidator(schema: object) {
  const validate = compiledOnFirstUse(() => bodyAjv.compile(schema))
  return (body: unknown) => {
    if (validate(body)) return
    throw validationError('body', (validate.errors ?? []) as AjvIssue[])
  }
}

/** The most problems such a 400 lists: 100,000 wrong entries of a list would answer each. */
const MAX_ISSUES_LISTED = 20

/**
 * Validates a part of a body against `schema` as bodies are (no coercion), outside routing: answers the 400
 * naming each bad field by its path from `context` (where the part is in the body), or undefined.
 */
export function compileValidator(schema: object) {
  const validate = compiledOnFirstUse(() => bodyAjv.compile(schema))
  return (value: unknown, context: string): HttpError | undefined => {
    if (validate(value)) return undefined
    return validationError(context, ((validate.errors ?? []) as AjvIssue[]).slice(0, MAX_ISSUES_LISTED))
  }
}

function makeAjv(coerceTypes: false | 'array') {
  const ajv = new Ajv.default({
    coerceTypes,
    removeAdditional: false,
    allErrors: true,
    useDefaults: true,
    strict: false,
  })
  addFormats.default(ajv)
  return ajv
}

const bodyAjv = makeAjv(false)
/** Route validators compiled once per process (see compiled-schemas.ts), not once per app. */
const bodyValidatorOf = compiledOnce((schema) => compiledOnFirstUse(() => bodyAjv.compile(schema)))
const coercingAjv = makeAjv('array')
const coercingValidatorOf = compiledOnce((schema) => compiledOnFirstUse(() => coercingAjv.compile(schema)))
