import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { json, type TestApp } from './test-app.ts'

export interface Schema {
  type?: string
  format?: string
  enum?: unknown[]
  nullable?: boolean
  properties?: Record<string, Schema>
}

/** One operation of the app's OpenAPI documents. */
export interface ApiOperation {
  method: string
  path: string
  /** Of the admin API: called with the admin token. */
  admin: boolean
  parameters: { in: string; name: string; required?: boolean; schema?: Schema }[]
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> }
}

/** Every operation the app documents: the API's (/openapi.json), then the admin API's. */
export async function apiOperations(t: TestApp): Promise<ApiOperation[]> {
  const operations: ApiOperation[] = []
  for (const [url, admin] of [
    ['/openapi.json', false],
    ['/admin/openapi.json', true],
  ] as const) {
    const doc = json(await t.call({ method: 'GET', url, as: null }))
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        operations.push({
          method: method.toUpperCase(),
          path,
          admin,
          parameters: op.parameters ?? [],
          requestBody: op.requestBody,
        })
      }
    }
  }
  return operations
}

/** The schema of the JSON body `op` takes, if it takes one. */
export const jsonBodySchema = (op: ApiOperation): Schema | undefined =>
  op.requestBody?.content?.['application/json']?.schema

/** A value its path parameter's `schema` accepts, so validation gets past the path. */
export function validPathValue(schema: Schema = {}): string {
  if (schema.type === 'integer' || schema.type === 'number') return '987654'
  if (schema.format === 'uuid') return randomUUID()
  return 'placeholder'
}

/** A value a query parameter's `schema` accepts: an enum's first, else as for a path parameter. */
export function validQueryValue(schema: Schema = {}): string {
  return schema.enum?.length ? String(schema.enum[0]) : validPathValue(schema)
}

/** A clock that leaps a minute each time it is read, so the rate limit never masks a route behind 429s. */
export function leapingClock(startIso = '2026-01-01T00:00:00Z'): Clock {
  let ms = Date.parse(startIso)
  return {
    now() {
      ms += 61_000
      return new Date(ms)
    },
  }
}
