import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { HttpError } from '../../http/errors.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import * as accounts from './accounts.service.ts'

for (const engine of testEngines()) {
  describe(`accounts on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    test('GET /v1/accounts/me has id, name, runtimeId, settings and alertSettings with defaults', async () => {
      const res = await t.call({ method: 'GET', url: '/v1/accounts/me' })
      assert.deepEqual(json(res), {
        id: t.owner.accountId,
        name: 'Test account',
        runtimeId: '2025.04',
        settings: {
          timezone: 'UTC',
          resultRetentionDays: 30,
          traceRetentionDays: 7,
          extendedUptimeResponseTime: false,
        },
        alertSettings: {
          escalationType: 'RUN_BASED',
          runBasedEscalation: { failedRunThreshold: 1 },
          timeBasedEscalation: { minutesFailingThreshold: 5 },
          reminders: { amount: 0, interval: 5 },
          parallelRunFailureThreshold: { enabled: false, percentage: 10 },
        },
      })
    })

    test('PATCH merges settings and alert settings and validates them', async () => {
      const res = await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: {
          runtimeId: '2024.09',
          settings: { timezone: 'Europe/Amsterdam', extendedUptimeResponseTime: true },
          alertSettings: { escalationType: 'TIME_BASED', reminders: { amount: 2 } },
        },
      })
      assert.equal(res.statusCode, 200)
      const account = json(res)
      assert.equal(account.runtimeId, '2024.09')
      assert.equal(account.settings.timezone, 'Europe/Amsterdam')
      assert.equal(account.settings.extendedUptimeResponseTime, true)
      assert.equal(account.settings.resultRetentionDays, 30)
      assert.equal(account.alertSettings.escalationType, 'TIME_BASED')
      assert.deepEqual(account.alertSettings.reminders, { amount: 2, interval: 5 })
      const reread = json(await t.call({ method: 'GET', url: '/v1/accounts/me' }))
      assert.deepEqual(reread, account)

      const badZone = await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { timezone: 'Mars/Base' } },
      })
      assert.equal(badZone.statusCode, 400)
      assert.equal(json(badZone).attributes.errors[0].path, 'body.settings.timezone')
      const badRuntime = await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { runtimeId: '1999.01' },
      })
      assert.equal(badRuntime.statusCode, 400)
      assert.match(json(badRuntime).message, /^body\.runtimeId /)
      const unknown = await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { color: 'red' } },
      })
      assert.equal(unknown.statusCode, 400)
      assert.equal(json(unknown).message, 'body.settings.color is not allowed')
    })

    test('settings.timezone is stored as IANA spells it (links as sent); an unknown zone is 400', async () => {
      for (const [sent, stored] of [
        ['europe/berlin', 'Europe/Berlin'],
        ['AMERICA/NEW_YORK', 'America/New_York'],
        ['utc', 'UTC'],
        ['Europe/Amsterdam', 'Europe/Amsterdam'],
        // Links stay as sent: ICU would answer Asia/Calcutta and Europe/Kiev.
        ['Asia/Kolkata', 'Asia/Kolkata'],
        ['Europe/Kyiv', 'Europe/Kyiv'],
        ['US/Pacific', 'US/Pacific'],
      ]) {
        const res = await t.call({
          method: 'PATCH',
          url: '/v1/accounts/me',
          payload: { settings: { timezone: sent } },
        })
        assert.equal(res.statusCode, 200, sent)
        assert.equal(json(res).settings.timezone, stored, sent)
        const reread = json(await t.call({ method: 'GET', url: '/v1/accounts/me' }))
        assert.equal(reread.settings.timezone, stored, sent)
        const row = await t.ctx.db
          .selectFrom('accounts')
          .select('settings')
          .where('id', '=', t.owner.accountId)
          .executeTakeFirstOrThrow()
        assert.equal(JSON.parse(row.settings).timezone, stored, sent)
      }
      const unknown = await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { timezone: 'europe/atlantis' } },
      })
      assert.equal(unknown.statusCode, 400)
      assert.deepEqual(json(unknown), {
        statusCode: 400,
        error: 'Bad Request',
        message: 'body.settings.timezone is not an IANA time zone: europe/atlantis',
        attributes: { errors: [{ path: 'body.settings.timezone', message: 'is not an IANA time zone' }] },
      })
      await t.call({ method: 'PATCH', url: '/v1/accounts/me', payload: { settings: { timezone: 'UTC' } } })
    })

    test('members: list, change role, remove; the last OWNER stays', async () => {
      const member = await t.addUser('READ_ONLY')
      const admin = await t.addUser('ADMIN')
      const list = json(await t.call({ method: 'GET', url: '/v1/accounts/me/members', as: member })).members
      assert.ok(
        list.some(
          (m: { userId: string; role: string }) => m.userId === member.userId && m.role === 'READ_ONLY',
        ),
      )

      const promoted = await t.call({
        method: 'PATCH',
        url: `/v1/accounts/me/members/${member.userId}`,
        as: admin,
        payload: { role: 'READ_WRITE' },
      })
      assert.equal(promoted.statusCode, 200)
      assert.equal(json(promoted).role, 'READ_WRITE')

      const toOwner = await t.call({
        method: 'PATCH',
        url: `/v1/accounts/me/members/${member.userId}`,
        as: admin,
        payload: { role: 'OWNER' },
      })
      assert.equal(toOwner.statusCode, 403, 'only an OWNER grants OWNER')

      const demoteLastOwner = await t.call({
        method: 'DELETE',
        url: `/v1/accounts/me/members/${t.owner.userId}`,
        as: admin,
      })
      assert.equal(demoteLastOwner.statusCode, 403)

      const removed = await t.call({
        method: 'DELETE',
        url: `/v1/accounts/me/members/${member.userId}`,
        as: admin,
      })
      assert.equal(removed.statusCode, 204)
      assert.equal((await t.call({ method: 'GET', url: '/v1/accounts/me', as: member })).statusCode, 403)

      const unknown = await t.call({
        method: 'DELETE',
        url: '/v1/accounts/me/members/00000000-0000-4000-8000-000000000000',
        as: admin,
      })
      assert.equal(unknown.statusCode, 404)
    })

    test('GET /v1/accounts pages by limit and page; GET /v1/accounts/me/members by cursor, with filters', async () => {
      const t2 = await createTestApp(engine)
      try {
        await t2.addUser('READ_ONLY')
        await t2.addUser('READ_WRITE')
        const everyone = json(await t2.call({ method: 'GET', url: '/v1/accounts/me/members?limit=100' }))
        const ids = everyone.members.map((m: { userId: string }) => m.userId)
        assert.deepEqual([ids.length, everyone.length, everyone.nextId], [3, 3, null])
        const first = everyone.members[0]
        assert.deepEqual(
          [first.type, first.accountId, first.status, first.createdAt, first.mfaEnabled],
          ['member', t2.owner.accountId, 'ACTIVE', first.created_at, false],
        )
        const members = await t2.call({ method: 'GET', url: '/v1/accounts/me/members?limit=2' })
        assert.equal(members.statusCode, 200)
        assert.deepEqual(
          json(members).members.map((m: { userId: string }) => m.userId),
          ids.slice(0, 2),
        )
        const url = `/v1/accounts/me/members?limit=2&nextId=${json(members).nextId}`
        const last = json(await t2.call({ method: 'GET', url }))
        assert.deepEqual(
          [last.members.map((m: { userId: string }) => m.userId), last.nextId],
          [ids.slice(2), null],
        )
        const filtered = async (query: string) =>
          json(await t2.call({ method: 'GET', url: `/v1/accounts/me/members?${query}` })).members.length
        assert.equal(await filtered('role=READ_WRITE'), 1)
        assert.equal(await filtered('role=READ_RUN'), 0)
        assert.equal(await filtered(`search=${encodeURIComponent(first.email.toUpperCase())}`), 1)
        assert.equal(await filtered('type=invite'), 0)
        assert.equal(await filtered('status=PENDING'), 0)
        assert.equal(await filtered('type=member&status=ACTIVE'), 3)
        const bad = await t2.call({ method: 'GET', url: '/v1/accounts/me/members?limit=0' })
        assert.equal(bad.statusCode, 400)
        assert.match(json(bad).message, /^querystring\.limit /)

        const second = await accounts.createAccount(t2.ctx, { name: 'Second' })
        await accounts.addMembership(t2.ctx, {
          userId: t2.owner.userId as string,
          accountId: second.id,
          role: 'ADMIN',
        })
        const all = await t2.call({ method: 'GET', url: '/v1/accounts' })
        const accountIds = json(all).map((a: { id: string }) => a.id)
        assert.deepEqual([...accountIds].sort(), [t2.owner.accountId, second.id].sort())
        assert.equal(all.headers['content-range'], 'items 0-1/2')
        const firstPage = await t2.call({ method: 'GET', url: '/v1/accounts?limit=1' })
        assert.equal(firstPage.statusCode, 200)
        assert.deepEqual(
          json(firstPage).map((a: { id: string }) => a.id),
          accountIds.slice(0, 1),
        )
        assert.equal(firstPage.headers['content-range'], 'items 0-0/2')
        const secondPage = await t2.call({ method: 'GET', url: '/v1/accounts?limit=1&page=2' })
        assert.deepEqual(
          json(secondPage).map((a: { id: string }) => a.id),
          accountIds.slice(1),
        )
        assert.equal(secondPage.headers['content-range'], 'items 1-1/2')
        const badPage = await t2.call({ method: 'GET', url: '/v1/accounts?page=0' })
        assert.equal(badPage.statusCode, 400)
        assert.match(json(badPage).message, /^querystring\.page /)
      } finally {
        await t2.close()
      }
    })

    test('the last OWNER is neither demoted nor removed, even by an OWNER service key', async () => {
      const t2 = await createTestApp(engine)
      try {
        const serviceOwner = { accountId: t2.owner.accountId, role: 'OWNER' as const, userId: null }
        const owner = t2.owner.userId as string
        for (const attempt of [
          () => accounts.changeMemberRole(t2.ctx, serviceOwner, owner, 'ADMIN'),
          () => accounts.removeMember(t2.ctx, serviceOwner, owner),
        ]) {
          const error = await attempt().then(
            () => undefined,
            (e: unknown) => e,
          )
          assert.ok(error instanceof HttpError)
          assert.equal(error.statusCode, 409)
          assert.equal(error.message, 'An account must keep at least one OWNER')
        }
        const { members } = json(await t2.call({ method: 'GET', url: '/v1/accounts/me/members' }))
        assert.deepEqual(
          members.map((m: { userId: string; role: string }) => [m.userId, m.role]),
          [[owner, 'OWNER']],
        )
      } finally {
        await t2.close()
      }
    })

    test('a demotion of an OWNER waits for one in flight and sees its outcome', async () => {
      const t2 = await createTestApp(engine)
      try {
        const a = t2.owner.userId as string
        const b = (await t2.addUser('OWNER')).userId as string
        // B demotes A in a transaction; before it commits, A (authenticated as OWNER) demotes B.
        let pending: Promise<unknown> | undefined
        await t2.ctx.db.transaction().execute(async (tx) => {
          await tx
            .updateTable('memberships')
            .set({ role: 'ADMIN' })
            .where('user_id', '=', a)
            .where('account_id', '=', t2.owner.accountId)
            .execute()
          pending = accounts
            .changeMemberRole(t2.ctx, { accountId: t2.owner.accountId, role: 'OWNER', userId: a }, b, 'ADMIN')
            .then(
              () => undefined,
              (e: unknown) => e,
            )
        })
        const error = await pending
        assert.ok(error instanceof HttpError, 'the second demotion is refused')
        assert.equal(error.statusCode, 403)
        assert.equal(error.message, 'Only an OWNER can grant or change OWNER')
        const rows = await t2.ctx.db
          .selectFrom('memberships')
          .select(['user_id', 'role'])
          .where('account_id', '=', t2.owner.accountId)
          .orderBy('role')
          .execute()
        assert.deepEqual(
          rows.map((r) => [r.user_id, r.role]),
          [
            [a, 'ADMIN'],
            [b, 'OWNER'],
          ],
        )
      } finally {
        await t2.close()
      }
    })

    test('two OWNERs demoting each other at once leave exactly one OWNER', async () => {
      const t2 = await createTestApp(engine)
      try {
        const second = await t2.addUser('OWNER')
        const results = await Promise.all([
          t2.call({
            method: 'PATCH',
            url: `/v1/accounts/me/members/${second.userId}`,
            payload: { role: 'ADMIN' },
          }),
          t2.call({
            method: 'PATCH',
            url: `/v1/accounts/me/members/${t2.owner.userId}`,
            as: second,
            payload: { role: 'ADMIN' },
          }),
        ])
        const statuses = results.map((r) => r.statusCode).sort()
        assert.equal(statuses[0], 200)
        assert.ok([403, 409].includes(statuses[1] as number), `${statuses}`)
        const owners = await t2.ctx.db
          .selectFrom('memberships')
          .select('user_id')
          .where('account_id', '=', t2.owner.accountId)
          .where('role', '=', 'OWNER')
          .execute()
        assert.equal(owners.length, 1)
      } finally {
        await t2.close()
      }
    })

    test('an OWNER cannot leave the account without another OWNER', async () => {
      const second = await t.addUser('OWNER')
      const res = await t.call({
        method: 'PATCH',
        url: `/v1/accounts/me/members/${second.userId}`,
        payload: { role: 'ADMIN' },
      })
      assert.equal(res.statusCode, 200)
      const alone = await t.call({
        method: 'PATCH',
        url: `/v1/accounts/me/members/${t.owner.userId}`,
        as: second,
        payload: { role: 'ADMIN' },
      })
      assert.equal(alone.statusCode, 403, 'an ADMIN cannot touch an OWNER')
    })
  })
}
