import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import * as accounts from '../accounts/accounts.service.ts'
import { plainValue } from './variables.service.ts'

const MASK = '***masked***'

for (const engine of testEngines()) {
  describe(`environment variables on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-22T10:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    const create = (payload: object) => t.call({ method: 'POST', url: '/v1/variables', payload })
    const rawRow = (key: string) =>
      t.store.db.selectFrom('variables').selectAll().where('key', '=', key).executeTakeFirstOrThrow()

    test('creates with defaults and the full resource shape', async () => {
      const res = await create({ key: 'BASE_URL', value: 'https://example.com', description: 'where' })
      assert.equal(res.statusCode, 201)
      const variable = json(res)
      assert.match(variable.id, /^[0-9a-f-]{36}$/)
      assert.deepEqual(
        { ...variable, id: undefined },
        {
          id: undefined,
          key: 'BASE_URL',
          value: 'https://example.com',
          locked: false,
          secret: false,
          description: 'where',
          usage: { checksCount: 0, checkGroupsCount: 0 },
          createdAt: '2026-11-22T10:00:00.000Z',
          updatedAt: '2026-11-22T10:00:00.000Z',
        },
      )
      const again = await create({ key: 'BASE_URL', value: 'x' })
      assert.equal(again.statusCode, 409)
      assert.deepEqual(json(again), {
        statusCode: 409,
        error: 'Conflict',
        message: 'Variable BASE_URL exists already',
      })
    })

    test('rejects bad keys, oversized values, wrong types and unknown fields with a 400 naming the field', async () => {
      for (const key of ["a'; drop table variables; --", 'ключ', '', '1ABC', 'A-B', 'K'.repeat(129)]) {
        const res = await create({ key, value: 'v' })
        assert.equal(res.statusCode, 400, key)
        assert.match(json(res).message, /^body\.key /)
        assert.equal(json(res).attributes.errors[0].path, 'body.key')
      }
      assert.match(json(await create({ key: 'BIG', value: 'x'.repeat(10_001) })).message, /^body\.value /)
      assert.equal((await create({ key: 'OK_MAX', value: 'x'.repeat(10_000) })).statusCode, 201)
      assert.equal(json(await create({ key: 'N', value: 5 })).message, 'body.value must be string')
      assert.equal(json(await create({ key: 'N', value: 'v', foo: 1 })).message, 'body.foo is not allowed')
      assert.equal(
        json(await create({ key: 'N', value: 'v', locked: 'true' })).message,
        'body.locked must be boolean',
      )
    })

    test('locked and secret values are masked everywhere and encrypted at rest', async () => {
      const locked = json(await create({ key: 'LOCKED_TOKEN', value: 'tok-123', locked: true }))
      const secret = json(await create({ key: 'SECRET_PASS', value: 'pa55', secret: true }))
      assert.equal(locked.value, MASK)
      assert.equal(secret.value, MASK)
      assert.equal(json(await t.call({ method: 'GET', url: '/v1/variables/LOCKED_TOKEN' })).value, MASK)
      const listed = json(await t.call({ method: 'GET', url: '/v1/variables?limit=100' }))
      assert.equal(listed.find((v: { key: string }) => v.key === 'SECRET_PASS').value, MASK)

      for (const [key, plaintext] of [
        ['LOCKED_TOKEN', 'tok-123'],
        ['SECRET_PASS', 'pa55'],
      ] as const) {
        const row = await rawRow(key)
        assert.equal(row.value, null)
        assert.match(row.encrypted_value ?? '', /^v2:[0-9a-f]{8}:/)
        assert.equal(JSON.stringify(row).includes(plaintext), false)
        assert.equal(t.ctx.secretBox.decrypt(row.encrypted_value ?? ''), plaintext)
      }
      assert.equal((await rawRow('BASE_URL')).value, 'https://example.com')
    })

    test('updates: lock and unlock move the value in and out of encryption; the key is immutable', async () => {
      nowMs += 60_000
      const lockedNow = await t.call({
        method: 'PUT',
        url: '/v1/variables/BASE_URL',
        payload: { locked: true },
      })
      assert.equal(lockedNow.statusCode, 200)
      assert.equal(json(lockedNow).value, MASK)
      assert.equal(json(lockedNow).updatedAt, '2026-11-22T10:01:00.000Z')
      assert.equal(json(lockedNow).createdAt, '2026-11-22T10:00:00.000Z')
      assert.equal((await rawRow('BASE_URL')).value, null)

      const unlocked = await t.call({
        method: 'PUT',
        url: '/v1/variables/BASE_URL',
        payload: { key: 'BASE_URL', locked: false, description: 'changed' },
      })
      assert.equal(json(unlocked).value, 'https://example.com')
      assert.equal(json(unlocked).description, 'changed')
      assert.equal((await rawRow('BASE_URL')).value, 'https://example.com')

      const value = await t.call({
        method: 'PUT',
        url: '/v1/variables/BASE_URL',
        payload: { value: 'https://b.test' },
      })
      assert.equal(json(value).value, 'https://b.test')

      const rename = await t.call({ method: 'PUT', url: '/v1/variables/BASE_URL', payload: { key: 'OTHER' } })
      assert.equal(rename.statusCode, 400)
      assert.equal(json(rename).attributes.errors[0].path, 'body.key')
    })

    test('a secret stays secret and masked', async () => {
      const unsecret = await t.call({
        method: 'PUT',
        url: '/v1/variables/SECRET_PASS',
        payload: { secret: false },
      })
      assert.equal(unsecret.statusCode, 400)
      assert.equal(json(unsecret).attributes.errors[0].path, 'body.secret')
      const unlocked = await t.call({
        method: 'PUT',
        url: '/v1/variables/SECRET_PASS',
        payload: { locked: false, value: 'new-pass' },
      })
      assert.equal(unlocked.statusCode, 200)
      assert.equal(json(unlocked).value, MASK)
      assert.equal((await rawRow('SECRET_PASS')).value, null)
    })

    test('***masked*** sent back in an update keeps the stored value, as for check variables', async () => {
      await create({ key: 'ROUND_TRIP_SECRET', value: 'the-real-secret', secret: true })
      await create({ key: 'ROUND_TRIP_LOCKED', value: 'the-real-locked', locked: true })
      // A client that read the variable writes the masked value back with another change.
      for (const key of ['ROUND_TRIP_SECRET', 'ROUND_TRIP_LOCKED']) {
        const res = await t.call({
          method: 'PUT',
          url: `/v1/variables/${key}`,
          payload: { value: MASK, description: 'edited' },
        })
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(json(res).description, 'edited')
      }
      assert.equal(plainValue(t.ctx, await rawRow('ROUND_TRIP_SECRET')), 'the-real-secret')
      const unlocked = await t.call({
        method: 'PUT',
        url: '/v1/variables/ROUND_TRIP_LOCKED',
        payload: { value: MASK, locked: false },
      })
      assert.equal(json(unlocked).value, 'the-real-locked')
      // A plain variable shows its value, so the mask text sent to it is a value like any other.
      await create({ key: 'ROUND_TRIP_PLAIN', value: 'plain' })
      const plain = await t.call({
        method: 'PUT',
        url: '/v1/variables/ROUND_TRIP_PLAIN',
        payload: { value: MASK },
      })
      assert.equal(json(plain).value, MASK)
    })

    test('get, update and delete of a missing key are 404; delete is 204 with no body', async () => {
      assert.equal((await t.call({ method: 'GET', url: '/v1/variables/NOPE' })).statusCode, 404)
      assert.equal((await t.call({ method: 'PUT', url: '/v1/variables/NOPE', payload: {} })).statusCode, 404)
      assert.equal((await t.call({ method: 'GET', url: '/v1/variables/bad-key!' })).statusCode, 400)
      await create({ key: 'TEMP', value: 'x' })
      const deleted = await t.call({ method: 'DELETE', url: '/v1/variables/TEMP' })
      assert.equal(deleted.statusCode, 204)
      assert.equal(deleted.body, '')
      assert.equal((await t.call({ method: 'GET', url: '/v1/variables/TEMP' })).statusCode, 404)
      assert.equal((await t.call({ method: 'DELETE', url: '/v1/variables/TEMP' })).statusCode, 404)
    })

    test('lists page by key with content-range, and filter by key pattern and locked', async () => {
      const other = await t.addUser('READ_ONLY', (await accounts.createAccount(t.ctx, { name: 'Other' })).id)
      const denied = await t.call({
        method: 'POST',
        url: '/v1/variables',
        as: other,
        payload: { key: 'RO', value: 'x' },
      })
      assert.equal(denied.statusCode, 403, 'READ_ONLY members cannot write')
      const writer = await t.addUser('READ_WRITE', other.accountId)
      for (let i = 0; i < 25; i++) {
        await t.call({
          method: 'POST',
          url: '/v1/variables',
          as: writer,
          payload: { key: `V_${String(i).padStart(2, '0')}`, value: String(i), locked: i % 5 === 0 },
        })
      }
      for (const key of ['API_TOKEN', 'APP_TOKEN', 'A_B', 'AXB', 'api_token']) {
        await t.call({ method: 'POST', url: '/v1/variables', as: writer, payload: { key, value: 'x' } })
      }
      const list = (query: string) => t.call({ method: 'GET', url: `/v1/variables?${query}`, as: other })
      const keys = async (query: string) => json(await list(query)).map((v: { key: string }) => v.key)

      const first = await list('')
      assert.equal(json(first).length, 10)
      assert.equal(first.headers['content-range'], 'items 0-9/30')
      assert.deepEqual(json(first)[0].key, 'API_TOKEN')
      const third = await list('limit=10&page=3')
      assert.equal(third.headers['content-range'], 'items 20-29/30')
      const beyond = await list('limit=10&page=4')
      assert.deepEqual(json(beyond), [])
      assert.equal(beyond.headers['content-range'], 'items */30')
      for (const bad of ['limit=0', 'limit=101', 'page=0', 'limit=abc', 'locked=maybe', 'key=a%20b']) {
        assert.equal((await list(bad)).statusCode, 400, bad)
      }

      assert.deepEqual(await keys('key=*_TOKEN'), ['API_TOKEN', 'APP_TOKEN'])
      assert.deepEqual(await keys('key=A*B'), ['AXB', 'A_B'])
      assert.deepEqual(await keys('key=A_B'), ['A_B'])
      assert.deepEqual(await keys('key=api_*'), ['api_token'])
      assert.deepEqual(await keys('key=V_1*&limit=100'), [
        'V_10',
        'V_11',
        'V_12',
        'V_13',
        'V_14',
        'V_15',
        'V_16',
        'V_17',
        'V_18',
        'V_19',
      ])
      assert.deepEqual(await keys('locked=true&limit=100'), ['V_00', 'V_05', 'V_10', 'V_15', 'V_20'])
      assert.equal((await list('locked=false&limit=100')).headers['content-range'], 'items 0-24/25')

      // Another account's variables are invisible: 404, never 403.
      assert.equal((await t.call({ method: 'GET', url: '/v1/variables/V_01' })).statusCode, 404)
      assert.equal((await t.call({ method: 'DELETE', url: '/v1/variables/V_01' })).statusCode, 404)
      assert.equal((await t.call({ method: 'GET', url: '/v1/variables/V_01', as: other })).statusCode, 200)
    })

    test('usage counts the checks and groups that refer to a variable, and follows their changes', async () => {
      await create({ key: 'USED_HOST', value: 'example.com' })
      await create({ key: 'USED_TOKEN', value: 'abc', secret: true })
      const usage = async (key: string) =>
        json(await t.call({ method: 'GET', url: `/v1/variables/${key}` })).usage
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/api',
          payload: {
            name: 'uses both',
            request: {
              url: 'https://{{USED_HOST}}/',
              headers: [{ key: 'Authorization', value: 'Bearer {{ USED_TOKEN }}' }],
            },
          },
        }),
      )
      await t.call({
        method: 'POST',
        url: '/v1/checks/browser',
        payload: {
          name: 'script',
          script: "const host = process.env.USED_HOST; await page.goto('https://' + host)",
          environmentVariables: [{ key: 'USED_TOKEN', value: 'own' }],
        },
      })
      await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name: 'defines its own',
          request: { url: 'https://x/{{USED_TOKEN}}' },
          environmentVariables: [{ key: 'USED_TOKEN', value: 'own' }],
        },
      })
      assert.deepEqual(await usage('USED_HOST'), { checksCount: 2, checkGroupsCount: 0 })
      assert.deepEqual(await usage('USED_TOKEN'), { checksCount: 1, checkGroupsCount: 0 })
      const listed = json(await t.call({ method: 'GET', url: '/v1/variables?key=USED_*' }))
      assert.deepEqual(
        listed.map((v: any) => [v.key, v.usage.checksCount]),
        [
          ['USED_HOST', 2],
          ['USED_TOKEN', 1],
        ],
      )
      await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { request: { url: 'https://fixed.example.com/' } },
      })
      assert.deepEqual(await usage('USED_TOKEN'), { checksCount: 0, checkGroupsCount: 0 })
      await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
      assert.deepEqual(await usage('USED_HOST'), { checksCount: 1, checkGroupsCount: 0 })
    })
  })
}
