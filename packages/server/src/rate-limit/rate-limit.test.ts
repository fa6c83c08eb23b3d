import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AuthContext } from '../auth/authenticate.ts'
import type { Clock } from '../clock.ts'
import * as accounts from '../features/accounts/accounts.service.ts'
import { HttpError } from '../http/errors.ts'
import { createTestApp, json, ownerOfAnotherAccount, type Tenant, type TestApp } from '../testing/test-app.ts'
import { countHit } from './rate-limit.repo.ts'
import { enforceRateLimits, pruneRateLimitWindows } from './rate-limit.ts'

class FakeClock implements Clock {
  ms = Date.parse('2026-11-22T12:00:00.000Z')
  now = () => new Date(this.ms)
  advance(seconds: number) {
    this.ms += seconds * 1000
  }
}

for (const engine of testEngines()) {
  describe(`rate limits on ${engine.engine}`, () => {
    let t: TestApp
    const clock = new FakeClock()
    before(async () => {
      t = await createTestApp(engine, { clock })
    })
    after(() => t.close())

    test('the window starts at the first request after the previous window ended', async () => {
      const a = await countHit(t.ctx, 'w', 1_000, 60_000)
      assert.deepEqual({ start: Number(a.window_start_ms), hits: Number(a.hits) }, { start: 1_000, hits: 1 })
      const b = await countHit(t.ctx, 'w', 60_999, 60_000)
      assert.deepEqual({ start: Number(b.window_start_ms), hits: Number(b.hits) }, { start: 1_000, hits: 2 })
      // Quiet for longer than a window: the next hit opens a new one at its own time, not at a grid line.
      const c = await countHit(t.ctx, 'w', 200_500, 60_000)
      assert.deepEqual(
        { start: Number(c.window_start_ms), hits: Number(c.hits) },
        { start: 200_500, hits: 1 },
      )
    })

    test('pruning removes the windows of buckets not hit for a day and keeps the others', async () => {
      const nowMs = clock.now().getTime()
      await countHit(t.ctx, 'prune:stale', nowMs - 86_400_001, 3_600_000)
      await countHit(t.ctx, 'prune:recent', nowMs - 86_399_000, 3_600_000)
      await countHit(t.ctx, 'prune:open', nowMs, 60_000)
      const buckets = async () =>
        (await t.ctx.db.selectFrom('rate_limit_windows').select('bucket').orderBy('bucket').execute()).map(
          (row) => row.bucket,
        )
      const before = await buckets()
      // The earlier tests' windows (e.g. 'w', at 1970 times) are long over too.
      const pruned = await pruneRateLimitWindows(t.ctx)
      const left = await buckets()
      assert.deepEqual(
        left.filter((bucket) => bucket.startsWith('prune:')),
        ['prune:open', 'prune:recent'],
      )
      assert.ok(!left.includes('w'))
      assert.equal(pruned, before.length - left.length)
      // A pruned bucket hit again opens a new window of its own.
      const again = await countHit(t.ctx, 'prune:stale', nowMs, 60_000)
      assert.deepEqual([Number(again.window_start_ms), Number(again.hits)], [nowMs, 1])
    })

    test('headers count down; the 601st request is 429; the next window resets', async () => {
      const user = await t.addUser('READ_ONLY')
      const first = await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })
      assert.equal(first.headers['x-ratelimit-limit'], '600')
      assert.equal(first.headers['x-ratelimit-remaining'], '599')
      assert.equal(first.headers['x-ratelimit-reset'], '60')
      clock.advance(15)
      let last = first
      for (let i = 0; i < 599; i++) last = await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })
      assert.equal(last.statusCode, 200)
      assert.equal(last.headers['x-ratelimit-remaining'], '0')
      assert.equal(last.headers['x-ratelimit-reset'], '45')

      const limited = await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })
      assert.equal(limited.statusCode, 429)
      assert.equal(limited.headers['retry-after'], '45')
      assert.deepEqual(json(limited), {
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Rate limit exceeded: 600 requests per 60 seconds',
        attributes: { limit: 600, windowSeconds: 60, retryAfterSeconds: 45 },
      })
      // Another key of the same account has its own budget.
      assert.equal((await t.call({ method: 'GET', url: '/v1/accounts/me' })).statusCode, 200)

      clock.advance(45)
      const fresh = await t.call({ method: 'GET', url: '/v1/accounts/me', as: user })
      assert.equal(fresh.statusCode, 200)
      assert.equal(fresh.headers['x-ratelimit-remaining'], '599')
    })

    test('a live key is counted and gets the headers whatever the outcome; a 401 has no key to count', async () => {
      const reader = await t.addUser('READ_ONLY')
      const remaining = (res: { headers: Record<string, unknown> }) => res.headers['x-ratelimit-remaining']

      const tooLow = await t.call({
        method: 'POST',
        url: '/v1/variables',
        as: reader,
        payload: { key: 'A', value: 'b' },
      })
      assert.equal(tooLow.statusCode, 403)
      assert.equal(json(tooLow).message, 'This operation needs the READ_WRITE role or higher')
      assert.equal(tooLow.headers['x-ratelimit-limit'], '600')
      assert.equal(remaining(tooLow), '599')
      assert.equal(tooLow.headers['x-ratelimit-reset'], '60')

      const otherAccount = (await accounts.createAccount(t.ctx, { name: 'Elsewhere' })).id
      const noAccess = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: reader,
        account: otherAccount,
      })
      assert.equal(noAccess.statusCode, 403)
      assert.equal(remaining(noAccess), '598')

      const badHeader = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: reader,
        headers: { 'x-svc-account': 'not-a-uuid' },
      })
      assert.equal(badHeader.statusCode, 400)
      assert.equal(remaining(badHeader), '597')

      const ok = await t.call({ method: 'GET', url: '/v1/accounts/me', as: reader })
      assert.equal(ok.statusCode, 200)
      assert.equal(remaining(ok), '596')

      for (const authorization of [undefined, 'Bearer svc_unknown0000000000000000000000000000']) {
        const res = await t.call({
          method: 'GET',
          url: '/v1/accounts/me',
          as: null,
          headers: authorization ? { authorization } : {},
        })
        assert.equal(res.statusCode, 401)
        assert.equal(res.headers['x-ratelimit-limit'], undefined)
        assert.equal(res.headers['x-ratelimit-remaining'], undefined)
      }
    })

    test('a route limit applies besides the global one and reports the tighter budget', async () => {
      const auth: AuthContext = {
        keyId: 'route-limit-key',
        keyType: 'USER',
        userId: null,
        accountId: t.owner.accountId,
        role: 'OWNER',
      }
      const headers: Record<string, unknown> = {}
      const reply = {
        header: (name: string, value: unknown) => (headers[name] = value),
      } as unknown as FastifyReply
      const request = {
        routeOptions: { config: { rateLimit: { group: 'analytics', max: 3 } } },
      } as FastifyRequest
      for (let i = 0; i < 3; i++) await enforceRateLimits(t.ctx, auth, request, reply)
      assert.deepEqual(headers, {
        'x-ratelimit-limit': 3,
        'x-ratelimit-remaining': 0,
        'x-ratelimit-reset': 60,
      })
      const error = await enforceRateLimits(t.ctx, auth, request, reply).catch((e: unknown) => e)
      assert.ok(error instanceof HttpError)
      assert.equal(error.statusCode, 429)
      assert.deepEqual(error.attributes, { limit: 3, windowSeconds: 60, retryAfterSeconds: 60 })

      // The global window counted all four requests too.
      const plain = { routeOptions: { config: {} } } as FastifyRequest
      await enforceRateLimits(t.ctx, auth, plain, reply)
      assert.equal(headers['x-ratelimit-remaining'], 595)
    })
  })

  describe(`the per-account rate limit on ${engine.engine}`, () => {
    let t: TestApp
    const clock = new FakeClock()
    const ACCOUNT_LIMIT = 5
    before(async () => {
      t = await createTestApp(engine, { clock, limits: { accountRateLimit: ACCOUNT_LIMIT } })
    })
    after(() => t.close())

    test("all keys of an account share its budget: more keys don't multiply it", async () => {
      const keyA = await t.addUser('READ_ONLY')
      const keyB = await t.addUser('READ_ONLY')
      const me = (as: Tenant) => t.call({ method: 'GET', url: '/v1/accounts/me', as })
      // The owner's own account, named by a stranger's key: a 403 that mustn't use up its budget.
      const stranger = await ownerOfAnotherAccount(t)
      const foreign = await t.call({
        method: 'GET',
        url: '/v1/accounts/me',
        as: stranger,
        account: t.owner.accountId,
      })
      assert.equal(foreign.statusCode, 403)

      const first = await me(keyA)
      assert.equal(first.statusCode, 200)
      // The account's budget is tighter than the key's 600, so the headers tell it.
      assert.equal(first.headers['x-ratelimit-limit'], String(ACCOUNT_LIMIT))
      assert.equal(first.headers['x-ratelimit-remaining'], String(ACCOUNT_LIMIT - 1))
      for (let i = 1; i < ACCOUNT_LIMIT; i++) assert.equal((await me(i % 2 ? keyB : keyA)).statusCode, 200)
      clock.advance(20)
      const limited = await me(keyB)
      assert.equal(limited.statusCode, 429)
      assert.equal(limited.headers['retry-after'], '40')
      assert.deepEqual(json(limited), {
        statusCode: 429,
        error: 'Too Many Requests',
        message: `Rate limit exceeded: ${ACCOUNT_LIMIT} requests per 60 seconds`,
        attributes: { limit: ACCOUNT_LIMIT, windowSeconds: 60, retryAfterSeconds: 40 },
      })
      // A key never used before is held back too: the account's share is spent.
      assert.equal((await me(t.owner)).statusCode, 429)
      // Another account has its own budget.
      assert.equal((await me(stranger)).statusCode, 200)
      clock.advance(40)
      assert.equal((await me(keyA)).statusCode, 200)
    })
  })
}
