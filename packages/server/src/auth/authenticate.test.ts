import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import * as accounts from '../features/accounts/accounts.service.ts'
import * as keys from '../features/api-keys/api-keys.service.ts'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`authentication and tenancy on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    test('a user key with one account needs no account header', async () => {
      const res = await t.call({ method: 'GET', url: '/v1/accounts/me' })
      assert.equal(res.statusCode, 200)
      assert.equal(json(res).id, t.owner.accountId)
    })

    test('401 for a missing, malformed, unknown or revoked key, with attributes {}', async () => {
      const cases = [
        { headers: {}, message: 'Missing API key' },
        { headers: { authorization: 'Basic abc' }, message: 'Bad Token' },
        { headers: { authorization: 'Bearer' }, message: 'Bad Token' },
        { headers: { authorization: `Bearer svc_${'x'.repeat(43)}` }, message: 'Bad Token' },
      ]
      for (const { headers, message } of cases) {
        const res = await t.call({ method: 'GET', url: '/v1/accounts/me', as: null, headers })
        assert.equal(res.statusCode, 401)
        assert.deepEqual(json(res), { statusCode: 401, error: 'Unauthorized', message, attributes: {} })
      }
      const user = await t.addUser('READ_ONLY')
      assert.equal((await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })).statusCode, 200)
      const [key] = (await keys.listApiKeys(t.ctx, { userId: user.userId ?? '' }, { limit: 1, offset: 0 }))
        .items
      assert.ok(key)
      await keys.revokeApiKey(t.ctx, key.id)
      const revoked = await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })
      assert.equal(revoked.statusCode, 401)
      assert.equal(json(revoked).message, 'Bad Token')
    })

    test('a user with several accounts must name one; membership decides access', async () => {
      const second = await accounts.createAccount(t.ctx, { name: 'Second' })
      const user = await t.addUser('READ_WRITE')
      await accounts.addMembership(t.ctx, {
        userId: user.userId ?? '',
        accountId: second.id,
        role: 'READ_ONLY',
      })

      const ambiguous = await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })
      assert.equal(ambiguous.statusCode, 400)
      // A validation error like any other: the message API.md gives, the field in attributes.errors.
      assert.deepEqual(json(ambiguous), {
        statusCode: 400,
        error: 'Bad Request',
        message: 'x-svc-account header is required',
        attributes: { errors: [{ path: 'headers.x-svc-account', message: 'is required' }] },
      })

      const chosen = await t.call({ method: 'GET', url: '/v1/accounts/me', as: user, account: second.id })
      assert.equal(chosen.statusCode, 200)
      assert.equal(json(chosen).name, 'Second')
      // The hosted product's name of the header picks it the same way (issue 30).
      const hostedName = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: user,
        headers: { 'x-checkly-account': second.id },
      })
      assert.equal(json(hostedName).name, 'Second', hostedName.body)

      const upper = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: user,
        account: second.id.toUpperCase(),
      })
      assert.equal(json(upper).id, second.id)

      const stranger = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: user,
        account: randomUUID(),
      })
      assert.equal(stranger.statusCode, 403)
      assert.deepEqual(Object.keys(json(stranger)).sort(), ['error', 'message', 'statusCode'])
      assert.equal(json(stranger).error, 'Forbidden')

      const list = await t.call({ method: 'GET', url: '/v1/accounts', as: user, account: second.id })
      assert.deepEqual(
        json(list)
          .map((a: { name: string }) => a.name)
          .sort(),
        ['Second', 'Test account'],
      )
      // Listing the user's accounts is how a client learns which ids to name: it needs no header.
      const discovered = await t.call({ method: 'GET', url: '/v1/accounts', as: user })
      assert.equal(discovered.statusCode, 200, discovered.body)
      assert.deepEqual(json(discovered), json(list))
      const unknownHeader = await t.call({
        method: 'GET',
        url: '/v1/accounts',
        as: user,
        account: randomUUID(),
      })
      assert.equal(unknownHeader.statusCode, 403)

      // READ_ONLY in the second account: reads pass, writes are 403.
      const write = await t.call({
        method: 'POST',
        url: '/v1/variables',
        as: user,
        account: second.id,
        payload: { key: 'A', value: 'b' },
      })
      assert.equal(write.statusCode, 403)
    })

    test('a user key of a user removed from every account is 403, with or without an account header', async () => {
      const user = await t.addUser('READ_WRITE')
      assert.equal((await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })).statusCode, 200)
      await accounts.removeMember(t.ctx, { ...t.owner, role: 'OWNER' }, user.userId ?? '')

      const unnamed = await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })
      assert.equal(unnamed.statusCode, 403)
      assert.equal(json(unnamed).message, 'The key’s user belongs to no account')
      const named = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: user,
        account: t.owner.accountId,
      })
      assert.equal(named.statusCode, 403)
      assert.equal(json(named).message, 'The key has no access to that account')
    })

    test('a bad account header is 400, before anything else', async () => {
      for (const value of ['not-a-uuid', "1' OR '1'='1", '🙂']) {
        const res = await t.call({
          method: 'GET',
          url: '/v1/accounts/me',
          headers: { 'x-svc-account': value },
        })
        assert.equal(res.statusCode, 400, value)
        assert.equal(json(res).error, 'Bad Request')
      }
    })

    test('a service key belongs to one account and may omit the header; naming another is 403', async () => {
      const key = await keys.createApiKey(t.ctx, {
        name: 'ci',
        owner: { accountId: t.owner.accountId, role: 'READ_WRITE' },
      })
      const service = { userId: null, accountId: t.owner.accountId, key: key.key }
      const me = await t.call({ method: 'GET', url: '/v1/accounts/me', as: service })
      assert.equal(json(me).id, t.owner.accountId)
      const same = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: service,
        account: t.owner.accountId,
      })
      assert.equal(same.statusCode, 200)
      const other = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: service,
        account: randomUUID(),
      })
      assert.equal(other.statusCode, 403)
      const accountsList = await t.call({ method: 'GET', url: '/v1/accounts', as: service })
      assert.deepEqual(
        json(accountsList).map((a: { id: string }) => a.id),
        [t.owner.accountId],
      )
      const adminOnly = await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        as: service,
        payload: { name: 'x' },
      })
      assert.equal(adminOnly.statusCode, 403)
    })

    test('roles: READ_ONLY reads, READ_WRITE writes, ADMIN manages the account', async () => {
      const reader = await t.addUser('READ_ONLY')
      const writer = await t.addUser('READ_WRITE')
      const admin = await t.addUser('ADMIN')
      const patch = { method: 'PATCH' as const, url: '/v1/accounts/me', payload: { name: 'Renamed' } }
      assert.equal((await t.call({ method: 'GET', url: '/v1/variables', as: reader })).statusCode, 200)
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: '/v1/variables',
            as: reader,
            payload: { key: 'R', value: 'v' },
          })
        ).statusCode,
        403,
      )
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: '/v1/variables',
            as: writer,
            payload: { key: 'W', value: 'v' },
          })
        ).statusCode,
        201,
      )
      assert.equal((await t.call({ ...patch, as: writer })).statusCode, 403)
      const renamed = await t.call({ ...patch, as: admin })
      assert.equal(renamed.statusCode, 200)
      assert.equal(json(renamed).name, 'Renamed')
    })
  })
}
