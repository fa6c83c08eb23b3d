import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify'
import { type AjvIssue, validationError } from './errors.ts'

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
