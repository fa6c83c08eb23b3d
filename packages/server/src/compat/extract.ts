/**
 * Regenerates hosted-openapi.json, the facts of the hosted product's public OpenAPI document that the
 * conformance test reads: paths, methods, parameters, request and response schemas (names, types,
 * required fields, enums, limits, examples), and no prose.
 *
 *   git --git-dir=<checkly/docs clone> show HEAD:api-reference/openapi.json > /tmp/openapi.json
 *   node_modules/.bin/node packages/server/src/compat/extract.ts /tmp/openapi.json
 *   npm run format
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const METHODS = ['get', 'post', 'put', 'patch', 'delete']
/** Prose and presentation keys; everything else in a schema is a fact. */
const PROSE = new Set(['description', 'summary', 'title', 'externalDocs', 'deprecated'])

export interface HostedOperation {
  parameters: { name: string; in: string; required: boolean; schema: unknown }[]
  requestBody?: unknown
  /** Status code → the JSON schema of its answer (null when it has none). */
  responses: Record<string, unknown>
}

export interface HostedFacts {
  source: string
  operations: Record<string, HostedOperation>
  schemas: Record<string, unknown>
}

/** The hosted document has raw control characters (newlines) inside its strings, which JSON forbids. */
export function parseHostedDocument(text: string): any {
  let escaped = ''
  for (const c of text) {
    const code = c.charCodeAt(0)
    escaped += code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : c
  }
  return JSON.parse(escaped)
}

function stripProse(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripProse)
  if (!value || typeof value !== 'object') return value
  const kept: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    if (PROSE.has(key) || key.startsWith('x-')) continue
    // `properties` maps field names to schemas: a field may be called `description`.
    kept[key] =
      key === 'properties' && inner && typeof inner === 'object'
        ? Object.fromEntries(Object.entries(inner).map(([name, schema]) => [name, stripProse(schema)]))
        : stripProse(inner)
  }
  return kept
}

const jsonSchemaOf = (content: any): unknown => content?.['application/json']?.schema ?? null

export function extractFacts(doc: any): HostedFacts {
  const operations: Record<string, HostedOperation> = {}
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method]
      if (!op) continue
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => ({
        name: p.name,
        in: p.in,
        required: Boolean(p.required),
        schema: stripProse(p.schema ?? {}),
      }))
      const responses = Object.fromEntries(
        Object.entries<any>(op.responses ?? {}).map(([code, answer]) => [
          code,
          stripProse(jsonSchemaOf(answer.content)),
        ]),
      )
      const body = jsonSchemaOf(op.requestBody?.content)
      operations[`${method} ${path}`] = {
        parameters,
        ...(body ? { requestBody: stripProse(body) } : {}),
        responses,
      }
    }
  }
  return {
    source: 'checkly/docs api-reference/openapi.json',
    operations,
    schemas: stripProse(doc.components?.schemas ?? {}) as Record<string, unknown>,
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const input = process.argv[2]
  if (!input) throw new Error('usage: extract.ts <path of the hosted openapi.json>')
  const facts = extractFacts(parseHostedDocument(readFileSync(input, 'utf8')))
  const out = fileURLToPath(new URL('./hosted-openapi.json', import.meta.url))
  writeFileSync(out, `${JSON.stringify(facts, null, 2)}\n`)
  console.log(`${Object.keys(facts.operations).length} operations written to ${out}`)
}
