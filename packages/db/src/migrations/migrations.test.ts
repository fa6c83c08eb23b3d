import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { createDb, migratorOf, type Store } from '../create-db.ts'
import { testEngines } from '../testing.ts'

/**
 * A new store migrated up to `name` with one account, a1, for rows in the shape before the next
 * migrations; closed after `fn`.
 */
async function atMigration(
  createUrl: () => Promise<{ url: string; dispose: () => Promise<void> }>,
  name: string,
  fn: (setup: { store: Store; migrateTo: (name: string) => Promise<void>; now: string }) => Promise<void>,
): Promise<void> {
  const { url, dispose } = await createUrl()
  const store = createDb(url)
  try {
    const migrateTo = async (to: string) => {
      const { error } = await (await migratorOf(store)).migrateTo(to)
      if (error) throw error
    }
    await migrateTo(name)
    const now = new Date().toISOString()
    await sql`insert into accounts (id, name, runtime_id, settings, alert_settings, created_at, updated_at)
      values ('a1', 'A', '2025.04', '{}', '{}', ${now}, ${now})`.execute(store.db)
    await fn({ store, migrateTo, now })
  } finally {
    await store.close()
    await dispose()
  }
}

/** Migrations that change data, checked on rows written in the shape before them. */
for (const { engine, createUrl } of testEngines()) {
  describe(`data migrations on ${engine}`, () => {
    test('0009: a lease in flight keeps its slot, and its row comes due again when the lease runs out', async () => {
      await atMigration(createUrl, '0008-analytics', async ({ store, migrateTo, now }) => {
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
      })
    })

    test('0013: agents running across the upgrade keep their rows, leases and suite runs, under their location', async () => {
      await atMigration(createUrl, '0012-agent-script-runs', async ({ store, migrateTo, now }) => {
        for (const id of ['l1', 'l2']) {
          await sql`insert into private_locations (id, account_id, name, slug_name, created_at, updated_at)
            values (${id}, 'a1', ${id}, ${id}, ${now}, ${now})`.execute(store.db)
        }
        await sql`insert into agents (id, private_location_id, version, hostname, running_jobs, started_at, last_seen_ms)
          values ('x', 'l1', '1.0.0', 'box-x', 2, ${now}, 5000), ('y', 'l2', '1.0.0', 'box-y', 1, ${now}, 6000)`.execute(
          store.db,
        )
        await sql`insert into checks (id, account_id, check_type, name, activated, muted, definition, created_at, updated_at)
          values ('c1', 'a1', 'URL', 'c1', ${true}, ${false}, '{}', ${now}, ${now})`.execute(store.db)
        await sql`insert into check_schedules (check_id, location, next_due_ms, lease_owner, leased_due_ms)
          values ('c1', 'private:l1', 31000, 'agent:x', 1000), ('c1', 'local', 32000, 'node-1', 1000),
            ('c1', 'private:l2', 2000, null, null)`.execute(store.db)
        await sql`insert into check_retries (slot_key, check_id, location, attempt, next_due_ms, first_started_ms, lease_owner, leased_due_ms)
          values ('500:c1:private:l1', 'c1', 'private:l2', 2, 33000, 500, 'agent:y', 3000)`.execute(store.db)
        await sql`insert into suite_runs (job_id, check_id, runner, alive_until_ms)
          values ('j1', 'c1', 'agent:x', 9000), ('j2', 'c1', 'node-1', 9000), ('j3', 'c1', 'agent:gone', 9000)`.execute(
          store.db,
        )

        await migrateTo('0013-agents-per-location')
        const leases = await store.db
          .selectFrom('check_schedules')
          .select(['location', 'lease_owner', 'next_due_ms', 'leased_due_ms'])
          .orderBy('location')
          .execute()
        assert.deepEqual(
          leases.map((row) => [row.location, row.lease_owner, Number(row.next_due_ms), row.leased_due_ms]),
          [
            ['local', 'node-1', 32000, 1000],
            ['private:l1', 'agent:l1:x', 31000, 1000],
            ['private:l2', null, 2000, null],
          ],
        )
        const retry = await store.db.selectFrom('check_retries').selectAll().executeTakeFirstOrThrow()
        assert.equal(retry.lease_owner, 'agent:l2:y')
        const runs = await store.db
          .selectFrom('suite_runs')
          .select(['job_id', 'runner'])
          .orderBy('job_id')
          .execute()
        assert.deepEqual(
          runs.map((row) => [row.job_id, row.runner]),
          [
            ['j1', 'agent:l1:x'],
            ['j2', 'node-1'],
            ['j3', 'agent:gone'],
          ],
        )
        const agentsNow = () =>
          store.db
            .selectFrom('agents')
            .select(['private_location_id', 'id', 'hostname', 'running_jobs', 'last_seen_ms'])
            .orderBy('private_location_id')
            .orderBy('id')
            .execute()
        assert.deepEqual(
          (await agentsNow()).map((a) => [
            a.private_location_id,
            a.id,
            a.hostname,
            a.running_jobs,
            Number(a.last_seen_ms),
          ]),
          [
            ['l1', 'x', 'box-x', 2, 5000],
            ['l2', 'y', 'box-y', 1, 6000],
          ],
        )
        // The same id in another location is another agent; within one location it is still one.
        const insertAgent = (locationId: string) =>
          sql`insert into agents (id, private_location_id, version, hostname, running_jobs, started_at, last_seen_ms)
            values ('x', ${locationId}, '1.0.0', 'box-x2', 0, ${now}, 7000)`.execute(store.db)
        await insertAgent('l2')
        await assert.rejects(insertAgent('l1'))
        assert.deepEqual(
          (await agentsNow()).map((a) => [a.private_location_id, a.id]),
          [
            ['l1', 'x'],
            ['l2', 'x'],
            ['l2', 'y'],
          ],
        )
        await sql`delete from private_locations where id = 'l2'`.execute(store.db)
        assert.deepEqual(
          (await agentsNow()).map((a) => [a.private_location_id, a.id]),
          [['l1', 'x']],
          'a location’s agents go with it',
        )
      })
    })

    test('0014: a pending subscriber’s confirmation link keeps working, one row per link', async () => {
      await atMigration(createUrl, '0013-agents-per-location', async ({ store, migrateTo, now }) => {
        await sql`insert into status_pages (id, account_id, name, url, default_theme, is_private, white_label, version, content_version, created_at, updated_at)
          values ('p1', 'a1', 'P', 'p', 'AUTO', ${false}, ${false}, 1, 1, ${now}, ${now})`.execute(store.db)
        await sql`insert into status_page_subscribers (id, status_page_id, email, confirm_token_hash, confirmation_sent_at, confirmed_at, unsubscribe_token, created_at)
          values ('pending', 'p1', 'a@example.com', 'hash-a', ${now}, null, 'u1', ${now}),
                 ('confirmed', 'p1', 'b@example.com', null, ${now}, ${now}, 'u2', ${now})`.execute(store.db)

        await migrateTo('0014-confirm-tokens')
        const tokens = await store.db.selectFrom('status_page_confirm_tokens').selectAll().execute()
        assert.deepEqual(
          tokens.map((row) => ({ ...row })),
          [{ token_hash: 'hash-a', subscriber_id: 'pending', created_at: now }],
        )
        const columns = Object.keys(
          await store.db
            .selectFrom('status_page_subscribers')
            .selectAll()
            .where('id', '=', 'pending')
            .executeTakeFirstOrThrow(),
        )
        assert.equal(columns.includes('confirm_token_hash'), false)
        await sql`delete from status_page_subscribers where id = 'pending'`.execute(store.db)
        assert.equal(
          (await store.db.selectFrom('status_page_confirm_tokens').selectAll().execute()).length,
          0,
          'links go with their subscriber',
        )
      })
    })

    test('0017: days a service kept before stay in its bars, of no check in particular, and go with it', async () => {
      await atMigration(createUrl, '0016-artifact-bytes', async ({ store, migrateTo, now }) => {
        await sql`insert into status_page_services (id, account_id, name, description, created_at, updated_at)
          values ('s1', 'a1', 'S', null, ${now}, ${now})`.execute(store.db)
        await sql`insert into status_page_service_days (service_id, day, total, failed, maintenance)
          values ('s1', '2026-01-01', 10, 2, 1), ('s1', '2026-01-02', 5, 0, 0)`.execute(store.db)

        await migrateTo('0017-service-days-by-check')
        const days = () =>
          store.db.selectFrom('status_page_service_days').selectAll().orderBy('day').execute()
        assert.deepEqual(
          (await days()).map((row) => ({ ...row })),
          [
            { service_id: 's1', check_id: '', day: '2026-01-01', total: 10, failed: 2, maintenance: 1 },
            { service_id: 's1', check_id: '', day: '2026-01-02', total: 5, failed: 0, maintenance: 0 },
          ],
        )
        // One row per service, check and day.
        const keep = (checkId: string) =>
          sql`insert into status_page_service_days (service_id, check_id, day, total, failed, maintenance)
            values ('s1', ${checkId}, '2026-01-01', 1, 1, 0)`.execute(store.db)
        await keep('c1')
        await assert.rejects(keep('c1'))
        assert.equal((await days()).length, 3)
        await sql`delete from status_page_services where id = 's1'`.execute(store.db)
        assert.deepEqual(await days(), [], 'kept days go with their service')
      })
    })

    test('0018: windows from before count in the status history from their start; kept periods go with the account', async () => {
      await atMigration(createUrl, '0017-service-days-by-check', async ({ store, migrateTo, now }) => {
        await sql`insert into maintenance_windows
            (account_id, name, tags, starts_at, ends_at, repeat_unit, repeat_interval, repeat_ends_at, created_at, updated_at)
          values ('a1', 'W', '["db"]', '2026-01-01T02:00:00.000Z', '2026-01-01T03:00:00.000Z', 'DAY', 1, null, ${now}, ${now})`.execute(
          store.db,
        )

        await migrateTo('0018-maintenance-history')
        const windows = await store.db.selectFrom('maintenance_windows').select('history_from').execute()
        assert.deepEqual(
          windows.map((row) => ({ ...row })),
          [{ history_from: '2026-01-01T02:00:00.000Z' }],
        )
        await sql`insert into maintenance_periods (account_id, tags, starts_at, ends_at)
          values ('a1', '["db"]', '2026-01-01T02:00:00.000Z', '2026-01-01T03:00:00.000Z')`.execute(store.db)
        await sql`delete from accounts where id = 'a1'`.execute(store.db)
        assert.deepEqual(await store.db.selectFrom('maintenance_periods').selectAll().execute(), [])
      })
    })

    test('0019: the tags kept of a check go with the check, and with the account', async () => {
      await atMigration(createUrl, '0018-maintenance-history', async ({ store, migrateTo, now }) => {
        await migrateTo('0019-check-tag-history')
        for (const id of ['c1', 'c2']) {
          await sql`insert into checks (id, account_id, check_type, name, activated, muted, definition, created_at, updated_at)
            values (${id}, 'a1', 'URL', ${id}, ${true}, ${false}, '{}', ${now}, ${now})`.execute(store.db)
          await sql`insert into check_tag_history (account_id, check_id, tags, ends_at)
            values ('a1', ${id}, '["db"]', ${now})`.execute(store.db)
        }
        const kept = async () =>
          (await store.db.selectFrom('check_tag_history').select('check_id').execute()).map(
            (row) => row.check_id,
          )
        await sql`delete from checks where id = 'c1'`.execute(store.db)
        assert.deepEqual(await kept(), ['c2'])
        await sql`delete from accounts where id = 'a1'`.execute(store.db)
        assert.deepEqual(await kept(), [])
      })
    })

    test('0039: minute rollup rows go, but for heartbeats; hour and day rows stay', async () => {
      await atMigration(createUrl, '0038-dashboards', async ({ store, migrateTo, now }) => {
        for (const [id, type] of [
          ['url', 'URL'],
          ['beat', 'HEARTBEAT'],
        ]) {
          await sql`insert into checks (id, account_id, check_type, name, activated, muted, definition, created_at, updated_at)
            values (${id}, 'a1', ${type}, ${id}, ${true}, ${false}, '{}', ${now}, ${now})`.execute(store.db)
          for (const resolution of [1, 60, 1440]) {
            await sql`insert into analytics_rollups (check_id, resolution, bucket_ms, location, outcome, status_code, page_index, results, retries, stats)
              values (${id}, ${resolution}, 0, 'local', 'success', 200, -1, 1, 0, ${new Uint8Array([1])})`.execute(
              store.db,
            )
          }
        }
        await migrateTo('0039-minutes-from-results')
        const rows = await store.db
          .selectFrom('analytics_rollups')
          .select(['check_id', 'resolution'])
          .orderBy('check_id')
          .orderBy('resolution')
          .execute()
        assert.deepEqual(
          rows.map((row) => `${row.check_id} ${row.resolution}`),
          ['beat 1', 'beat 60', 'beat 1440', 'url 60', 'url 1440'],
        )
      })
    })
  })
}
