import { readFileSync } from 'node:fs'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { HostedFacts, HostedOperation } from './extract.ts'

/** The facts of the hosted product's OpenAPI document (see extract.ts). */
export function loadHostedFacts(): HostedFacts {
  return JSON.parse(readFileSync(new URL('./hosted-openapi.json', import.meta.url), 'utf8'))
}

/** `get /v1/checks/{}`: an operation's key with its path parameters' names left out. */
export const shapeOf = (operation: string): string => operation.replace(/\{[^}]*\}/g, '{}')

const REF_PREFIX = '#/components/schemas/'

/**
 * svc's names for the hosted ones (issue 30: inputs in hosted names are aliases, outputs use ours):
 * wherever the hosted schema allows `PLAYWRIGHT`, svc answers `AUTOMATION`.
 */
function withOurNames(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withOurNames)
  if (!schema || typeof schema !== 'object') return schema
  const { nullable, ...rest } = schema as Record<string, unknown>
  if (nullable === true) return nullableOf(withOurNames(rest) as Record<string, unknown>)
  const renamed: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
      renamed[key] = `hosted${value}`
    } else if (key === 'enum' && Array.isArray(value) && value.includes('PLAYWRIGHT')) {
      renamed[key] = [...value, 'AUTOMATION']
    } else if (key === 'enum' && Array.isArray(value) && value.includes('eu-west-1')) {
      // The hosted product's data centers; svc serves the locations its operator configures.
    } else if (key === 'example' || key === 'default') {
      renamed[key] = value
    } else {
      renamed[key] = withOurNames(value)
    }
  }
  return renamed
}

/** OpenAPI 3.0's `nullable` in JSON Schema terms, which Ajv reads without a `type` beside it too. */
function nullableOf(schema: Record<string, unknown>): Record<string, unknown> {
  const { type, enum: values, ...rest } = schema
  if (typeof type === 'string') {
    return { ...rest, type: [type, 'null'], ...(Array.isArray(values) ? { enum: [...values, null] } : {}) }
  }
  return { anyOf: [schema, { type: 'null' }] }
}

/** Validates answers against the hosted response schemas, with svc's renames applied. */
export class HostedValidator {
  private readonly ajv: Ajv
  private readonly cache = new Map<string, ValidateFunction>()

  constructor(facts: HostedFacts) {
    this.ajv = new Ajv({ strict: false, allErrors: true, discriminator: false })
    addFormats.default(this.ajv)
    // The hosted document says `date` for timestamps its API answers as date-times (and takes both).
    this.ajv.addFormat('date', (value: string) => !Number.isNaN(Date.parse(value)))
    this.ajv.addSchema({ $id: 'hosted', components: { schemas: withOurNames(facts.schemas) } })
  }

  /** The errors of `body` against the schema of `operation`'s answer `status`; empty when it conforms. */
  errors(name: string, op: HostedOperation, status: string, body: unknown): string[] {
    const schema = op.responses[status]
    if (!schema) return []
    const key = `${name} ${status}`
    let validate = this.cache.get(key)
    if (!validate) {
      validate = this.ajv.compile(withOurNames(schema) as object)
      this.cache.set(key, validate)
    }
    if (validate(body)) return []
    return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`)
  }
}

/**
 * A hosted-style request body built from the schema's examples: each property with an example, each
 * required one (from its example, default, first enum value or a placeholder of its type).
 */
export function exampleBody(facts: HostedFacts, schema: any, depth = 0): unknown {
  if (!schema || depth > 6) return undefined
  if (schema.$ref) return exampleBody(facts, facts.schemas[schema.$ref.slice(REF_PREFIX.length)], depth + 1)
  if (schema.example !== undefined) return schema.example
  const variant = schema.allOf?.[0] ?? schema.anyOf?.[0] ?? schema.oneOf?.[0]
  if (variant && !schema.properties) return exampleBody(facts, variant, depth + 1)
  if (schema.type === 'object' || schema.properties) {
    const body: Record<string, unknown> = {}
    const required = new Set<string>(schema.required ?? [])
    for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
      const value =
        NAMED_PLACEHOLDERS[name] && !hasExample(facts, property)
          ? NAMED_PLACEHOLDERS[name]
          : exampleBody(facts, property, depth + 1)
      if (value !== undefined && (required.has(name) || hasExample(facts, property))) body[name] = value
    }
    return body
  }
  if (schema.type === 'array') {
    const item = exampleBody(facts, schema.items, depth + 1)
    return item === undefined ? [] : [item]
  }
  if (schema.default !== undefined) return schema.default
  if (schema.enum) return schema.enum[0]
  return placeholders[schema.type as string]
}

const placeholders: Record<string, unknown> = { string: 'example', integer: 1, number: 1, boolean: true }

/** Required strings without an example, by name: a target that answers nothing, so checks stay local. */
const NAMED_PLACEHOLDERS: Record<string, string> = { url: 'http://127.0.0.1:9/', hostname: '127.0.0.1' }

function hasExample(facts: HostedFacts, schema: any): boolean {
  if (!schema) return false
  if (schema.$ref) return hasExample(facts, facts.schemas[schema.$ref.slice(REF_PREFIX.length)])
  return schema.example !== undefined
}
