import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { migrations } from './migrations/index.ts'
import { postgresTestUrl, testEngines } from './testing.ts'

const baseUrl = postgresTestUrl()
const HOUR_MS = 60 * 60_000

if (baseUrl) {
  test('PostgreSQL test stores: what killed test processes left is dropped, stores in use are not', async () => {
    const stale = `svc_test_store_${(Date.now() - 2 * HOUR_MS).toString(36)}_0000aaaa`
    const recent = `svc_test_store_${Date.now().toString(36)}_0000bbbb`
    const halfBuiltTemplate = 'svc_test_building_0000cccc'
    const made = [stale, recent, halfBuiltTemplate]
    const admin = new pg.Client({ connectionString: baseUrl })
    await admin.connect()
    try {
      for (const name of made) await admin.query(`create database ${name}`)
      // A new engine, as in a new test process: its first store looks for leftovers.
      const postgres = testEngines().find((engine) => engine.engine === 'postgres') ?? assert.fail()
      const store = await postgres.createStore()
      await store.dispose()
      const { rows } = await admin.query<{ datname: string }>(
        'select datname from pg_database where datname = any($1)',
        [made],
      )
      assert.deepEqual(
        rows.map((row) => row.datname),
        [recent],
      )
    } finally {
      for (const name of made) await admin.query(`drop database if exists ${name} with (force)`)
      await admin.end()
    }
  })

  test('PostgreSQL test stores: a role that may not create databases gets a migrated schema per store', async () => {
    const role = 'svc_test_no_createdb'
    const admin = new pg.Client({ connectionString: baseUrl })
    await admin.connect()
    const roleUrl = new URL(baseUrl)
    roleUrl.username = role
    try {
      await admin.query(`drop role if exists ${role}`)
      await admin.query(`create role ${role} login nocreatedb`)
      await admin.query(`grant create on database ${roleUrl.pathname.slice(1)} to ${role}`)
      const postgres =
        withTestDatabaseUrl(roleUrl.toString(), () =>
          testEngines().find((engine) => engine.engine === 'postgres'),
        ) ?? assert.fail()
      const store = await postgres.createStore()
      const schema = new URL(store.url).searchParams.get('options')?.match(/search_path=(\w+)/)?.[1]
      try {
        assert.ok(schema, store.url)
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(
          store.db,
        )
        assert.equal(rows[0]?.n, Object.keys(migrations).length)
      } finally {
        await store.dispose()
      }
      const left = await admin.query('select 1 from pg_namespace where nspname = $1', [schema])
      assert.equal(left.rowCount, 0)
    } finally {
      await admin.query(`drop owned by ${role} cascade`).catch(() => {})
      await admin.query(`drop role if exists ${role}`)
      await admin.end()
    }
  })
}

function withTestDatabaseUrl<T>(url: string, make: () => T): T {
  const before = process.env.SVC_TEST_DATABASE_URL
  process.env.SVC_TEST_DATABASE_URL = url
  try {
    return make()
  } finally {
    process.env.SVC_TEST_DATABASE_URL = before
  }
}
