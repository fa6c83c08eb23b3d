import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`check results API on ${engine.engine}`, () => {
    let t: TestApp
    let checkId = ''
    before(async () => {
      t = await createTestApp(engine)
      const check = await t.call({
        method: 'POST',
        url: '/v1/checks/tcp',
        payload: { name: 'closed port', request: { hostname: '127.0.0.1', port: 9 } },
      })
      checkId = json(check).id
      await t.call({ method: 'POST', url: `/v1/checks/${checkId}/trigger` })
    })
    after(() => t.close())

    const list = (query: string) => t.call({ method: 'GET', url: `/v1/check-results/${checkId}?${query}` })

    test('from, to and page past what a date or a store offset can hold are 400s naming the parameter', async () => {
      const cases: [string, string][] = [
        ['from=1000000000000000000000000000000', 'querystring.from'],
        ['to=99999999999999', 'querystring.to'],
        ['page=99999999999999999999', 'querystring.page'],
      ]
      for (const [query, path] of cases) {
        const res = await list(query)
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`)
        assert.equal(json(res).attributes.errors[0].path, path, query)
      }
      const lastSecond = await list('from=0&to=253402300799')
      assert.equal(lastSecond.statusCode, 200, lastSecond.body)
      assert.equal(json(lastSecond).length, 1)
      const farPage = await list('page=10000000')
      assert.equal(farPage.statusCode, 200, farPage.body)
      assert.deepEqual(json(farPage), [])
      assert.equal(farPage.headers['content-range'], 'items */1')
    })

    test('from after to is a 400 naming querystring.from; from equal to to is not', async () => {
      const inverted = await list('from=1700000100&to=1700000000')
      assert.equal(inverted.statusCode, 400, inverted.body)
      assert.deepEqual(json(inverted), {
        statusCode: 400,
        error: 'Bad Request',
        message: 'querystring.from must not be after `to` (the window is inverted)',
        attributes: {
          errors: [{ path: 'querystring.from', message: 'must not be after `to` (the window is inverted)' }],
        },
      })
      const same = await list('from=1700000000&to=1700000000')
      assert.equal(same.statusCode, 200, same.body)
      assert.deepEqual(json(same), [])
    })
  })
}
