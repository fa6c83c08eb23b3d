import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`check results in the hosted shapes on ${engine.engine}`, () => {
    let t: TestApp
    let checkId = ''
    const trigger = async () =>
      json(await t.call({ method: 'POST', url: `/v1/checks/${checkId}/trigger` })).id as string
    before(async () => {
      t = await createTestApp(engine)
      const check = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name: 'refused',
          activated: false,
          request: { method: 'GET', url: 'http://127.0.0.1:9/' },
        },
      })
      checkId = json(check).id
      for (let i = 0; i < 5; i++) await trigger()
    })
    after(() => t.close())

    const get = async (url: string) => {
      const res = await t.call({ method: 'GET', url })
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
      return json(res)
    }

    test('v2 pages by nextId through every result once, unshifted by results stored meanwhile', async () => {
      const all = (await get(`/v1/check-results/${checkId}?limit=100`)).map((r: { id: string }) => r.id)
      assert.equal(all.length, 5)
      const first = await get(`/v2/check-results/${checkId}?limit=2`)
      assert.equal(first.length, 2)
      assert.equal(typeof first.nextId, 'string')
      await trigger()
      const second = await get(`/v2/check-results/${checkId}?limit=2&nextId=${first.nextId}`)
      const third = await get(`/v2/check-results/${checkId}?limit=2&nextId=${second.nextId}`)
      assert.deepEqual([second.length, third.length, third.nextId], [2, 1, null])
      const paged = [...first.entries, ...second.entries, ...third.entries].map((r: { id: string }) => r.id)
      assert.deepEqual(paged, all)
      assert.equal(first.entries[0].apiCheckResult.request.url, 'http://127.0.0.1:9/')
      const bad = await t.call({ method: 'GET', url: `/v2/check-results/${checkId}?nextId=nonsense` })
      assert.equal(bad.statusCode, 400, bad.body)
      assert.equal(json(bad).attributes.errors[0].path, 'querystring.nextId')
    })

    test('fields keeps only the fields named', async () => {
      const page = await get(`/v2/check-results/${checkId}?limit=1&fields=id&fields=traceId&fields=createdAt`)
      assert.deepEqual(Object.keys(page.entries[0]).sort(), ['createdAt', 'id', 'traceId'])
      assert.equal(page.entries[0].traceId, null)
      // The hosted CLI's `checks get` names them in one value, separated by commas.
      const listed = await get(`/v2/check-results/${checkId}?limit=1&fields=id%2CstartedAt,hasFailures`)
      assert.deepEqual(Object.keys(listed.entries[0]).sort(), ['hasFailures', 'id', 'startedAt'])
      const unknown = await t.call({ method: 'GET', url: `/v2/check-results/${checkId}?fields=id,nope` })
      assert.equal(unknown.statusCode, 400, unknown.body)
      assert.equal(json(unknown).attributes.errors[0].path, 'querystring.fields.1')
    })

    test('checkType keeps the check’s results when it names its type, none otherwise', async () => {
      const count = async (query: string) => [
        (await get(`/v1/check-results/${checkId}?limit=100&${query}`)).length,
        (await get(`/v2/check-results/${checkId}?limit=100&${query}`)).length,
      ]
      const total = (await get(`/v1/check-results/${checkId}?limit=100`)).length
      assert.deepEqual(await count('checkType=API'), [total, total])
      assert.deepEqual(await count('checkType=TCP'), [0, 0])
      assert.deepEqual(await count('checkType=PLAYWRIGHT'), [0, 0])
      assert.deepEqual(await count('resultType=ALL'), [total, total])
    })

    test('a result without a response has traceId null and says why in requestError', async () => {
      const [result] = await get(`/v1/check-results/${checkId}?limit=1`)
      assert.equal(result.traceId, null)
      assert.equal('response' in result.apiCheckResult, false)
      assert.equal(result.apiCheckResult.requestError, result.error.message)
      assert.match(result.apiCheckResult.requestError, /ECONNREFUSED|refused/i)
      const one = await get(`/v1/check-results/${checkId}/${result.id}`)
      assert.deepEqual(one, result)
    })
  })
}
