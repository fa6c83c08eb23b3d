import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { testEngines } from './testing.ts'

const baseUrl = process.env.SVC_TEST_DATABASE_URL
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
}
