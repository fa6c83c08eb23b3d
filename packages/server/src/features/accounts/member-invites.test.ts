import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { SMTPServer } from 'smtp-server'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../../testing/test-app.ts'
import * as accounts from './accounts.service.ts'

const PASSWORD = 'correct horse battery staple'
const HOUR = 3_600_000

/** A clock the test moves. */
function movableClock() {
  let nowMs = Date.parse('2026-11-01T12:00:00.000Z')
  return { now: () => new Date(nowMs), advance: (ms: number) => (nowMs += ms) }
}

/** A real SMTP server on loopback that keeps the raw messages it receives. */
async function startSmtp() {
  const received: { to: string[]; raw: string }[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = ''
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString('utf8')
      })
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw })
        callback()
      })
    },
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const port = (server.server.address() as AddressInfo).port
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}

const invite = (t: TestApp, payload: object, as = t.owner) =>
  t.call({ method: 'POST', url: '/v1/accounts/me/members', payload, as })

const tokenOf = (url: string) => new URL(url).searchParams.get('token')

for (const engine of testEngines()) {
  describe(`member invites on ${engine.engine}`, () => {
    let t: TestApp
    let smtp: Awaited<ReturnType<typeof startSmtp>>
    const clock = movableClock()
    before(async () => {
      smtp = await startSmtp()
      t = await createTestApp(engine, {
        clock,
        alerting: { smtp: { url: smtp.url, from: 'svc@example.com' } },
      })
    })
    after(async () => {
      await t.close()
      await smtp.close()
    })

    test('an invite lists as PENDING until the person sets a password, then signs in with its role', async () => {
      const res = await invite(t, { email: 'Ada@Example.com', role: 'READ_ONLY', name: 'Ada' })
      assert.equal(res.statusCode, 201, res.body)
      const created = json(res)
      assert.equal(created.emailed, true)
      assert.match(created.url, /^http.*\/set-password\?token=[\w-]{20,}$/)
      assert.equal(created.expiresAt, new Date(clock.now().getTime() + 24 * HOUR).toISOString())
      assert.deepEqual(
        [created.member.type, created.member.email, created.member.role, created.member.status],
        ['invite', 'ada@example.com', 'READ_ONLY', 'PENDING'],
      )
      assert.equal(created.member.expiresAt, created.expiresAt)
      assert.match(created.member.inviterEmail, /@/)
      const mail = smtp.received.find((m) => m.to.includes('ada@example.com'))
      assert.ok(mail, 'the link was mailed')
      assert.ok(
        mail.raw.replace(/=\r?\n/g, '').includes(tokenOf(created.url) as string),
        'the mail holds the link',
      )

      const list = async (query: string) =>
        json(await t.call({ method: 'GET', url: `/v1/accounts/me/members?${query}` })).members
      assert.deepEqual(
        (await list('type=invite')).map((m: { id: string; status: string }) => [m.id, m.status]),
        [[created.member.id, 'PENDING']],
      )
      assert.equal((await list('status=PENDING')).length, 1)
      assert.equal((await list('status=EXPIRED')).length, 0)
      assert.ok((await list('type=member')).every((m: { type: string }) => m.type === 'member'))

      const set = await t.call({
        method: 'POST',
        url: '/v1/auth/password',
        payload: { token: tokenOf(created.url), password: PASSWORD },
        as: null,
      })
      assert.equal(set.statusCode, 204, set.body)
      assert.equal((await list('type=invite')).length, 0)
      const joined = (await list('search=ada')) as {
        type: string
        userId: string
        role: string
        status: string
      }[]
      assert.deepEqual(
        joined.map((m) => [m.type, m.userId, m.role, m.status]),
        [['member', created.member.id, 'READ_ONLY', 'ACTIVE']],
      )
      const signIn = await t.call({
        method: 'POST',
        url: '/v1/auth/sign-in',
        payload: { email: 'ada@example.com', password: PASSWORD },
        as: null,
      })
      assert.equal(signIn.statusCode, 200, signIn.body)
      assert.deepEqual(json(signIn).accounts, [
        { id: t.owner.accountId, name: 'Test account', role: 'READ_ONLY' },
      ])
      const again = await invite(t, { email: 'ada@example.com', role: 'ADMIN' })
      assert.equal(again.statusCode, 409, again.body)
    })

    test("an invitation gives no access until it is accepted, even to the invited user's key", async () => {
      const elsewhere = await accounts.createAccount(t.ctx, { name: 'Elsewhere' })
      const bob = await t.addUser('OWNER', elsewhere.id)
      const user = await accounts.getUser(t.ctx, bob.userId as string)
      const checks = () => t.call({ method: 'GET', url: '/v1/checks', as: bob, account: t.owner.accountId })
      const outsider = (await checks()).statusCode
      assert.notEqual(outsider, 200)
      const res = await invite(t, { email: user.email, role: 'READ_WRITE' })
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(json(res).member.status, 'PENDING')
      assert.equal((await checks()).statusCode, outsider)
      const set = await t.call({
        method: 'POST',
        url: '/v1/auth/password',
        payload: { token: tokenOf(json(res).url), password: PASSWORD },
        as: null,
      })
      assert.equal(set.statusCode, 204, set.body)
      assert.equal((await checks()).statusCode, 200)
    })

    test('an invite expires with its link; inviting again renews it', async () => {
      const first = json(await invite(t, { email: 'bob@example.com', role: 'READ_WRITE' }))
      clock.advance(25 * HOUR)
      const expired = json(await t.call({ method: 'GET', url: '/v1/accounts/me/members?status=EXPIRED' }))
      assert.deepEqual(
        expired.members.map((m: { id: string; status: string }) => [m.id, m.status]),
        [[first.member.id, 'EXPIRED']],
      )
      const stale = await t.call({
        method: 'POST',
        url: '/v1/auth/password',
        payload: { token: tokenOf(first.url), password: PASSWORD },
        as: null,
      })
      assert.equal(stale.statusCode, 400)
      const renewed = await invite(t, { email: 'bob@example.com', role: 'ADMIN' })
      assert.equal(renewed.statusCode, 201, renewed.body)
      assert.deepEqual(
        [json(renewed).member.id, json(renewed).member.role, json(renewed).member.status],
        [first.member.id, 'ADMIN', 'PENDING'],
      )
      assert.notEqual(json(renewed).url, first.url)
    })

    test('a person with a password joins at once; an invite can be changed and withdrawn', async () => {
      const elsewhere = await accounts.createAccount(t.ctx, { name: 'Elsewhere' })
      const user = await accounts.createUser(t.ctx, { email: 'erin@example.com', name: 'Erin' })
      await accounts.addMembership(t.ctx, { userId: user.id, accountId: elsewhere.id, role: 'OWNER' })
      const link = await t.call({
        method: 'POST',
        url: `/admin/v1/users/${user.id}/password-link`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        as: null,
      })
      const set = await t.call({
        method: 'POST',
        url: '/v1/auth/password',
        payload: { token: tokenOf(json(link).url), password: PASSWORD },
        as: null,
      })
      assert.equal(set.statusCode, 204, set.body)
      const joined = json(await invite(t, { email: 'erin@example.com', role: 'READ_WRITE' }))
      assert.deepEqual(
        [joined.url, joined.expiresAt, joined.emailed, joined.member.type, joined.member.userId],
        [null, null, false, 'member', user.id],
      )
      assert.deepEqual(
        [joined.member.role, joined.member.status, joined.member.name],
        ['READ_WRITE', 'ACTIVE', 'Erin'],
      )

      const pending = json(await invite(t, { email: 'carol@example.com', role: 'READ_ONLY' }))
      const patched = await t.call({
        method: 'PATCH',
        url: `/v1/accounts/me/members/${pending.member.id}`,
        payload: { role: 'READ_WRITE' },
      })
      assert.equal(patched.statusCode, 200, patched.body)
      assert.deepEqual([json(patched).type, json(patched).role], ['invite', 'READ_WRITE'])
      const owner = await t.call({
        method: 'PATCH',
        url: `/v1/accounts/me/members/${pending.member.id}`,
        payload: { role: 'OWNER' },
      })
      assert.equal(owner.statusCode, 400, owner.body)
      const removed = await t.call({ method: 'DELETE', url: `/v1/accounts/me/members/${pending.member.id}` })
      assert.equal(removed.statusCode, 204)
      const left = json(await t.call({ method: 'GET', url: '/v1/accounts/me/members?type=invite' })).members
      assert.ok(!left.some((m: { id: string }) => m.id === pending.member.id))
    })

    test('inviting needs ADMIN and a user, and a valid body', async () => {
      const writer = await t.addUser('READ_WRITE')
      const refused = await invite(t, { email: 'dan@example.com', role: 'READ_ONLY' }, writer)
      assert.equal(refused.statusCode, 403)
      const badRole = await invite(t, { email: 'dan@example.com', role: 'OWNER' })
      assert.equal(badRole.statusCode, 400)
      assert.match(json(badRole).message, /^body\.role /)
      const badEmail = await invite(t, { email: 'not an email', role: 'READ_ONLY' })
      assert.equal(badEmail.statusCode, 400)
      assert.match(json(badEmail).message, /^body\.email /)
    })
  })
}
