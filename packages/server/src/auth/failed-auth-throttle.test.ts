import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { buildApp } from '../app.ts'
import type { Clock } from '../clock.ts'
import { HttpError } from '../http/errors.ts'
import { addressGroupOf } from '../rate-limit/client-address.ts'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../testing/test-app.ts'
import { assertNotThrottled, recordFailedAuth } from './failed-auth-throttle.ts'

class FakeClock implements Clock {
  ms = Date.parse('2026-11-29T08:00:00.000Z')
  now = () => new Date(this.ms)
  advance(seconds: number) {
    this.ms += seconds * 1000
  }
}

const LIMIT = { max: 3, windowSeconds: 60 }

function assertThrottled(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  assert.equal(res.statusCode, 429, res.body)
  const body = json(res as never)
  assert.equal(body.error, 'Too Many Requests')
  assert.equal(body.attributes.limit, LIMIT.max)
  assert.equal(body.attributes.windowSeconds, LIMIT.windowSeconds)
  assert.equal(res.headers['retry-after'], String(body.attributes.retryAfterSeconds))
}

test('IPv6 clients are counted by their /64, IPv4 ones (mapped or not) by their address', () => {
  assert.equal(addressGroupOf('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64')
  assert.equal(addressGroupOf('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64')
  assert.equal(addressGroupOf('2001:db8::1'), '2001:db8:0:0::/64')
  assert.equal(addressGroupOf('::1'), '0:0:0:0::/64')
  assert.equal(addressGroupOf('::ffff:192.0.2.7'), '192.0.2.7')
  assert.equal(addressGroupOf('192.0.2.7'), '192.0.2.7')
})

for (const engine of testEngines()) {
  describe(`failed sign-in throttle on ${engine.engine}`, () => {
    let t: TestApp
    const clock = new FakeClock()
    before(async () => {
      t = await createTestApp(engine, { clock, limits: { failedAuth: LIMIT } })
    })
    after(() => t.close())

    const admin = (token: string, remoteAddress: string) =>
      t.app.inject({
        method: 'GET',
        url: '/admin/v1/api-keys',
        headers: { authorization: `Bearer ${token}` },
        remoteAddress,
      })

    test('wrong admin tokens: 401 up to the limit, then 429 with retry-after, even for the right token', async () => {
      const address = '192.0.2.10'
      for (let i = 0; i < LIMIT.max; i++) assert.equal((await admin('wrong', address)).statusCode, 401)
      assertThrottled(await admin('wrong', address))
      // A throttled address learns nothing more about its guesses, right or wrong.
      const right = await admin(TEST_ADMIN_TOKEN, address)
      assertThrottled(right)
      assert.equal(json(right).attributes.retryAfterSeconds, LIMIT.windowSeconds)
      // Another address is not held back.
      assert.equal((await admin(TEST_ADMIN_TOKEN, '192.0.2.11')).statusCode, 200)
      clock.advance(LIMIT.windowSeconds)
      assert.equal((await admin(TEST_ADMIN_TOKEN, address)).statusCode, 200)
    })

    test('unknown API keys: 429 after the limit; a valid key still works and writes no failure', async () => {
      const address = '192.0.2.20'
      const call = (authorization: string) =>
        t.app.inject({
          method: 'GET',
          url: '/v1/accounts/me',
          headers: { authorization },
          remoteAddress: address,
        })
      const failures = async () =>
        (
          await t.ctx.db
            .selectFrom('rate_limit_windows')
            .selectAll()
            .where('bucket', 'like', 'failed-auth:%')
            .execute()
        )
          .map((row) => `${row.bucket}=${row.hits}`)
          .sort()
      const before = await failures()
      assert.equal((await call(`Bearer ${t.owner.key}`)).statusCode, 200)
      assert.deepEqual(await failures(), before, 'a valid key records nothing')
      for (let i = 0; i < LIMIT.max; i++) {
        const res = await call(`Bearer svc_${'x'.repeat(43)}`)
        assert.equal(res.statusCode, 401)
        assert.equal(json(res).message, 'Bad Token')
      }
      assertThrottled(await call(`Bearer svc_${'y'.repeat(43)}`))
      // A malformed header counts the same.
      assertThrottled(await call('Basic abc'))
      // Keys are 32 random bytes, not guessable: a valid key isn't refused for its address's failures.
      assert.equal((await call(`Bearer ${t.owner.key}`)).statusCode, 200)
      assert.ok((await failures()).includes('failed-auth:api-key:192.0.2.20=5'))
    })

    test('a request without any key is no failed attempt', async () => {
      const address = '192.0.2.30'
      for (let i = 0; i < LIMIT.max + 2; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/v1/accounts/me', remoteAddress: address })
        assert.equal(res.statusCode, 401)
      }
    })

    test('wrong private-location keys: 401 up to the limit, then 429', async () => {
      const address = '192.0.2.40'
      const poll = () =>
        t.app.inject({
          method: 'GET',
          url: '/agent/v1/jobs?waitSeconds=0',
          headers: { authorization: 'Bearer svcpl_wrong', 'x-svc-agent-id': 'agent-1' },
          remoteAddress: address,
        })
      for (let i = 0; i < LIMIT.max; i++) assert.equal((await poll()).statusCode, 401)
      assertThrottled(await poll())
    })

    test('password attempts (the dashboard sign-in) use the same module: assert, then record failures', async () => {
      const address = '198.51.100.5'
      for (let i = 0; i < LIMIT.max; i++) {
        await assertNotThrottled(t.ctx, 'password', address)
        await recordFailedAuth(t.ctx, 'password', address)
      }
      const refused = await recordFailedAuth(t.ctx, 'password', address).catch((error: unknown) => error)
      assert.ok(refused instanceof HttpError)
      assert.equal(refused.statusCode, 429)
      const stillRefused = await assertNotThrottled(t.ctx, 'password', address).catch(
        (error: unknown) => error,
      )
      assert.ok(stillRefused instanceof HttpError && stillRefused.statusCode === 429)
      // Each kind counts on its own: failed passwords don't lock the address out of the admin API.
      assert.equal((await admin(TEST_ADMIN_TOKEN, address)).statusCode, 200)
    })

    test('nodes share the count: failures on one node throttle the address on another', async () => {
      const address = '192.0.2.50'
      const other = await buildApp({
        store: t.store,
        secretBox: t.ctx.secretBox,
        scripts: t.ctx.scripts,
        publicUrl: t.ctx.publicUrl,
        adminToken: TEST_ADMIN_TOKEN,
        clock,
        limits: t.ctx.limits,
      })
      try {
        for (let i = 0; i < LIMIT.max; i++) assert.equal((await admin('wrong', address)).statusCode, 401)
        const res = await other.inject({
          method: 'GET',
          url: '/admin/v1/api-keys',
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          remoteAddress: address,
        })
        assertThrottled(res)
      } finally {
        await other.close()
      }
    })

    test('without SVC_TRUST_PROXY, X-Forwarded-For does not change whom a failure is counted for', async () => {
      const address = '192.0.2.60'
      for (let i = 0; i <= LIMIT.max; i++) {
        const res = await t.app.inject({
          method: 'GET',
          url: '/admin/v1/api-keys',
          headers: { authorization: 'Bearer wrong', 'x-forwarded-for': `203.0.113.${i}` },
          remoteAddress: address,
        })
        if (i < LIMIT.max) assert.equal(res.statusCode, 401)
        else assertThrottled(res)
      }
    })
  })

  describe(`failed sign-in throttle behind a trusted proxy on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine, { limits: { failedAuth: LIMIT }, trustProxy: ['127.0.0.1'] })
    })
    after(() => t.close())

    test('each client named by the proxy is counted on its own', async () => {
      const admin = (client: string, token: string) =>
        t.app.inject({
          method: 'GET',
          url: '/admin/v1/api-keys',
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client },
          remoteAddress: '127.0.0.1',
        })
      for (let i = 0; i < LIMIT.max; i++) assert.equal((await admin('203.0.113.1', 'wrong')).statusCode, 401)
      assertThrottled(await admin('203.0.113.1', 'wrong'))
      assert.equal((await admin('203.0.113.2', TEST_ADMIN_TOKEN)).statusCode, 200)
    })
  })
}
