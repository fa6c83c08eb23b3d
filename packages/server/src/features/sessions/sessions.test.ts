import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { LightMyRequestResponse } from 'fastify'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../../testing/test-app.ts'
import { pruneSessions } from './sessions.service.ts'
import { MAX_FAILURES_PER_EMAIL } from './sign-in-throttle.ts'

const PASSWORD = 'correct horse battery staple'
const HOUR = 3_600_000

/** A clock the test moves. */
function movableClock() {
  let nowMs = Date.parse('2026-11-01T12:00:00.000Z')
  return {
    now: () => new Date(nowMs),
    advance: (ms: number) => {
      nowMs += ms
    },
  }
}

async function emailOf(t: TestApp, userId: string): Promise<string> {
  const user = await t.store.db
    .selectFrom('users')
    .select('email')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  return user.email
}

async function passwordLink(t: TestApp, userId: string) {
  return t.call({
    method: 'POST',
    url: `/admin/v1/users/${userId}/password-link`,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    as: null,
  })
}

async function setPassword(t: TestApp, userId: string, password = PASSWORD) {
  const token = new URL(json(await passwordLink(t, userId)).url).searchParams.get('token')
  const set = await t.call({
    method: 'POST',
    url: '/v1/auth/password',
    payload: { token, password },
    as: null,
  })
  assert.equal(set.statusCode, 204, set.body)
}

function signIn(t: TestApp, payload: object, headers: Record<string, string> = {}) {
  return t.call({ method: 'POST', url: '/v1/auth/sign-in', payload, headers, as: null })
}

function cookieOf(response: LightMyRequestResponse): string {
  const header = String(response.headers['set-cookie'])
  const match = header.match(/svc_session=([^;]*)/)
  assert.ok(match, `a session cookie in ${header}`)
  return `svc_session=${match[1]}`
}

/** Signs the user in with their password; answers the cookie and CSRF token. */
async function sessionOf(t: TestApp, userId: string) {
  const signedIn = await signIn(t, { email: await emailOf(t, userId), password: PASSWORD })
  assert.equal(signedIn.statusCode, 200, signedIn.body)
  return { cookie: cookieOf(signedIn), csrf: json(signedIn).csrfToken as string }
}

for (const engine of testEngines()) {
  describe(`dashboard sessions on ${engine.engine}`, () => {
    let t: TestApp
    const clock = movableClock()
    before(async () => {
      // Every sign-in here comes from one address: its own limit (tested with the failed-auth throttle)
      // would stop the suite before the per-email one it tests.
      t = await createTestApp(engine, { clock, limits: { failedAuth: { max: 1000, windowSeconds: 300 } } })
      await setPassword(t, t.owner.userId as string)
    })
    after(() => t.close())

    test('sign-in with a password sets an HttpOnly, SameSite=Lax session cookie and answers the user and accounts', async () => {
      const email = await emailOf(t, t.owner.userId as string)
      const signedIn = await signIn(t, { email: email.toUpperCase(), password: PASSWORD })
      assert.equal(signedIn.statusCode, 200, signedIn.body)
      const cookie = String(signedIn.headers['set-cookie'])
      assert.match(cookie, /^svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/)
      const body = json(signedIn)
      assert.deepEqual(body.user, { id: t.owner.userId, email, name: body.user.name })
      assert.deepEqual(body.accounts, [{ id: t.owner.accountId, name: 'Test account', role: 'OWNER' }])
      assert.match(body.csrfToken, /^[A-Za-z0-9_-]{43}$/)
      const stored = await t.store.db.selectFrom('sessions').select('id_hash').execute()
      const id = cookieOf(signedIn).slice('svc_session='.length)
      assert.equal(JSON.stringify(stored).includes(id), false, 'only a hash of the id is stored')

      const session = await t.call({
        method: 'GET',
        url: '/v1/auth/session',
        headers: { cookie: cookieOf(signedIn) },
        as: null,
      })
      assert.equal(session.statusCode, 200)
      assert.deepEqual(json(session), body)
    })

    test('a wrong password or unknown email is 401 in the error shape; a missing field is 400', async () => {
      const email = await emailOf(t, t.owner.userId as string)
      const wrong = await signIn(t, { email, password: 'not the password!' }, {})
      assert.equal(wrong.statusCode, 401)
      assert.deepEqual(Object.keys(json(wrong)).sort(), ['attributes', 'error', 'message', 'statusCode'])
      assert.equal(wrong.headers['set-cookie'], undefined)
      assert.equal((await signIn(t, { email: 'nobody@example.com', password: PASSWORD })).statusCode, 401)
      const user = await t.addUser('READ_WRITE')
      assert.equal(
        (await signIn(t, { email: await emailOf(t, user.userId as string), password: '' })).statusCode,
        400,
      )
      assert.equal((await signIn(t, { email })).statusCode, 400)
      assert.equal((await signIn(t, { email, password: PASSWORD, apiKey: t.owner.key })).statusCode, 400)
      // A user who never set a password can't sign in with one.
      assert.equal(
        (await signIn(t, { email: await emailOf(t, user.userId as string), password: PASSWORD })).statusCode,
        401,
      )
    })

    test('failed sign-ins of one email are throttled: 429 with retry-after, even with the right password', async () => {
      const user = await t.addUser('READ_WRITE')
      await setPassword(t, user.userId as string)
      const email = await emailOf(t, user.userId as string)
      for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++) {
        assert.equal((await signIn(t, { email, password: `wrong password ${i}` })).statusCode, 401)
      }
      const throttled = await signIn(t, { email, password: PASSWORD })
      assert.equal(throttled.statusCode, 429)
      assert.ok(Number(throttled.headers['retry-after']) > 0)
      assert.equal(json(throttled).attributes.limit, MAX_FAILURES_PER_EMAIL)

      clock.advance(16 * 60_000)
      assert.equal((await signIn(t, { email, password: PASSWORD })).statusCode, 200, 'the window passed')
    })

    test('a session reads /v1 routes; writes need the CSRF header (403 and nothing changed without it)', async () => {
      const { cookie, csrf } = await sessionOf(t, t.owner.userId as string)
      const asSession = (options: object, headers: Record<string, string> = {}) =>
        t.call({ ...options, headers: { cookie, ...headers }, as: null } as never)
      const checks = await asSession({ method: 'GET', url: '/v1/checks' })
      assert.equal(checks.statusCode, 200)
      assert.ok(checks.headers['x-ratelimit-limit'], 'a session counts against a rate limit')
      const payload = { key: 'FROM_SESSION', value: 'v' }
      const none = await asSession({ method: 'POST', url: '/v1/variables', payload })
      assert.equal(none.statusCode, 403)
      assert.match(json(none).message, /x-csrf-token/)
      const wrong = await asSession(
        { method: 'POST', url: '/v1/variables', payload },
        { 'x-csrf-token': `${csrf.slice(1)}x` },
      )
      assert.equal(wrong.statusCode, 403)
      const listed = json(await t.call({ method: 'GET', url: '/v1/variables' }))
      assert.equal(
        listed.some((v: { key: string }) => v.key === 'FROM_SESSION'),
        false,
        'nothing was created',
      )
      const created = await asSession(
        { method: 'POST', url: '/v1/variables', payload },
        { 'x-csrf-token': csrf },
      )
      assert.equal(created.statusCode, 201, created.body)
      // A bearer key needs no CSRF token, with or without a cookie beside it.
      const byKey = await t.call({ method: 'DELETE', url: '/v1/variables/FROM_SESSION', headers: { cookie } })
      assert.equal(byKey.statusCode, 204)
    })

    test('a READ_ONLY user’s session reads but its writes are 403', async () => {
      const reader = await t.addUser('READ_ONLY')
      await setPassword(t, reader.userId as string)
      const { cookie, csrf } = await sessionOf(t, reader.userId as string)
      const headers = { cookie, 'x-csrf-token': csrf }
      assert.equal((await t.call({ method: 'GET', url: '/v1/variables', headers, as: null })).statusCode, 200)
      const write = await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'RO', value: 'v' },
        headers,
        as: null,
      })
      assert.equal(write.statusCode, 403)
      assert.match(json(write).message, /READ_WRITE/)
    })

    test('sign-out ends the session on the server: the old cookie is 401 afterwards', async () => {
      const { cookie, csrf } = await sessionOf(t, t.owner.userId as string)
      const noCsrf = await t.call({ method: 'POST', url: '/v1/auth/sign-out', headers: { cookie }, as: null })
      assert.equal(noCsrf.statusCode, 403)
      const out = await t.call({
        method: 'POST',
        url: '/v1/auth/sign-out',
        headers: { cookie, 'x-csrf-token': csrf },
        as: null,
      })
      assert.equal(out.statusCode, 204)
      assert.match(String(out.headers['set-cookie']), /^svc_session=; .*Max-Age=0/)
      assert.equal(
        (await t.call({ method: 'GET', url: '/v1/checks', headers: { cookie }, as: null })).statusCode,
        401,
      )
      const session = await t.call({ method: 'GET', url: '/v1/auth/session', headers: { cookie }, as: null })
      assert.equal(session.statusCode, 401)
      assert.match(String(session.headers['set-cookie']), /Max-Age=0/)
    })

    test('a session ends when idle too long, and at its maximum age however busy', async () => {
      const idle = await sessionOf(t, t.owner.userId as string)
      const busy = await sessionOf(t, t.owner.userId as string)
      const abandoned = await sessionOf(t, t.owner.userId as string)
      const read = (cookie: string) =>
        t.call({ method: 'GET', url: '/v1/checks', headers: { cookie }, as: null })
      // 13 × 12 h = 156 h: short of the 168 h maximum, each use within the 24 h idle timeout.
      for (let step = 1; step <= 13; step++) {
        clock.advance(12 * HOUR)
        assert.equal((await read(busy.cookie)).statusCode, 200, `busy session at hour ${step * 12}`)
      }
      assert.equal((await read(idle.cookie)).statusCode, 401, 'idle for more than a day')
      clock.advance(12 * HOUR)
      assert.equal((await read(busy.cookie)).statusCode, 401, 'past seven days')
      // Housekeeping removes every ended session (the two above went when they were refused).
      const before = await t.store.db.selectFrom('sessions').select('id_hash').execute()
      assert.ok(before.length > 0, 'the abandoned session, and those of earlier tests')
      // And set-password links past their expiry (all of them, a week later).
      const links = await t.store.db.selectFrom('password_links').select('token_hash').execute()
      assert.equal(await pruneSessions(t.ctx), before.length + links.length)
      assert.deepEqual(await t.store.db.selectFrom('sessions').select('id_hash').execute(), [])
      assert.deepEqual(await t.store.db.selectFrom('password_links').select('token_hash').execute(), [])
      assert.equal((await read(abandoned.cookie)).statusCode, 401)
    })

    test('sign-in with an API key: the session acts with the key and ends when the key is revoked', async () => {
      const created = json(
        await t.call({ method: 'POST', url: '/v1/api-keys', payload: { name: 'browser' } }),
      )
      const signedIn = await signIn(t, { apiKey: created.key })
      assert.equal(signedIn.statusCode, 200)
      assert.equal(json(signedIn).user.id, t.owner.userId)
      const cookie = cookieOf(signedIn)
      assert.equal(
        (await t.call({ method: 'GET', url: '/v1/checks', headers: { cookie }, as: null })).statusCode,
        200,
      )
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/api-keys/${created.id}` })).statusCode, 204)
      assert.equal(
        (await t.call({ method: 'GET', url: '/v1/checks', headers: { cookie }, as: null })).statusCode,
        401,
      )
      assert.equal((await signIn(t, { apiKey: created.key })).statusCode, 401)
      assert.equal((await signIn(t, { apiKey: 'svc_unknown' })).statusCode, 401)
    })

    test('a service key’s session has no user, its one account and role; READ_ONLY writes are 403', async () => {
      const key = json(
        await t.call({
          method: 'POST',
          url: '/admin/v1/api-keys',
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          payload: { name: 'ro', accountId: t.owner.accountId, role: 'READ_ONLY' },
          as: null,
        }),
      )
      const signedIn = await signIn(t, { apiKey: key.key })
      assert.equal(signedIn.statusCode, 200, signedIn.body)
      assert.equal(json(signedIn).user, null)
      assert.deepEqual(json(signedIn).accounts, [
        { id: t.owner.accountId, name: 'Test account', role: 'READ_ONLY' },
      ])
      const headers = { cookie: cookieOf(signedIn), 'x-csrf-token': json(signedIn).csrfToken }
      assert.equal((await t.call({ method: 'GET', url: '/v1/checks', headers, as: null })).statusCode, 200)
      const write = await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'K', value: 'v' },
        headers,
        as: null,
      })
      assert.equal(write.statusCode, 403)
    })

    test('a set-password link works once and expires; the admin route answers url and expiresAt', async () => {
      const user = await t.addUser('READ_WRITE')
      const link = await passwordLink(t, user.userId as string)
      assert.equal(link.statusCode, 201)
      const { url, expiresAt } = json(link)
      assert.match(url, /^http:\/\/svc\.test\/set-password\?token=[A-Za-z0-9_-]{43}$/)
      assert.equal(expiresAt, new Date(clock.now().getTime() + 24 * HOUR).toISOString())
      const token = new URL(url).searchParams.get('token')
      const short = await t.call({
        method: 'POST',
        url: '/v1/auth/password',
        payload: { token, password: 'short' },
        as: null,
      })
      assert.equal(short.statusCode, 400)
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: '/v1/auth/password',
            payload: { token, password: PASSWORD },
            as: null,
          })
        ).statusCode,
        204,
      )
      const again = await t.call({
        method: 'POST',
        url: '/v1/auth/password',
        payload: { token, password: `${PASSWORD}!` },
        as: null,
      })
      assert.equal(again.statusCode, 400)
      assert.equal(json(again).attributes.errors[0].path, 'body.token')
      assert.equal(
        (await signIn(t, { email: await emailOf(t, user.userId as string), password: PASSWORD })).statusCode,
        200,
      )

      const expiring = json(await passwordLink(t, user.userId as string))
      clock.advance(24 * HOUR)
      const late = await t.call({
        method: 'POST',
        url: '/v1/auth/password',
        payload: { token: new URL(expiring.url).searchParams.get('token'), password: PASSWORD },
        as: null,
      })
      assert.equal(late.statusCode, 400)
      const unknownUser = await passwordLink(t, '00000000-0000-4000-8000-000000000000')
      assert.equal(unknownUser.statusCode, 404)
      const noAdmin = await t.call({ method: 'POST', url: `/admin/v1/users/${user.userId}/password-link` })
      assert.equal(noAdmin.statusCode, 401, 'a tenant key is no admin token')
    })

    test('a user of several accounts picks one with x-svc-account, as with a user key', async () => {
      const other = json(
        await t.call({
          method: 'POST',
          url: '/admin/v1/accounts',
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          payload: { name: 'Second' },
          as: null,
        }),
      )
      await t.call({
        method: 'POST',
        url: '/admin/v1/memberships',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { userId: t.owner.userId, accountId: other.id, role: 'READ_ONLY' },
        as: null,
      })
      const { cookie } = await sessionOf(t, t.owner.userId as string)
      const signedIn = json(
        await t.call({ method: 'GET', url: '/v1/auth/session', headers: { cookie }, as: null }),
      )
      assert.deepEqual(
        signedIn.accounts.map((a: { name: string; role: string }) => [a.name, a.role]),
        [
          ['Test account', 'OWNER'],
          ['Second', 'READ_ONLY'],
        ],
      )
      const read = (headers: Record<string, string>) =>
        t.call({ method: 'GET', url: '/v1/accounts/me', headers: { cookie, ...headers }, as: null })
      const missing = await read({})
      assert.equal(missing.statusCode, 400)
      assert.equal(json(missing).message, 'x-svc-account header is required')
      assert.equal(json(await read({ 'x-svc-account': other.id })).name, 'Second')
      assert.equal((await read({ 'x-svc-account': 'not-a-uuid' })).statusCode, 400)
      const stranger = await read({ 'x-svc-account': '00000000-0000-4000-8000-000000000000' })
      assert.equal(stranger.statusCode, 403)
      const accounts = await t.call({ method: 'GET', url: '/v1/accounts', headers: { cookie }, as: null })
      assert.equal(json(accounts).length, 2)
    })

    test('bearer keys are unaffected; a bad or missing cookie is 401', async () => {
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: '/v1/variables',
            payload: { key: 'BY_KEY', value: 'v' },
            account: t.owner.accountId,
          })
        ).statusCode,
        201,
      )
      const bad = await t.call({
        method: 'GET',
        url: '/v1/checks',
        headers: { cookie: 'svc_session=AAAAAAAAAAAAAAAAAAAAAAAA' },
        as: null,
      })
      assert.equal(bad.statusCode, 401)
      assert.equal((await t.call({ method: 'GET', url: '/v1/auth/session', as: null })).statusCode, 401)
    })
  })
}

describe('session cookie over real HTTP', () => {
  let t: TestApp
  let base: string
  before(async () => {
    const [sqlite] = testEngines()
    t = await createTestApp(sqlite as never)
    await setPassword(t, t.owner.userId as string)
    base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => t.close())

  test('a browser-like client signs in, reads, and writes only with the CSRF header', async () => {
    const email = await emailOf(t, t.owner.userId as string)
    const signedIn = await fetch(`${base}/v1/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    })
    assert.equal(signedIn.status, 200)
    const [setCookie] = signedIn.headers.getSetCookie()
    assert.match(String(setCookie), /; HttpOnly; SameSite=Lax/)
    const cookie = String(setCookie).split(';')[0] as string
    const { csrfToken } = (await signedIn.json()) as { csrfToken: string }
    const create = (headers: Record<string, string>) =>
      fetch(`${base}/v1/variables`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, ...headers },
        body: JSON.stringify({ key: 'OVER_HTTP', value: 'v' }),
      })
    assert.equal((await create({})).status, 403)
    assert.equal((await create({ 'x-csrf-token': csrfToken })).status, 201)
    const read = await fetch(`${base}/v1/variables/OVER_HTTP`, { headers: { cookie } })
    assert.equal(read.status, 200)
  })
})

test('failed sign-ins from one address, whatever the email, are throttled as every failed credential is', async () => {
  const [sqlite] = testEngines()
  const t = await createTestApp(sqlite as never, { limits: { failedAuth: { max: 3, windowSeconds: 300 } } })
  try {
    for (let i = 0; i < 3; i++) {
      const res = await signIn(t, { email: `nobody${i}@example.com`, password: 'wrong password here' })
      assert.equal(res.statusCode, 401)
    }
    const throttled = await signIn(t, { email: 'someone-else@example.com', password: 'wrong password here' })
    assert.equal(throttled.statusCode, 429)
    assert.match(json(throttled).message, /Too many failed attempts from this address/)
    // Keys signed in from there wait too: the address is what is throttled.
    assert.equal((await signIn(t, { apiKey: 'svc_not-a-key' })).statusCode, 429)
  } finally {
    await t.close()
  }
})
