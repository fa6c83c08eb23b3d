import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createDb, type Engine, migrateToLatest, type Store } from './create-db.ts'

export interface TestStore extends Store {
  /** A URL that opens this same isolated store from another process. */
  url: string
  /** Closes the store and deletes everything it held. */
  dispose(): Promise<void>
}

export interface TestEngine {
  engine: Engine
  /** Creates an empty, migrated store isolated from every other test. */
  createStore(): Promise<TestStore>
  /** Creates an isolated, empty store URL without opening it (for server processes to migrate themselves). */
  createUrl(): Promise<{ url: string; dispose(): Promise<void> }>
}

/**
 * The engines every store test runs on: SQLite always, PostgreSQL when SVC_TEST_DATABASE_URL is set.
 * Each PostgreSQL store is a fresh schema, so test files can run in parallel on one database.
 */
export function testEngines(): TestEngine[] {
  const engines: TestEngine[] = [engineFor('sqlite', sqliteUrl)]
  const pgUrl = process.env.SVC_TEST_DATABASE_URL
  if (pgUrl) engines.push(engineFor('postgres', () => postgresSchemaUrl(pgUrl)))
  return engines
}

function engineFor(
  engine: Engine,
  makeUrl: () => Promise<{ url: string; dispose(): Promise<void> }>,
): TestEngine {
  return {
    engine,
    createUrl: makeUrl,
    async createStore() {
      const { url, dispose } = await makeUrl()
      const store = createDb(url)
      await migrateToLatest(store)
      return {
        ...store,
        url,
        async dispose() {
          await store.close()
          await dispose()
        },
      }
    },
  }
}

async function sqliteUrl() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'))
  return {
    url: `sqlite:${join(dir, 'svc.db')}`,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

async function postgresSchemaUrl(baseUrl: string) {
  const schema = `test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const url = new URL(baseUrl)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return {
    url: url.toString(),
    async dispose() {
      const client = new pg.Client({ connectionString: baseUrl })
      await client.connect()
      await client.query(`DROP SCHEMA ${schema} CASCADE`)
      await client.end()
    },
  }
}
