import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { createDb, migratorOf } from './create-db.ts'
import { isForeignKeyViolation, isUniqueViolation } from './errors.ts'
import { migrations } from './migrations/index.ts'
import { testEngines } from './testing.ts'

for (const { engine, createStore } of testEngines()) {
  describe(`store on ${engine}`, () => {
    test('migrates, round-trips values with the same types, and is idempotent', async () => {
      const store = await createStore()
      try {
        const now = new Date().toISOString()
        await store.db
          .insertInto('accounts')
          .values({
            id: 'a1',
            name: 'Ünïcode ✓',
            runtime_id: '2025.04',
            settings: '{}',
            alert_settings: '{}',
            created_at: now,
            updated_at: now,
          })
          .execute()
        await store.db
          .insertInto('rate_limit_windows')
          .values({ bucket: 'b', window_start_ms: 1_763_000_000_123, hits: 3 })
          .execute()
        await store.db
          .insertInto('variables')
          .values({
            id: 'v1',
            account_id: 'a1',
            key: 'K',
            value: 'x',
            encrypted_value: null,
            locked: true,
            secret: false,
            description: '',
            created_at: now,
            updated_at: now,
          })
          .execute()

        const account = await store.db.selectFrom('accounts').selectAll().executeTakeFirstOrThrow()
        assert.equal(account.name, 'Ünïcode ✓')
        assert.equal(account.created_at, now)
        const window = await store.db.selectFrom('rate_limit_windows').selectAll().executeTakeFirstOrThrow()
        assert.equal(window.window_start_ms, 1_763_000_000_123)
        assert.equal(typeof window.window_start_ms, 'number')
        const variable = await store.db.selectFrom('variables').selectAll().executeTakeFirstOrThrow()
        assert.equal(Boolean(variable.locked), true)
        assert.equal(Boolean(variable.secret), false)
      } finally {
        await store.dispose()
      }
    })

    test('test stores start migrated and empty, see none of each other, and are gone when disposed', async () => {
      const [first, second] = await Promise.all([createStore(), createStore()])
      try {
        assert.notEqual(first.url, second.url)
        const ran = (await (await migratorOf(first)).getMigrations()).filter((m) => m.executedAt)
        assert.deepEqual(
          ran.map((m) => m.name),
          Object.keys(migrations),
        )
        await first.db
          .insertInto('rate_limit_windows')
          .values({ bucket: 'b', window_start_ms: 1, hits: 1 })
          .execute()
        const bucketsIn = async (store: typeof first) =>
          (await store.db.selectFrom('rate_limit_windows').select('bucket').execute()).map(
            (row) => row.bucket,
          )
        assert.deepEqual(await bucketsIn(second), [])
        assert.deepEqual(await bucketsIn(first), ['b'])
      } finally {
        await second.dispose()
        await first.dispose()
      }
      if (engine === 'sqlite') {
        assert.equal(existsSync(first.url.replace(/^sqlite:/, '')), false)
      } else {
        const reopened = createDb(first.url)
        try {
          await assert.rejects(reopened.db.selectFrom('rate_limit_windows').select('bucket').execute(), {
            code: '3D000',
          })
        } finally {
          await reopened.close()
        }
      }
    })

    test('reports unique violations the same way on both engines', async () => {
      const store = await createStore()
      try {
        const now = new Date().toISOString()
        const user = { id: 'u1', email: 'a@example.com', name: 'A', created_at: now, updated_at: now }
        await store.db.insertInto('users').values(user).execute()
        const error = await store.db
          .insertInto('users')
          .values({ ...user, id: 'u2' })
          .execute()
          .then(
            () => null,
            (e: unknown) => e,
          )
        assert.ok(error, 'second insert must fail')
        assert.equal(isUniqueViolation(error), true)
        assert.equal(isForeignKeyViolation(error), false)
        assert.equal(isUniqueViolation(new Error('something else')), false)
      } finally {
        await store.dispose()
      }
    })

    test('enforces foreign keys', async () => {
      const store = await createStore()
      try {
        const now = new Date().toISOString()
        await assert.rejects(
          store.db
            .insertInto('memberships')
            .values({ user_id: 'nobody', account_id: 'nothing', role: 'OWNER', created_at: now })
            .execute(),
        )
        const rows = await sql<{ n: number }>`select count(*) as n from memberships`.execute(store.db)
        assert.equal(Number(rows.rows[0]?.n), 0)
      } finally {
        await store.dispose()
      }
    })

    test('reports foreign-key violations the same way on both engines, a dangling reference or a deleted target', async () => {
      const store = await createStore()
      const failure = (query: { execute(): Promise<unknown> }) =>
        query.execute().then(
          () => assert.fail('the write must fail'),
          (e: unknown) => e,
        )
      try {
        const now = new Date().toISOString()
        const dangling = await failure(
          store.db
            .insertInto('memberships')
            .values({ user_id: 'nobody', account_id: 'nothing', role: 'OWNER', created_at: now }),
        )
        assert.equal(isForeignKeyViolation(dangling), true)
        assert.equal(isUniqueViolation(dangling), false)
        assert.equal(isForeignKeyViolation(new Error('something else')), false)
        assert.equal(isForeignKeyViolation(null), false)

        const stamps = { created_at: now, updated_at: now }
        await store.db
          .insertInto('accounts')
          .values({
            id: 'a1',
            name: 'A',
            runtime_id: '2025.04',
            settings: '{}',
            alert_settings: '{}',
            ...stamps,
          })
          .execute()
        const group = await store.db
          .insertInto('check_groups')
          .values({ account_id: 'a1', name: 'G', activated: true, muted: false, definition: '{}', ...stamps })
          .returning('id')
          .executeTakeFirstOrThrow()
        await store.db
          .insertInto('checks')
          .values({
            id: 'c1',
            account_id: 'a1',
            check_type: 'TCP',
            name: 'C',
            activated: true,
            muted: false,
            group_id: group.id,
            group_order: null,
            heartbeat_token: null,
            definition: '{}',
            ...stamps,
          })
          .execute()
        // A check's group has no cascade: deleting it while it holds the check is refused.
        const referenced = await failure(store.db.deleteFrom('check_groups').where('id', '=', group.id))
        assert.equal(isForeignKeyViolation(referenced), true)
      } finally {
        await store.dispose()
      }
    })
  })
}
