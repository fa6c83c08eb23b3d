import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'

const [sqlite] = testEngines()

const PUBLIC_OPERATIONS = [
  'get /v1/accounts',
  'get /v1/accounts/me',
  'patch /v1/accounts/me',
  'get /v1/accounts/me/members',
  'patch /v1/accounts/me/members/{userId}',
  'delete /v1/accounts/me/members/{userId}',
  'get /v1/api-keys',
  'post /v1/api-keys',
  'delete /v1/api-keys/{id}',
  'get /v1/variables',
  'post /v1/variables',
  'get /v1/variables/{key}',
  'put /v1/variables/{key}',
  'delete /v1/variables/{key}',
]

describe('OpenAPI documents', () => {
  let t: TestApp
  let doc: any
  before(async () => {
    t = await createTestApp(sqlite!)
    const res = await t.call({ method: 'GET', url: '/openapi.json', as: null })
    assert.equal(res.statusCode, 200)
    doc = json(res)
  })
  after(() => t.close())

  test('is OpenAPI 3.0.0, version v1, served at the base URL, bearer auth applied globally', () => {
    assert.equal(doc.openapi, '3.0.0')
    assert.equal(doc.info.version, 'v1')
    assert.equal(doc.servers[0].url, 'http://svc.test')
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: 'Authorization: Bearer <API_KEY>',
    })
    assert.deepEqual(doc.security, [{ bearerAuth: [] }])
  })

  test('passes a real OpenAPI validator (public and admin documents)', async () => {
    await SwaggerParser.validate(structuredClone(doc))
    const admin = json(await t.call({ method: 'GET', url: '/admin/openapi.json', as: null }))
    await SwaggerParser.validate(structuredClone(admin))
    assert.ok(admin.paths['/admin/v1/api-keys'].get)
    assert.ok(admin.paths['/admin/v1/api-keys/{id}'].delete)
  })

  test('documents every public operation with parameters, bodies, responses and errors', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method} ${path}`),
    )
    assert.deepEqual(operations.sort(), [...PUBLIC_OPERATIONS].sort())
    for (const operation of PUBLIC_OPERATIONS) {
      const [method, path] = operation.split(' ') as [string, string]
      const op = doc.paths[path][method]
      assert.ok(op.summary, `${operation} has a summary`)
      assert.ok(op.tags?.length, `${operation} is tagged`)
      const success = Object.keys(op.responses).filter((code) => code.startsWith('2'))
      assert.equal(success.length, 1, `${operation} documents one success response`)
      for (const code of ['401', '403', '404', '429']) {
        const schema = op.responses[code]?.content?.['application/json']?.schema
        assert.deepEqual(
          schema?.required,
          ['statusCode', 'error', 'message'],
          `${operation} documents ${code}`,
        )
      }
      const accountHeader = op.parameters.find((p: { in: string; name: string }) => p.in === 'header')
      assert.equal(accountHeader?.name, 'x-svc-account', `${operation} documents the account header`)
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        const param = op.parameters.find(
          (p: { in: string; name: string }) => p.in === 'path' && `{${p.name}}` === name,
        )
        assert.ok(param?.required, `${operation} documents path parameter ${name}`)
      }
      if (method === 'post' || method === 'put' || method === 'patch') {
        const body = op.requestBody?.content?.['application/json']?.schema
        assert.equal(body?.additionalProperties, false, `${operation} documents a strict request body`)
        assert.ok(op.responses['400'], `${operation} documents 400`)
      }
    }
    const createVariable = doc.paths['/v1/variables'].post
    assert.deepEqual(createVariable.requestBody.content['application/json'].schema.required, ['key', 'value'])
    assert.ok(createVariable.responses['201'].content['application/json'].schema.properties.usage)
    assert.ok(createVariable.responses['409'])
    const list = doc.paths['/v1/variables'].get.parameters.map((p: { name: string }) => p.name)
    assert.deepEqual(list.sort(), ['key', 'limit', 'locked', 'page', 'x-svc-account'])
  })

  test('admin routes stay out of the public document; open routes need no key', async () => {
    assert.equal(
      Object.keys(doc.paths).some((path) => path.startsWith('/admin')),
      false,
    )
    const legacy = await t.call({ method: 'GET', url: '/swagger.json', as: null })
    assert.equal(legacy.statusCode, 308)
    assert.equal(legacy.headers.location, '/openapi.json')
    assert.equal(legacy.headers.deprecation, 'true')
    const docs = await t.call({ method: 'GET', url: '/docs/', as: null })
    assert.equal(docs.statusCode, 200)
    assert.match(String(docs.headers['content-type']), /text\/html/)
    assert.match(docs.body, /swagger/i)
  })
})
