import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { RUNTIME_IDS } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`runtimes on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    test('lists every runtime id of the spec with its packages, one default', async () => {
      const response = await t.call({ method: 'GET', url: '/v1/runtimes' })
      assert.equal(response.statusCode, 200)
      const runtimes = json(response)
      assert.deepEqual(
        runtimes.map((r: { name: string }) => r.name),
        [...RUNTIME_IDS],
      )
      assert.deepEqual(
        runtimes.filter((r: { default: boolean }) => r.default).map((r: { name: string }) => r.name),
        ['2025.04'],
      )
      for (const runtime of runtimes) {
        for (const name of ['@playwright/test', 'playwright', 'axios', 'dayjs', 'lodash', 'uuid']) {
          assert.match(runtime.dependencies[name], /^\d+\.\d+\.\d+$/, `${runtime.name} ${name}`)
        }
        for (const name of ['@faker-js/faker', 'crypto-js', 'jsonwebtoken', 'otpauth']) {
          assert.match(runtime.dependencies[name], /^\d+\.\d+\.\d+$/, `${runtime.name} ${name}`)
        }
      }
    })

    test('one runtime by id; an unknown id is 404 in the error shape', async () => {
      const one = json(await t.call({ method: 'GET', url: '/v1/runtimes/2024.09' }))
      assert.equal(one.name, '2024.09')
      assert.equal(one.stage, 'STABLE')
      assert.equal('runtimeEndOfLife' in one, false)
      assert.equal(one.default, false)
      assert.equal(one.multiStepSupport, true)
      const old = json(await t.call({ method: 'GET', url: '/v1/runtimes/2022.10' }))
      assert.equal(old.stage, 'DEPRECATED')
      assert.match(old.runtimeEndOfLife, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const missing = await t.call({ method: 'GET', url: '/v1/runtimes/2019.01' })
      assert.equal(missing.statusCode, 404)
      assert.deepEqual(json(missing), {
        statusCode: 404,
        error: 'Not Found',
        message: 'Runtime 2019.01 not found',
      })
    })

    test('needs an API key', async () => {
      const response = await t.call({ method: 'GET', url: '/v1/runtimes', as: null })
      assert.equal(response.statusCode, 401)
    })
  })
}
