import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import {
  createTestApp,
  json,
  ownerOfAnotherAccount,
  TEST_ADMIN_TOKEN,
  type Tenant,
  type TestApp,
} from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`account API keys on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    test('a user creates, lists and revokes their own user keys; the raw key is shown once', async () => {
      const created = await t.call({ method: 'POST', url: '/v1/api-keys', payload: { name: 'laptop' } })
      assert.equal(created.statusCode, 201)
      const key = json(created)
      assert.equal(key.type, 'USER')
      assert.equal(key.userId, t.owner.userId)
      assert.match(key.key, /^svc_/)

      const listed = json(await t.call({ method: 'GET', url: '/v1/api-keys?limit=100' }))
      const entry = listed.find((k: { id: string }) => k.id === key.id)
      assert.equal(entry.maskedKey, key.maskedKey)
      assert.equal(entry.key, undefined)

      const stored = await t.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', key.id)
        .executeTakeFirstOrThrow()
      assert.notEqual(stored.key_hash, key.key)
      assert.equal(JSON.stringify(stored).includes(key.key), false, 'only a hash is stored')

      const withNew = { userId: t.owner.userId, accountId: t.owner.accountId, key: key.key }
      assert.equal((await t.call({ method: 'GET', url: '/v1/accounts/me', as: withNew })).statusCode, 200)
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/api-keys/${key.id}` })).statusCode, 204)
      assert.equal((await t.call({ method: 'GET', url: '/v1/accounts/me', as: withNew })).statusCode, 401)
    })

    test('service keys need ADMIN and no role above the creator; others’ keys are 404', async () => {
      const writer = await t.addUser('READ_WRITE')
      const denied = await t.call({
        method: 'POST',
        url: '/v1/api-keys',
        as: writer,
        payload: { name: 'ci', type: 'SERVICE', role: 'READ_ONLY' },
      })
      assert.equal(denied.statusCode, 403)

      const admin = await t.addUser('ADMIN')
      const tooHigh = await t.call({
        method: 'POST',
        url: '/v1/api-keys',
        as: admin,
        payload: { name: 'ci', type: 'SERVICE', role: 'OWNER' },
      })
      assert.equal(tooHigh.statusCode, 403)
      const noRole = await t.call({
        method: 'POST',
        url: '/v1/api-keys',
        as: admin,
        payload: { name: 'ci', type: 'SERVICE' },
      })
      assert.equal(noRole.statusCode, 400)

      const service = await t.call({
        method: 'POST',
        url: '/v1/api-keys',
        as: admin,
        payload: { name: 'ci', type: 'SERVICE', role: 'READ_WRITE' },
      })
      assert.equal(service.statusCode, 201)
      const serviceKey = json(service)
      assert.equal(serviceKey.accountId, t.owner.accountId)
      assert.equal(serviceKey.role, 'READ_WRITE')

      const writerList = json(await t.call({ method: 'GET', url: '/v1/api-keys', as: writer }))
      assert.equal(
        writerList.some((k: { id: string }) => k.id === serviceKey.id),
        false,
      )
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/api-keys/${serviceKey.id}`, as: writer })).statusCode,
        404,
      )

      const writerKeys = json(await t.call({ method: 'GET', url: '/v1/api-keys', as: writer }))
      const writerKeyId = writerKeys[0].id
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/api-keys/${writerKeyId}`, as: admin })).statusCode,
        404,
      )

      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/api-keys/${serviceKey.id}`, as: admin })).statusCode,
        204,
      )
    })

    test('a role missing from a SERVICE key, or given to a USER key, is a 400 naming body.role in the error shape', async () => {
      for (const [payload, message] of [
        [{ name: 'role-check', type: 'SERVICE' }, 'is required for a SERVICE key'],
        [{ name: 'role-check', role: 'READ_ONLY' }, 'applies to SERVICE keys only'],
        [{ name: 'role-check', type: 'USER', role: 'READ_ONLY' }, 'applies to SERVICE keys only'],
      ] as const) {
        const refused = await t.call({ method: 'POST', url: '/v1/api-keys', payload })
        assert.equal(refused.statusCode, 400, refused.body)
        assert.deepEqual(json(refused), {
          statusCode: 400,
          error: 'Bad Request',
          message: `body.role ${message}`,
          attributes: { errors: [{ path: 'body.role', message }] },
        })
      }
      const keys = json(await t.call({ method: 'GET', url: '/v1/api-keys?limit=100' }))
      assert.equal(
        keys.some((k: { name: string }) => k.name === 'role-check'),
        false,
        'no key was created',
      )
    })

    test('a READ_ONLY member manages their own user keys (a leaked key can always be revoked)', async () => {
      const reader = await t.addUser('READ_ONLY')
      const created = await t.call({
        method: 'POST',
        url: '/v1/api-keys',
        as: reader,
        payload: { name: 'ci' },
      })
      assert.equal(created.statusCode, 201, created.body)
      const key = json(created)
      const asNew = { ...reader, key: key.key }
      // The new key acts as its user: still READ_ONLY in the account.
      const write = await t.call({
        method: 'POST',
        url: '/v1/variables',
        as: asNew,
        payload: { key: 'K', value: 'v' },
      })
      assert.equal(write.statusCode, 403)
      const service = await t.call({
        method: 'POST',
        url: '/v1/api-keys',
        as: reader,
        payload: { name: 'svc', type: 'SERVICE', role: 'READ_ONLY' },
      })
      assert.equal(service.statusCode, 403)
      const revoked = await t.call({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, as: reader })
      assert.equal(revoked.statusCode, 204, revoked.body)
      assert.equal((await t.call({ method: 'GET', url: '/v1/accounts/me', as: asNew })).statusCode, 401)
      const own = json(await t.call({ method: 'GET', url: '/v1/api-keys', as: reader }))[0]
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/api-keys/${own.id}`, as: reader })).statusCode,
        204,
      )
      assert.equal((await t.call({ method: 'GET', url: '/v1/accounts/me', as: reader })).statusCode, 401)
    })
  })

  describe(`key caps on ${engine.engine}`, () => {
    let t: TestApp
    const caps = { keysPerUser: 3, serviceKeysPerAccount: 2 }
    before(async () => {
      t = await createTestApp(engine, { limits: caps })
    })
    after(() => t.close())

    const create = (as: Tenant, payload: Record<string, unknown>) =>
      t.call({ method: 'POST', url: '/v1/api-keys', as, payload })

    test('a member, READ_ONLY included, holds at most keysPerUser live user keys; revoking makes room', async () => {
      const reader = await t.addUser('READ_ONLY')
      // addUser gave the reader one key already.
      const made = []
      for (let i = 1; i < caps.keysPerUser; i++) {
        const res = await create(reader, { name: `k${i}` })
        assert.equal(res.statusCode, 201, res.body)
        made.push(json(res).id)
      }
      const refused = await create(reader, { name: 'one too many' })
      assert.equal(refused.statusCode, 403)
      assert.deepEqual(json(refused), {
        statusCode: 403,
        error: 'Forbidden',
        message: `At most ${caps.keysPerUser} live user keys per user: revoke one (DELETE /v1/api-keys/{id}) before creating another`,
      })
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/api-keys/${made[0]}`, as: reader })).statusCode,
        204,
      )
      assert.equal((await create(reader, { name: 'after revoking' })).statusCode, 201)
      assert.equal((await create(reader, { name: 'full again' })).statusCode, 403)
      // The operator's admin API is held to the same cap.
      const viaAdmin = await t.call({
        method: 'POST',
        url: '/admin/v1/api-keys',
        as: null,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { name: 'admin-made', userId: reader.userId },
      })
      assert.equal(viaAdmin.statusCode, 403)
    })

    test('an account holds at most serviceKeysPerAccount live service keys', async () => {
      const service = { type: 'SERVICE', role: 'READ_ONLY' }
      for (let i = 0; i < caps.serviceKeysPerAccount; i++)
        assert.equal((await create(t.owner, { name: `s${i}`, ...service })).statusCode, 201)
      const refused = await create(t.owner, { name: 'one too many', ...service })
      assert.equal(refused.statusCode, 403)
      assert.match(json(refused).message, /^At most 2 live service keys per account/)
      // The account's cap is not the owner's own: the owner may still make user keys.
      assert.equal((await create(t.owner, { name: 'user key' })).statusCode, 201)
      // Another account has its own.
      const stranger = await ownerOfAnotherAccount(t)
      assert.equal((await create(stranger, { name: 'theirs', ...service })).statusCode, 201)
    })

    test('keys created at once never pass the cap together', async () => {
      const writer = await t.addUser('READ_WRITE')
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => create(writer, { name: `burst ${i}` })),
      )
      const statuses = results.map((res) => res.statusCode).sort()
      assert.deepEqual(statuses, [201, 201, 403, 403, 403, 403, 403, 403])
      const live = await t.store.db
        .selectFrom('api_keys')
        .select('id')
        .where('user_id', '=', writer.userId)
        .where('revoked_at', 'is', null)
        .execute()
      assert.equal(live.length, caps.keysPerUser)
    })
  })
}
