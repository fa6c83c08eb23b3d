import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp } from '../testing/test-app.ts'
import { compilePending } from './compiled-schemas.ts'

// Route schemas compile on first use, so a schema Ajv or fast-json-stringify refuses would only show on
// its route's first call. Compiling them all here catches it. The engine doesn't matter: SQLite only.
test('every route validator and response serializer compiles', async () => {
  const [sqlite] = testEngines()
  assert.ok(sqlite)
  const t = await createTestApp(sqlite)
  try {
    await t.app.ready()
    const count = compilePending()
    assert.ok(count > 200, `${count} compiled`)
    assert.equal(compilePending(), 0)
    const res = await t.call({ method: 'GET', url: '/v1/checks?unknownParam=1' })
    assert.equal(res.statusCode, 400)
    assert.equal(JSON.parse(res.body).message, 'querystring.unknownParam is not allowed')
  } finally {
    await t.close()
  }
})
