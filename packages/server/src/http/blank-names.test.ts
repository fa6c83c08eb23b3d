import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`blank names on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const blanks = ['   ', '\t\n', '\u00a0\u3000']
    const cases: {
      what: string
      method: 'POST' | 'PATCH'
      url: string
      body: (name: string) => object
      path: string
    }[] = [
      {
        what: 'account',
        method: 'PATCH',
        url: '/v1/accounts/me',
        body: (name) => ({ name }),
        path: 'body.name',
      },
      {
        what: 'check',
        method: 'POST',
        url: '/v1/checks/tcp',
        body: (name) => ({ name, request: { hostname: '127.0.0.1', port: 9 } }),
        path: 'body.name',
      },
      {
        what: 'check group',
        method: 'POST',
        url: '/v1/check-groups',
        body: (name) => ({ name, locations: ['local'] }),
        path: 'body.name',
      },
      {
        what: 'status page',
        method: 'POST',
        url: '/v3/status-pages',
        body: (name) => ({ name, url: 'blank-name', cards: [] }),
        path: 'body.name',
      },
      {
        what: 'private location',
        method: 'POST',
        url: '/v1/private-locations',
        body: (name) => ({ name, slugName: 'blank-name' }),
        path: 'body.name',
      },
      {
        what: 'alert channel',
        method: 'POST',
        url: '/v1/alert-channels',
        body: (name) => ({ type: 'WEBHOOK', config: { name, url: 'https://hooks.example.com/x' } }),
        path: 'body.config.name',
      },
      {
        what: 'status page service',
        method: 'POST',
        url: '/v1/status-pages/services',
        body: (name) => ({ name }),
        path: 'body.name',
      },
      {
        what: 'API key',
        method: 'POST',
        url: '/v1/api-keys',
        body: (name) => ({ name }),
        path: 'body.name',
      },
    ]

    test('a name of only whitespace is a 400 naming the field, on every resource with a required name', async () => {
      for (const { what, method, url, body, path } of cases) {
        for (const blank of blanks) {
          const res = await t.call({ method, url, payload: body(blank) })
          assert.equal(res.statusCode, 400, `${what} ${JSON.stringify(blank)}: ${res.body}`)
          const error = json(res)
          assert.equal(error.message, `${path} must not be blank`, what)
          assert.deepEqual(error.attributes.errors, [{ path, message: 'must not be blank' }], what)
        }
      }
    })

    test('an empty name is one issue of its field: too short, not also blank', async () => {
      for (const { what, method, url, body, path } of cases) {
        const res = await t.call({ method, url, payload: body('') })
        assert.equal(res.statusCode, 400, `${what}: ${res.body}`)
        const message = 'must NOT have fewer than 1 characters'
        assert.deepEqual(json(res).attributes.errors, [{ path, message }], what)
        assert.equal(json(res).message, `${path} ${message}`, what)
      }
    })

    test('a name with text around whitespace is kept as sent', async () => {
      const res = await t.call({ method: 'PATCH', url: '/v1/accounts/me', payload: { name: ' Ops team ' } })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(json(res).name, ' Ops team ')
      const check = await t.call({
        method: 'POST',
        url: '/v1/checks/tcp',
        payload: { name: 'x', request: { hostname: '127.0.0.1', port: 9 }, activated: false },
      })
      assert.equal(check.statusCode, 201, check.body)
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/checks/${json(check).id}`,
        payload: { name: ' ' },
      })
      assert.equal(renamed.statusCode, 400, renamed.body)
      assert.equal(json(renamed).message, 'body.name must not be blank')
    })
  })
}
