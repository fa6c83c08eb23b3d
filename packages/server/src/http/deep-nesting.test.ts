import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { RESULT_JSON_DEPTH } from '../features/agent-protocol/agent-protocol.routes.ts'
import { type ApiOperation, apiOperations, leapingClock, validPathValue } from '../testing/api-operations.ts'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../testing/test-app.ts'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts'

/** What the attacker sent: 16 KB of `[[[[…`, about 8,000 levels. */
const DEEP_ARRAY = `${'['.repeat(8_000)}${']'.repeat(8_000)}`
const DEEP_OBJECT = `${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}`
/** One level past what the route takes, below a field. */
const deepField = (max: number) => `{"name":${'['.repeat(max)}"x"${']'.repeat(max)}}`
const tooDeep = (max: number) => `must not nest arrays and objects more than ${max} levels deep`
/** Agents' results carry run details that may nest deep themselves. */
const depthOf = (op: ApiOperation) =>
  op.path.startsWith('/agent/v1/results') ? RESULT_JSON_DEPTH : MAX_JSON_DEPTH

test('nesting is counted outside strings only, escaped quotes included', () => {
  const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
  assert.equal(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false)
  assert.equal(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true)
  assert.equal(nestsDeeperThan(JSON.stringify({ a: '['.repeat(1000) }), 3), false)
  assert.equal(nestsDeeperThan(JSON.stringify({ a: '\\"[[[[[' }), 3), false)
  assert.equal(nestsDeeperThan(`{"a":"\\"",${'"b":[[[[[[1]]]]]]'}}`, 3), true)
})

for (const engine of testEngines()) {
  describe(`deeply nested JSON bodies on ${engine.engine}`, () => {
    let t: TestApp
    const operations: ApiOperation[] = []
    const errorLines: string[] = []
    let agentHeaders: Record<string, string> = {}
    before(async () => {
      const stream = { write: (line: string) => errorLines.push(line) }
      t = await createTestApp(engine, { clock: leapingClock(), logger: { level: 'error', stream } })
      operations.push(...(await apiOperations(t)))
      const location = json(
        await t.call({
          method: 'POST',
          url: '/v1/private-locations',
          payload: { name: 'Lab', slugName: 'lab' },
        }),
      )
      const { rawKey } = json(
        await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }),
      )
      agentHeaders = { authorization: `Bearer ${rawKey}`, 'x-svc-agent-id': randomUUID() }
    })
    after(() => t.close())

    const headersFor = (op: ApiOperation): Record<string, string> => {
      if (op.admin) return { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
      if (op.path.startsWith('/agent/')) return agentHeaders
      if (op.path.startsWith('/status/')) return {}
      return { authorization: `Bearer ${t.owner.key}` }
    }

    test('answer 400 in the error shape on every JSON route, open and agent routes included, and log no error', async () => {
      // Pings take any body unread (API.md), so they never parse one.
      const withBody = operations.filter(
        (op) => !['GET', 'HEAD'].includes(op.method) && !op.path.startsWith('/ping/'),
      )
      const paths = new Set(withBody.map((op) => op.path))
      for (const open of [
        '/status/{slug}/subscribe',
        '/status/{slug}/unsubscribe',
        '/status/_subscription/unsubscribe',
        '/agent/v1/results',
      ]) {
        assert.ok(paths.has(open), `${open} is among the routes sent deep bodies`)
      }
      for (const op of withBody) {
        let url = op.path.replace('{*}', 'file.txt')
        for (const param of op.parameters.filter((p) => p.in === 'path')) {
          url = url.replace(`{${param.name}}`, encodeURIComponent(validPathValue(param.schema)))
        }
        const max = depthOf(op)
        for (const payload of [DEEP_ARRAY, DEEP_OBJECT, deepField(max)]) {
          const res = await t.app.inject({
            method: op.method as 'POST',
            url,
            headers: { ...headersFor(op), 'content-type': 'application/json' },
            payload,
          })
          const where = `${op.method} ${op.path} ${payload.slice(0, 12)}`
          assert.equal(res.statusCode, 400, `${where}: ${res.body}`)
          assert.deepEqual(
            json(res),
            {
              statusCode: 400,
              error: 'Bad Request',
              message: `body ${tooDeep(max)}`,
              attributes: { errors: [{ path: 'body', message: tooDeep(max) }] },
            },
            where,
          )
        }
      }
      assert.deepEqual(errorLines, [])
    })
  })
}
