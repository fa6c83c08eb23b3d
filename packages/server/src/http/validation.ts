import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify'
import { isAgentRoute } from '../auth/authenticate.ts'
import { type AjvIssue, badRequest, validationError } from './errors.ts'

/**
 * Bodies are validated as sent: no coercion (`5` is not `"5"`), no removal of unknown fields.
 * Query strings, path params and headers are text on the wire, so they are coerced.
 */
export function installValidators(app: FastifyInstance): void {
  const strict = makeAjv(false)
  const coercing = makeAjv('array')
  const compiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object)
  app.setValidatorCompiler(compiler)
  // A callback hook, not an async one: it runs on every request, pings included.
  app.addHook('preValidation', (request, _reply, done) => {
    lowerCaseUuidParams(request.params)
    const agent = isAgentRoute(request.routeOptions.url ?? request.url)
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
 * Where `value` holds a string with U+0000, which PostgreSQL text can't store (a 500 otherwise).
 * A check's request payloads (TCP `data`, API `body`) may carry it: they are stored JSON-escaped. So may
 * what agents' runs found (`outcome`, a target's bytes included): its error text is stored without it.
 */
function nulCharacterPath(value: unknown, path: string, agent: boolean): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined
  // An artifact's bytes.
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return undefined
  for (const [key, item] of Object.entries(value)) {
    if (path === 'body.request' && (key === 'data' || key === 'body')) continue
    if (agent && key === 'outcome') continue
    const found = nulCharacterPath(item, `${path}.${key}`, agent)
    if (found) return found
  }
  return undefined
}

/** Validates a body against `schema` outside routing (e.g. a partial update merged onto stored state). */
export function compileBodyValidator(schema: object) {
  const validate = bodyAjv.compile(schema)
  return (body: unknown) => {
    if (validate(body)) return
    throw validationError('body', (validate.errors ?? []) as AjvIssue[])
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
