import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { InjectOptions } from 'fastify'
import {
  type ApiOperation,
  apiOperations,
  jsonBodySchema,
  leapingClock,
  validPathValue,
} from '../testing/api-operations.ts'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../testing/test-app.ts'

const LONG = 'x'.repeat(100_000)
/** Values of every wrong kind, put in every field a body declares. */
const WRONG_VALUES: unknown[] = [
  1e308,
  -1e308,
  2 ** 63,
  1.5,
  LONG,
  [[LONG]],
  { a: { b: [] } },
  true,
  null,
  '',
]
/** Query and path texts of every wrong kind. */
const WRONG_TEXTS = ['99999999999999999999999', '-1', '1e309', 'NaN', '0x10', ' ', 'x'.repeat(400), '%00']

/** Every route of the route table gets deterministic bad input: none may answer 5xx or hang. */
for (const engine of testEngines()) {
  describe(`bad input to every route on ${engine.engine}`, () => {
    let t: TestApp
    const operations: ApiOperation[] = []
    let agentHeaders: Record<string, string> = {}
    before(async () => {
      t = await createTestApp(engine, { clock: leapingClock() })
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

    /** Sends `options` to `op` with path parameters from `path` (default: valid ones), as its caller. */
    const send = async (
      op: ApiOperation,
      options: Omit<InjectOptions, 'method' | 'url'>,
      query = '',
      path = validPathValue,
    ) => {
      let url = op.path
      for (const param of op.parameters.filter((p) => p.in === 'path')) {
        url = url.replace(`{${param.name}}`, encodeURIComponent(path(param.schema)))
      }
      url = url.replace('{*}', 'file.txt')
      // The agents' long poll waits for jobs unless told not to.
      if (op.path === '/agent/v1/jobs' && !query.includes('waitSeconds=')) query = `${query}&waitSeconds=0`
      const headers: Record<string, string> = { ...(options.headers as Record<string, string>) }
      if (op.admin) headers.authorization = `Bearer ${TEST_ADMIN_TOKEN}`
      else if (op.path.startsWith('/agent/')) Object.assign(headers, agentHeaders)
      else if (!op.path.startsWith('/status/') && !op.path.startsWith('/ping/'))
        headers.authorization = `Bearer ${t.owner.key}`
      const request: InjectOptions = {
        ...options,
        method: op.method as InjectOptions['method'],
        url: query ? `${url}?${query}` : url,
        headers,
      }
      const res = await t.app.inject(request)
      const where = `${request.method} ${String(request.url).slice(0, 200)} ${String(options.payload ?? '').slice(0, 120)}`
      assert.ok(res.statusCode < 500, `${where}: ${res.statusCode} ${res.body}`)
      if (res.statusCode >= 400 && op.method !== 'HEAD' && res.headers['content-type']?.includes('json')) {
        const body = json(res)
        assert.deepEqual(
          [body.statusCode, typeof body.error, typeof body.message],
          [res.statusCode, 'string', 'string'],
          where,
        )
      }
      return res
    }

    test('malformed JSON, arrays for objects and wrong-typed, huge or long values in every body field', async () => {
      const withBody = operations.filter((op) => !['GET', 'HEAD'].includes(op.method))
      assert.ok(withBody.length > 60, `${withBody.length} operations`)
      for (const op of withBody) {
        const jsonHeaders = { 'content-type': 'application/json' }
        for (const payload of [
          '{"a":',
          '{',
          '[1,2]',
          '"text"',
          '1e999',
          '{"a":1,"a":2}',
          `{"x":"${LONG}"}`,
        ]) {
          await send(op, { headers: jsonHeaders, payload })
        }
        const fields = Object.keys(jsonBodySchema(op)?.properties ?? {})
        for (const value of WRONG_VALUES) {
          await send(op, { payload: Object.fromEntries(fields.map((field) => [field, value])) })
          // One field at a time, the others left out: the per-field checks after validation run too.
          for (const field of fields) await send(op, { payload: { [field]: value } })
        }
      }
    })

    test('wrong, huge and long texts in every path and query parameter, and unknown parameters', async () => {
      for (const op of operations) {
        const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name)
        for (const text of WRONG_TEXTS) {
          await send(op, {}, '', () => text)
          const query = new URLSearchParams([...queryNames, 'unknownParam'].map((name) => [name, text]))
          await send(op, {}, query.toString())
          await send(
            op,
            {},
            `${queryNames[0] ?? 'x'}=1&${queryNames[0] ?? 'x'}=2&${queryNames[0] ?? 'x'}[]=3`,
          )
        }
      }
    })
  })
}
