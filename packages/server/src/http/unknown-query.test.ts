import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { InjectOptions } from 'fastify'
import {
  type ApiOperation,
  apiOperations,
  validPathValue,
  validQueryValue,
} from '../testing/api-operations.ts'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`unknown query parameters on ${engine.engine}`, () => {
    let t: TestApp
    const operations: ApiOperation[] = []
    before(async () => {
      t = await createTestApp(engine)
      operations.push(...(await apiOperations(t)))
    })
    after(() => t.close())

    const refusal = (res: { statusCode: number; body: string }, where: string) => {
      assert.equal(res.statusCode, 400, `${where}: ${res.body}`)
      const body = JSON.parse(res.body)
      assert.deepEqual(
        [body.statusCode, body.error, body.message],
        [400, 'Bad Request', 'querystring.unknownParam is not allowed'],
        where,
      )
      assert.deepEqual(
        body.attributes.errors,
        [{ path: 'querystring.unknownParam', message: 'is not allowed' }],
        where,
      )
    }

    test('GET /v1/locations refuses an unknown parameter as the list routes do', async () => {
      refusal(await t.call({ method: 'GET', url: '/v1/locations?unknownParam=1' }), 'locations')
      refusal(await t.call({ method: 'GET', url: '/v1/checks?unknownParam=1' }), 'checks')
      const plain = await t.call({ method: 'GET', url: '/v1/locations' })
      assert.equal(plain.statusCode, 200, plain.body)
      assert.deepEqual(
        json(plain).map((l: { name: string }) => l.name),
        ['local', 'eu-west-1'],
      )
    })

    test('every keyed route refuses an unknown query parameter before it acts', async () => {
      const keyed = operations.filter(
        (op) =>
          !op.path.startsWith('/status/') &&
          !op.path.startsWith('/ping/') &&
          !op.path.startsWith('/agent/') &&
          // Badges are open: a README's image URL may carry a cache-busting parameter.
          !op.path.startsWith('/v1/badges/') &&
          // Signing in, out and setting a password act on a password or a session, not a key.
          !op.path.startsWith('/v1/auth/'),
      )
      assert.ok(keyed.length > 80, `${keyed.length} keyed operations`)
      let reachedQuery = 0
      for (const op of keyed) {
        let path = op.path
        for (const param of op.parameters.filter((p) => p.in === 'path')) {
          path = path.replace(`{${param.name}}`, validPathValue(param.schema))
        }
        const where = `${op.method} ${op.path}`
        // A required parameter is asked for before an unknown one is refused: each gets a valid value.
        const query = new URLSearchParams(
          op.parameters
            .filter((param) => param.in === 'query' && param.required)
            .map((param) => [param.name, validQueryValue(param.schema)]),
        )
        query.set('unknownParam', '1')
        const options: InjectOptions = {
          method: op.method as InjectOptions['method'],
          url: `${path}?${query}`,
          headers: op.admin ? { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } : {},
        }
        if (['POST', 'PUT', 'PATCH'].includes(op.method)) options.payload = {}
        const res = op.admin ? await t.app.inject(options) : await t.call(options)
        assert.equal(res.statusCode, 400, `${where}: ${res.body}`)
        const [first] = json(res).attributes.errors
        // Bodies are validated first: a route whose body `{}` doesn't satisfy says so instead.
        if (first.path.startsWith('body')) continue
        refusal(res, where)
        reachedQuery++
      }
      assert.ok(reachedQuery > 60, `${reachedQuery} operations reached the query string`)
    })

    test("updates take create's autoAssignAlerts (as clients of hosted products send it) and keep subscriptions", async () => {
      const channel = json(
        await t.call({
          method: 'POST',
          url: '/v1/alert-channels',
          payload: { type: 'EMAIL', config: { address: 'ops@example.com' } },
        }),
      )
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url?autoAssignAlerts=false',
          payload: { name: 'shop', request: { url: 'https://shop.test' } },
        }),
      )
      assert.deepEqual(check.alertChannelSubscriptions, [])
      for (const url of [`/v1/checks/url/${check.id}`, `/v1/checks/${check.id}`]) {
        const res = await t.call({
          method: 'PUT',
          url: `${url}?autoAssignAlerts=true`,
          payload: { name: 'shop 2', request: { url: 'https://shop.test' } },
        })
        assert.equal(res.statusCode, 200, res.body)
        assert.deepEqual([json(res).name, json(res).alertChannelSubscriptions], ['shop 2', []])
        refusal(
          await t.call({
            method: 'PUT',
            url: `${url}?unknownParam=1`,
            payload: { name: 'x', request: { url: 'https://shop.test' } },
          }),
          `PUT ${url}`,
        )
      }
      assert.equal(typeof channel.id, 'number')
    })

    test('routes that take free-form parameters still do', async () => {
      const ping = await t.call({ method: 'GET', url: '/ping/unknown-token?source=cron&rid=1', as: null })
      assert.equal(ping.statusCode, 404, ping.body)
      assert.equal(json(ping).message.includes('querystring'), false)
      const spec = await t.call({ method: 'GET', url: '/openapi.json?unknownParam=1', as: null })
      assert.equal(spec.statusCode, 200)
      assert.equal(json(spec).openapi, '3.0.0')
      const page = await t.call({ method: 'GET', url: '/status/no-such-page?utm_source=mail', as: null })
      assert.equal(page.statusCode, 404, page.body)
    })
  })
}
