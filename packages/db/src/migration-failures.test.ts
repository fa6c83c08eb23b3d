import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type Kysely, sql } from 'kysely'
import { createDb, MigrationError, migrateToLatest, migratorOf, type Store } from './create-db.ts'
import { migrations } from './migrations/index.ts'
import { testEngines } from './testing.ts'

/** Adds a table and a column, then fails: what it did must not stay behind. */
const halfwayFailing = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('upgrade_leftover')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .execute()
    await db.schema.alterTable('accounts').addColumn('leftover', 'text').execute()
    await sql`insert into no_such_table (id) values ('x')`.execute(db)
  },
}

const tableNames = async (store: Store) => (await store.db.introspection.getTables()).map((t) => t.name)
const executed = async (store: Store, list = migrations) =>
  (await (await migratorOf(store, list)).getMigrations()).filter((m) => m.executedAt).map((m) => m.name)

for (const { engine, createUrl } of testEngines()) {
  describe(`a failing migration on ${engine}`, () => {
    test('leaves the store as it was, the migrations before it in the same start included, and names itself and its reason', async () => {
      const { url, dispose } = await createUrl()
      const store = createDb(url)
      try {
        const { error } = await (await migratorOf(store)).migrateTo('0018-maintenance-history')
        assert.equal(error, undefined)
        const now = new Date().toISOString()
        await sql`insert into accounts (id, name, runtime_id, settings, alert_settings, created_at, updated_at)
          values ('a1', 'Kept', '2025.04', '{}', '{}', ${now}, ${now})`.execute(store.db)
        const tablesBefore = (await tableNames(store)).sort()
        const list = { ...migrations, '9000-halfway-failing': halfwayFailing }

        await assert.rejects(migrateToLatest(store, list), (error: unknown) => {
          assert.ok(error instanceof MigrationError)
          assert.match(error.message, /^migration 9000-halfway-failing failed: .*no_such_table/)
          assert.match(error.message, /The store is unchanged/)
          return true
        })

        assert.deepEqual((await tableNames(store)).sort(), tablesBefore)
        assert.ok(!tablesBefore.includes('check_tag_history'), '0019 had not run before')
        const accountColumns = (await store.db.introspection.getTables())
          .find((t) => t.name === 'accounts')
          ?.columns.map((c) => c.name)
        assert.ok(accountColumns && !accountColumns.includes('leftover'))
        assert.deepEqual(await executed(store, list), Object.keys(migrations).slice(0, 18))
        const accounts = await sql<{ name: string }>`select name from accounts`.execute(store.db)
        assert.deepEqual(
          accounts.rows.map((row) => row.name),
          ['Kept'],
        )

        // The store still upgrades once the failing migration is gone.
        await migrateToLatest(store)
        assert.deepEqual(await executed(store), Object.keys(migrations))
      } finally {
        await store.close()
        await dispose()
      }
    })

    test('stores opened on one new database and migrated at once all succeed, each migration run once', async () => {
      const { url, dispose } = await createUrl()
      const stores = Array.from({ length: 3 }, () => createDb(url))
      try {
        await Promise.all(stores.map((store) => migrateToLatest(store)))
        const first = stores[0] as Store
        assert.deepEqual(await executed(first), Object.keys(migrations))
        const { rows } = await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(
          first.db,
        )
        assert.equal(Number(rows[0]?.n), Object.keys(migrations).length)
      } finally {
        await Promise.all(stores.map((store) => store.close()))
        await dispose()
      }
    })

    test('a store a newer version migrated is refused with that reason, untouched', async () => {
      const { url, dispose } = await createUrl()
      const store = createDb(url)
      try {
        await migrateToLatest(store, { ...migrations, '9999-from-a-newer-svc': { async up() {} } })
        await assert.rejects(migrateToLatest(store), (error: unknown) => {
          assert.ok(error instanceof MigrationError)
          assert.match(
            error.message,
            /migrated by a newer svc \(migrations unknown to this version: 9999-from-a-newer-svc\)/,
          )
          return true
        })
        const names = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
          store.db,
        )
        assert.equal(names.rows.at(-1)?.name, '9999-from-a-newer-svc')
      } finally {
        await store.close()
        await dispose()
      }
    })
  })
}
