import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { createDb, migratorOf } from '../create-db.ts'
import { testEngines } from '../testing.ts'

/** Migrations that change data, checked on rows written in the shape before them. */
for (const { engine, createUrl } of testEngines()) {
  describe(`data migrations on ${engine}`, () => {
    test('0009: a lease in flight keeps its slot, and its row comes due again when the lease runs out', async () => {
      const { url, dispose } = await createUrl()
      const store = createDb(url)
      try {
        const migrateTo = async (name: string) => {
          const { error } = await (await migratorOf(store)).migrateTo(name)
          if (error) throw error
        }
        await migrateTo('0008-analytics')
        const now = new Date().toISOString()
        await sql`insert into accounts (id, name, runtime_id, settings, alert_settings, created_at, updated_at)
          values ('a1', 'A', '2025.04', '{}', '{}', ${now}, ${now})`.execute(store.db)
        for (const id of ['leased', 'free']) {
          await sql`insert into checks (id, account_id, check_type, name, activated, muted, definition, created_at, updated_at)
            values (${id}, 'a1', 'URL', ${id}, ${true}, ${false}, '{}', ${now}, ${now})`.execute(store.db)
        }
        await sql`insert into check_schedules (check_id, location, next_due_ms, lease_owner, lease_until_ms)
          values ('leased', 'local', 1000, 'node-1', 31000), ('free', 'local', 2000, null, null)`.execute(
          store.db,
        )
        await sql`insert into check_retries (slot_key, check_id, location, attempt, next_due_ms, first_started_ms, lease_owner, lease_until_ms)
          values ('500:leased:local', 'leased', 'local', 2, 3000, 500, 'node-1', 33000)`.execute(store.db)

        await migrateTo('0009-leases-in-due-order')
        const schedules = await store.db
          .selectFrom('check_schedules')
          .select(['check_id', 'next_due_ms', 'lease_owner', 'leased_due_ms'])
          .orderBy('check_id')
          .execute()
        assert.deepEqual(
          schedules.map((row) => [row.check_id, Number(row.next_due_ms), row.lease_owner, row.leased_due_ms]),
          [
            ['free', 2000, null, null],
            ['leased', 31000, 'node-1', 1000],
          ],
        )
        const retry = await store.db.selectFrom('check_retries').selectAll().executeTakeFirstOrThrow()
        assert.deepEqual(
          [Number(retry.next_due_ms), retry.lease_owner, Number(retry.leased_due_ms)],
          [33000, 'node-1', 3000],
        )
      } finally {
        await store.close()
        await dispose()
      }
    })
  })
}
