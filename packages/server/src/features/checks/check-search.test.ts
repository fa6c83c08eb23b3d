import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

const UNREACHABLE = 'http://127.0.0.1:9'

for (const engine of testEngines()) {
  describe(`GET /v2/checks and /v3/checks on ${engine.engine}`, () => {
    let t: TestApp
    const ids: Record<string, string> = {}
    const post = async (url: string, payload: object) => {
      const res = await t.call({ method: 'POST', url, payload })
      assert.ok(res.statusCode < 300, res.body)
      return json(res)
    }
    before(async () => {
      t = await createTestApp(engine)
      const group = await post('/v1/check-groups', {
        name: 'Shop',
        tags: ['grouped'],
        apiCheckDefaults: { headers: [{ key: 'X-Group', value: 'yes' }] },
      })
      const api = (name: string, url: string, tags: string[], groupId?: number) =>
        post('/v1/checks/api', { name, activated: false, tags, groupId, request: { method: 'GET', url } })
      ids.orders = (await api('Orders', `${UNREACHABLE}/orders`, ['shop', 'eu'])).id
      ids.cart = (await api('Cart', `${UNREACHABLE}/cart`, ['shop'])).id
      ids.grouped = (await api('Grouped', `${UNREACHABLE}/grouped`, [], group.id)).id
      ids.tcp = (
        await post('/v1/checks/tcp', {
          name: 'Port',
          activated: false,
          tags: ['eu'],
          request: { hostname: '127.0.0.1', port: 9 },
        })
      ).id
      await post(`/v1/checks/${ids.orders}/trigger`, {})
    })
    after(() => t.close())

    const names = async (query: string, version = 'v2') => {
      const res = await t.call({ method: 'GET', url: `/${version}/checks?limit=100&${query}` })
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`)
      return json(res).map((check: { name: string }) => check.name)
    }

    test('filters by tag (every one named, the group’s too), type, name, URL and status', async () => {
      for (const version of ['v2', 'v3']) {
        assert.deepEqual(await names('tag=shop&tag=eu', version), ['Orders'])
        assert.deepEqual(await names('tag=shop', version), ['Orders', 'Cart'])
        assert.deepEqual(await names('tag=grouped', version), ['Grouped'])
        assert.deepEqual(await names('checkType=TCP', version), ['Port'])
        assert.deepEqual(await names('checkType=PLAYWRIGHT', version), [])
        assert.deepEqual(await names('search=car', version), ['Cart'])
        assert.deepEqual(await names('apiCheckUrlFilterPattern=/orders', version), ['Orders'])
        assert.deepEqual(await names('status=failing', version), ['Orders'])
        assert.deepEqual(await names('status=passing', version), [])
      }
    })

    test('pages what the filters keep, with its total', async () => {
      const res = await t.call({ method: 'GET', url: '/v3/checks?checkType=API&limit=2&page=2' })
      assert.deepEqual(
        json(res).map((check: { name: string }) => check.name),
        ['Grouped'],
      )
      assert.equal(res.headers['content-range'], 'items 2-2/3')
    })

    test('applyGroupSettings answers a grouped check as it runs in its group', async () => {
      const headersOf = async (url: string) =>
        json(await t.call({ method: 'GET', url })).request.headers.map((h: { key: string }) => h.key)
      assert.deepEqual(await headersOf(`/v2/checks/${ids.grouped}`), [])
      assert.deepEqual(await headersOf(`/v3/checks/${ids.grouped}?applyGroupSettings=true`), ['X-Group'])
      const listed = json(
        await t.call({ method: 'GET', url: '/v2/checks?tag=grouped&applyGroupSettings=true' }),
      )
      assert.deepEqual(listed[0].request.headers, [{ key: 'X-Group', value: 'yes', locked: false }])
      assert.deepEqual(listed[0].tags, ['grouped'])
      const missing = await t.call({ method: 'GET', url: `/v3/checks/${crypto.randomUUID()}` })
      assert.equal(missing.statusCode, 404)
    })

    test('GET /v1/checks and /v1/checks/{id} take the hosted filters too, beside svc’s own', async () => {
      assert.deepEqual(await names('search=car', 'v1'), ['Cart'])
      assert.deepEqual(await names('apiCheckUrlFilterPattern=/orders', 'v1'), ['Orders'])
      assert.deepEqual(await names('status=failing&checkType=API', 'v1'), ['Orders'])
      assert.deepEqual(await names('status=failing&checkType=TCP', 'v1'), [])
      assert.deepEqual(await names('search=o&activated=false&tag=eu', 'v1'), ['Orders', 'Port'])
      assert.deepEqual(await names('tag=eu', 'v1'), ['Orders', 'Port'])
      // Several tags, repeated or as `tag[]` (the hosted CLI sends them so): every one named.
      assert.deepEqual(await names('tag=shop&tag=eu', 'v1'), ['Orders'])
      assert.deepEqual(await names('tag[]=shop&tag[]=eu', 'v1'), ['Orders'])
      const listed = json(
        await t.call({ method: 'GET', url: '/v1/checks?applyGroupSettings=true&name=Grouped' }),
      )
      assert.deepEqual(listed[0].request.headers, [{ key: 'X-Group', value: 'yes', locked: false }])
      const one = await t.call({
        method: 'GET',
        url: `/v1/checks/${ids.grouped}?applyGroupSettings=true&includeDependencies=true`,
      })
      assert.equal(one.statusCode, 200, one.body)
      assert.deepEqual(json(one).request.headers, [{ key: 'X-Group', value: 'yes', locked: false }])
      const plain = json(await t.call({ method: 'GET', url: `/v1/checks/${ids.grouped}` }))
      assert.deepEqual(plain.request.headers, [])
    })

    test('GET /v1/check-groups takes the hosted tag and name filters; /v1/private-locations takes versions', async () => {
      await post('/v1/check-groups', { name: 'Billing', tags: ['grouped', 'money'] })
      const groupNames = async (query: string) => {
        const res = await t.call({ method: 'GET', url: `/v1/check-groups?${query}` })
        assert.equal(res.statusCode, 200, `${query}: ${res.body}`)
        return json(res).map((group: { name: string }) => group.name)
      }
      assert.deepEqual(await groupNames('tag=grouped'), ['Shop', 'Billing'])
      assert.deepEqual(await groupNames('tag=grouped&tag=money'), ['Billing'])
      assert.deepEqual(await groupNames('name=Shop&name=Nothing'), ['Shop'])
      assert.deepEqual(await groupNames('name=Shop&tag=money'), [])
      const paged = await t.call({ method: 'GET', url: '/v1/check-groups?tag=grouped&limit=1&page=2' })
      assert.deepEqual(
        [json(paged).map((g: { name: string }) => g.name), paged.headers['content-range']],
        [['Billing'], 'items 1-1/2'],
      )
      const locations = await t.call({ method: 'GET', url: '/v1/private-locations?versions=true' })
      assert.equal(locations.statusCode, 200, locations.body)
    })
  })
}
