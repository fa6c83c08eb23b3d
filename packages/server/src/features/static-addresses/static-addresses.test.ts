import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`static addresses as JSON on ${engine.engine}`, () => {
    let configured: TestApp
    let bare: TestApp
    const staticAddresses = { ipv4: ['203.0.113.7', '203.0.113.8'], ipv6: ['2001:db8::7'] }
    before(async () => {
      configured = await createTestApp(engine, { staticAddresses })
      bare = await createTestApp(engine)
    })
    after(async () => {
      await configured.close()
      await bare.close()
    })
    const get = async (t: TestApp, url: string) => {
      const res = await t.call({ method: 'GET', url })
      assert.equal(res.statusCode, 200, res.body)
      return json(res)
    }

    test('lists the configured addresses, and by each served location', async () => {
      assert.deepEqual(await get(configured, '/v1/static-ips'), ['203.0.113.7', '203.0.113.8'])
      assert.deepEqual(await get(configured, '/v1/static-ipv6s'), ['2001:db8::7'])
      assert.deepEqual(await get(configured, '/v1/static-ips-by-region'), {
        local: ['203.0.113.7', '203.0.113.8'],
        'eu-west-1': ['203.0.113.7', '203.0.113.8'],
      })
      assert.deepEqual(await get(configured, '/v1/static-ipv6s-by-region'), {
        local: ['2001:db8::7'],
        'eu-west-1': ['2001:db8::7'],
      })
      const text = await configured.call({ method: 'GET', url: '/v1/static-ips.txt' })
      assert.equal(text.body, '203.0.113.7\n203.0.113.8\n')
    })

    test('none configured: empty lists, each location with none', async () => {
      assert.deepEqual(await get(bare, '/v1/static-ips'), [])
      assert.deepEqual(await get(bare, '/v1/static-ipv6s-by-region'), { local: [], 'eu-west-1': [] })
    })

    test('the JSON lists share the text files’ rate limit', async () => {
      const res = await configured.call({ method: 'GET', url: '/v1/static-ips-by-region' })
      assert.equal(res.headers['x-ratelimit-limit'], '60')
    })
  })
}
