import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import * as accounts from '../accounts/accounts.service.ts'

for (const engine of testEngines()) {
  describe(`snippets on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-22T10:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    const create = (payload: object) => t.call({ method: 'POST', url: '/v1/snippets', payload })

    test('creates, reads, lists, updates and deletes in the hosted shape', async () => {
      const res = await create({ name: 'Login', script: "request.url = request.url + '/extra'" })
      assert.equal(res.statusCode, 201)
      const snippet = json(res)
      assert.equal(typeof snippet.id, 'number')
      assert.deepEqual(snippet, {
        id: snippet.id,
        name: 'Login',
        script: "request.url = request.url + '/extra'",
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: null,
      })
      assert.deepEqual(json(await t.call({ method: 'GET', url: `/v1/snippets/${snippet.id}` })), snippet)

      nowMs += 60_000
      const updated = await t.call({
        method: 'PUT',
        url: `/v1/snippets/${snippet.id}`,
        payload: { name: 'Login v2', script: 'return 1' },
      })
      assert.equal(updated.statusCode, 200)
      assert.deepEqual(json(updated), {
        ...snippet,
        name: 'Login v2',
        script: 'return 1',
        updated_at: '2026-11-22T10:01:00.000Z',
      })

      const second = json(await create({ name: 'Teardown', script: 'cleanup()' }))
      const list = await t.call({ method: 'GET', url: '/v1/snippets?limit=1&page=2' })
      assert.equal(list.statusCode, 200)
      assert.deepEqual(
        json(list).map((s: { name: string }) => s.name),
        ['Teardown'],
      )
      assert.equal(list.headers['content-range'], 'items 1-1/2')

      assert.equal((await t.call({ method: 'DELETE', url: `/v1/snippets/${second.id}` })).statusCode, 204)
      const gone = await t.call({ method: 'GET', url: `/v1/snippets/${second.id}` })
      assert.equal(gone.statusCode, 404)
      assert.equal(json(gone).message, `Snippet ${second.id} not found`)
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/snippets/${second.id}` })).statusCode, 404)
    })

    test('refuses bad bodies and ids with a 400 naming the field', async () => {
      assert.match(json(await create({ name: 'x' })).message, /script/)
      assert.match(json(await create({ name: '', script: 'x' })).message, /^body\.name /)
      assert.match(json(await create({ name: 'x', script: '' })).message, /^body\.script /)
      assert.match(json(await create({ name: 'x', script: 'y', extra: 1 })).message, /extra/)
      const badId = await t.call({ method: 'GET', url: '/v1/snippets/abc' })
      assert.equal(badId.statusCode, 400)
      assert.equal((await t.call({ method: 'GET', url: '/v1/snippets/0' })).statusCode, 400)
    })

    test("another account's snippet is a 404, never read or changed", async () => {
      const mine = json(await create({ name: 'Mine', script: 'x' }))
      const other = await t.addUser('OWNER', (await accounts.createAccount(t.ctx, { name: 'Other' })).id)
      const asOther = { as: other }
      const read = await t.call({ method: 'GET', url: `/v1/snippets/${mine.id}`, ...asOther })
      assert.equal(read.statusCode, 404)
      const put = await t.call({
        method: 'PUT',
        url: `/v1/snippets/${mine.id}`,
        payload: { name: 'Taken', script: 'y' },
        ...asOther,
      })
      assert.equal(put.statusCode, 404)
      assert.deepEqual(json(await t.call({ method: 'GET', url: '/v1/snippets', ...asOther })), [])
      assert.equal(json(await t.call({ method: 'GET', url: `/v1/snippets/${mine.id}` })).name, 'Mine')
    })
  })
}
