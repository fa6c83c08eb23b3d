import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../../testing/test-app.ts'

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

for (const engine of testEngines()) {
  describe(`admin API on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const post = (url: string, payload: object) =>
      t.call({ method: 'POST', url, payload, as: null, headers: admin })

    test('creates a user, an account, a membership and keys that then work on the public API', async () => {
      const user = await post('/admin/v1/users', { email: 'Ada@Example.com', name: 'Ada' })
      assert.equal(user.statusCode, 201)
      assert.equal(json(user).email, 'ada@example.com')
      assert.equal(
        (await post('/admin/v1/users', { email: 'ada@example.com', name: 'Again' })).statusCode,
        409,
      )

      const account = await post('/admin/v1/accounts', { name: 'Acme', runtimeId: '2024.09' })
      assert.equal(account.statusCode, 201)
      assert.equal(json(account).runtimeId, '2024.09')
      assert.equal(json(account).settings.timezone, 'UTC')

      const membership = await post('/admin/v1/memberships', {
        userId: json(user).id,
        accountId: json(account).id,
        role: 'READ_WRITE',
      })
      assert.equal(membership.statusCode, 201)
      assert.equal(json(membership).role, 'READ_WRITE')
      const again = await post('/admin/v1/memberships', {
        userId: json(user).id,
        accountId: json(account).id,
        role: 'ADMIN',
      })
      assert.equal(again.statusCode, 409)

      const userKey = await post('/admin/v1/api-keys', { name: 'ada laptop', userId: json(user).id })
      assert.equal(userKey.statusCode, 201)
      const created = json(userKey)
      assert.match(created.key, /^svc_[A-Za-z0-9_-]{43}$/)
      assert.equal(created.type, 'USER')
      assert.equal(created.maskedKey, `svc_********${created.key.slice(-4)}`)
      const me = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: null,
        headers: bearer(created.key),
      })
      assert.equal(json(me).name, 'Acme')

      const serviceKey = await post('/admin/v1/api-keys', {
        name: 'ci',
        accountId: json(account).id,
        role: 'READ_ONLY',
      })
      assert.equal(serviceKey.statusCode, 201)
      assert.equal(json(serviceKey).type, 'SERVICE')
      assert.equal(json(serviceKey).role, 'READ_ONLY')

      const listed = await t.call({
        method: 'GET',
        url: `/admin/v1/api-keys?accountId=${json(account).id}`,
        as: null,
        headers: admin,
      })
      assert.equal(listed.statusCode, 200)
      assert.deepEqual(
        json(listed).map((k: { name: string }) => k.name),
        ['ci'],
      )
      assert.equal(listed.headers['content-range'], 'items 0-0/1')
      assert.equal(json(listed)[0].key, undefined, 'a listed key never shows its raw value')

      const revoke = await t.call({
        method: 'DELETE',
        url: `/admin/v1/api-keys/${created.id}`,
        as: null,
        headers: admin,
      })
      assert.equal(revoke.statusCode, 204)
      assert.equal(revoke.body, '')
      const after = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: null,
        headers: bearer(created.key),
      })
      assert.equal(after.statusCode, 401)
    })

    test('an API key needs exactly one owner: a user, or an account with a role', async () => {
      const bad = await post('/admin/v1/api-keys', {
        name: 'x',
        userId: t.owner.userId,
        accountId: t.owner.accountId,
      })
      assert.equal(bad.statusCode, 400)
      const missing = await post('/admin/v1/api-keys', {
        name: 'x',
        accountId: '00000000-0000-4000-8000-000000000000',
        role: 'ADMIN',
      })
      assert.equal(missing.statusCode, 404)
    })

    test('tenant keys and wrong tokens get 401 on the admin API', async () => {
      const tenant = await t.call({ method: 'GET', url: '/admin/v1/api-keys' })
      assert.equal(tenant.statusCode, 401)
      assert.deepEqual(json(tenant).attributes, {})
      const wrong = await t.call({
        method: 'GET',
        url: '/admin/v1/api-keys',
        as: null,
        headers: bearer('nope'),
      })
      assert.equal(wrong.statusCode, 401)
    })

    test('the admin document lists admin routes; the public one does not', async () => {
      const adminDoc = json(await t.call({ method: 'GET', url: '/admin/openapi.json', as: null }))
      assert.ok(adminDoc.paths['/admin/v1/users'].post)
      const publicDoc = json(await t.call({ method: 'GET', url: '/openapi.json', as: null }))
      assert.equal(
        Object.keys(publicDoc.paths).some((path) => path.startsWith('/admin')),
        false,
      )
    })
  })
}

function bearer(key: string) {
  return { authorization: `Bearer ${key}` }
}
