import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import fc from 'fast-check'
import type { InjectOptions } from 'fastify'
import { type ApiOperation, apiOperations, jsonBodySchema, leapingClock } from '../testing/api-operations.ts'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../testing/test-app.ts'

/**
 * Thousands of malformed requests across every documented route: none may answer 5xx, and every
 * 4xx must be in the spec's error shape.
 */
const RUNS: Record<string, number> = { sqlite: 2500, postgres: 800 }

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    "'; DROP TABLE variables; --",
    '../../etc/passwd',
    '%00',
    '%E0%A4%A',
    '🙂',
    ' ',
    '*',
    'null',
  ),
  fc.string({ minLength: 300, maxLength: 2000 }),
  fc.uuid(),
  fc.integer().map(String),
)

const jsonValue = fc.jsonValue({ maxDepth: 3 })

for (const engine of testEngines()) {
  describe(`fuzzing every route on ${engine.engine}`, () => {
    let t: TestApp
    let operations: ApiOperation[] = []
    before(async () => {
      t = await createTestApp(engine, { clock: leapingClock() })
      operations = (await apiOperations(t)).filter(
        (op) => op.method !== 'DELETE' || !op.path.includes('members'),
      )
    })
    after(() => t.close())

    test('no malformed request gets a 5xx; every 4xx is in the error shape', async () => {
      const statuses = new Map<number, number>()
      const bodyFor = (schema?: { properties?: Record<string, unknown> }) =>
        fc.oneof(
          jsonValue.map((v) => JSON.stringify(v)),
          fc.string(),
          fc.constantFrom(
            '{',
            '{"a":',
            '[]',
            'null',
            '""',
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{}}}',
          ),
          // A plausible body with each field replaced by a wrong-typed, oversized or unknown value.
          fc
            .dictionary(
              fc.constantFrom(
                ...Object.keys(schema?.properties ?? { key: 1, name: 1, role: 1, value: 1 }),
                'unknownField',
              ),
              fc.oneof(jsonValue, nasty),
              { maxKeys: 6 },
            )
            .map((v) => JSON.stringify(v)),
        )
      const request = fc
        .record({
          operation: fc.constantFrom(...operations),
          pathValue: nasty,
          query: fc.dictionary(fc.constantFrom('limit', 'page', 'key', 'locked', 'userId', 'x'), nasty, {
            maxKeys: 3,
          }),
          auth: fc.constantFrom('owner', 'owner', 'admin', 'none', 'garbage'),
          account: fc.option(fc.oneof(nasty, fc.constant(t.owner.accountId)), { nil: undefined }),
          contentType: fc.constantFrom(
            'application/json',
            'application/json',
            'text/plain',
            'application/x-www-form-urlencoded',
            '',
          ),
          methodOverride: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'), {
            nil: undefined,
          }),
          seed: fc.nat(),
        })
        .chain((r) => bodyFor(jsonBodySchema(r.operation)).map((body) => ({ ...r, body })))

      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const path = r.operation.path.replace(/\{\w+\}/g, () => encodeURIComponent(r.pathValue))
          const query = new URLSearchParams(r.query).toString()
          const headers: Record<string, string> = {}
          if (r.auth === 'owner') headers.authorization = `Bearer ${t.owner.key}`
          if (r.auth === 'admin') headers.authorization = `Bearer ${TEST_ADMIN_TOKEN}`
          if (r.auth === 'garbage')
            headers.authorization = `Bearer ${r.pathValue.replace(/[^\x21-\x7e]/g, '')}x`
          if (r.account !== undefined) headers['x-svc-account'] = r.account.replace(/[^\x20-\x7e]/g, '')
          if (r.contentType) headers['content-type'] = r.contentType
          const method = (r.methodOverride ?? r.operation.method) as InjectOptions['method']
          const options: InjectOptions = { method, url: query ? `${path}?${query}` : path, headers }
          if (method !== 'GET' && method !== 'HEAD') options.payload = r.body
          const res = await t.app.inject(options)
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
          assert.ok(res.statusCode < 500, `${method} ${options.url} answered ${res.statusCode}: ${res.body}`)
          if (res.statusCode >= 400 && method !== 'HEAD') {
            const body = json(res)
            assert.equal(body.statusCode, res.statusCode)
            assert.equal(typeof body.error, 'string')
            assert.equal(typeof body.message, 'string')
          }
        }),
        { numRuns: RUNS[engine.engine] ?? 500, seed: 20261122, endOnFailure: true },
      )
      // The generator must reach past authentication and validation, not only bounce off them.
      assert.ok((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0) > 0, JSON.stringify([...statuses]))
      assert.equal(statuses.get(429) ?? 0, 0)
    })
  })
}
