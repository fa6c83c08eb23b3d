import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`account routes by id and entitlements on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine, { limits: { accountRateLimit: 900, serviceKeysPerAccount: 7 } })
    })
    after(() => t.close())
    const base = () => `/v1/accounts/${t.owner.accountId}`

    test('GET /v1/accounts/{accountId} is the account /me answers; another account’s id is 404', async () => {
      const me = json(await t.call({ method: 'GET', url: '/v1/accounts/me' }))
      const res = await t.call({
        method: 'GET',
        url: base(),
        headers: { 'x-checkly-account': t.owner.accountId },
      })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(json(res), me)
      const stranger = await ownerOfAnotherAccount(t)
      const foreign = await t.call({ method: 'GET', url: `/v1/accounts/${stranger.accountId}` })
      assert.equal(foreign.statusCode, 404)
      assert.equal(json(foreign).message, `Account ${stranger.accountId} not found`)
    })

    test('entitlements state the install’s real limits; unlimited ones carry no quantity', async () => {
      const mine = json(await t.call({ method: 'GET', url: '/v1/accounts/me/entitlements' }))
      assert.deepEqual(json(await t.call({ method: 'GET', url: `${base()}/entitlements` })), mine)
      assert.equal(mine.plan, 'self-hosted')
      assert.deepEqual(mine.locations.all, [
        { id: 'local', name: 'local', available: true },
        { id: 'eu-west-1', name: 'eu-west-1', available: true },
      ])
      const byKey = new Map(mine.entitlements.map((e: any) => [e.key, e]))
      assert.equal((byKey.get('API_RATE_LIMIT') as any).quantity, 600)
      assert.equal((byKey.get('ACCOUNT_API_RATE_LIMIT') as any).quantity, 900)
      assert.equal((byKey.get('SERVICE_API_KEYS') as any).quantity, 7)
      assert.equal((byKey.get('CHECK_ENVIRONMENT_VARIABLES') as any).quantity, 50)
      assert.equal('quantity' in (byKey.get('CHECKS') as any), false)
      assert.equal((byKey.get('CLIENT_CERTIFICATES') as any).enabled, true)
      assert.equal((byKey.get('API_CHECKS') as any).type, 'flag')
    })

    test('members by account id follow the /me rules: roles, own role, the last OWNER', async () => {
      const member = await t.addUser('READ_ONLY')
      const listed = json(await t.call({ method: 'GET', url: `${base()}/members?role=READ_ONLY` }))
      assert.deepEqual(
        listed.members.map((m: any) => m.userId),
        [member.userId],
      )
      assert.equal(listed.nextId, null)
      const changed = await t.call({
        method: 'PATCH',
        url: `${base()}/members/${member.userId}`,
        payload: { role: 'READ_WRITE' },
      })
      assert.equal(changed.statusCode, 200, changed.body)
      assert.equal(json(changed).role, 'READ_WRITE')
      const own = await t.call({
        method: 'PATCH',
        url: `${base()}/members/${t.owner.userId}`,
        payload: { role: 'ADMIN' },
      })
      assert.equal(own.statusCode, 403)
      const lastOwner = await t.call({
        method: 'DELETE',
        url: `${base()}/members/${t.owner.userId}`,
        as: member,
      })
      assert.equal(lastOwner.statusCode, 403, 'a READ_WRITE member may not remove anyone')
      const admin = await t.addUser('ADMIN')
      const removeOwner = await t.call({
        method: 'DELETE',
        url: `${base()}/members/${t.owner.userId}`,
        as: admin,
      })
      assert.equal(removeOwner.statusCode, 403)
      assert.equal(json(removeOwner).message, 'Only an OWNER can remove an OWNER')
      const removeSelf = await t.call({ method: 'DELETE', url: `${base()}/members/${t.owner.userId}` })
      assert.equal(removeSelf.statusCode, 409)
      assert.equal(json(removeSelf).message, 'An account must keep at least one OWNER')
      const removed = await t.call({ method: 'DELETE', url: `${base()}/members/${member.userId}` })
      assert.equal(removed.statusCode, 204)
      const after = json(await t.call({ method: 'GET', url: `${base()}/members` }))
      assert.equal(
        after.members.some((m: any) => m.userId === member.userId),
        false,
      )
    })
  })
}
