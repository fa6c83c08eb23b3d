import { createHash, randomBytes } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { missingComponent } from '@svc/core/testing'
import { sql } from 'kysely'
import pg from 'pg'
import { createDb, migrateToLatest, migratorOf, type Store } from './create-db.ts'
import type { Engine } from './engine.ts'

export { migrations } from './migrations/index.ts'

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
  createUrl(): Promise<StoreUrl>
}

interface StoreUrl {
  url: string
  dispose(): Promise<void>
}

/**
 * The engines every store test runs on: SQLite always, PostgreSQL when SVC_TEST_DATABASE_URL is set.
 * Each PostgreSQL store is a database of its own on that server, so test files can run in parallel.
 */
export function testEngines(): TestEngine[] {
  const engines: TestEngine[] = [sqliteEngine()]
  const pgUrl = postgresTestUrl()
  if (pgUrl) engines.push(postgresEngine(pgUrl))
  return engines
}

/**
 * SVC_TEST_DATABASE_URL, the PostgreSQL server of the store tests. Unset, their PostgreSQL half is skipped
 * with a loud line, and in CI (CI=true) the run fails naming it.
 */
export function postgresTestUrl(): string | undefined {
  const url = process.env.SVC_TEST_DATABASE_URL
  if (url) return url
  missingComponent(
    'PostgreSQL (SVC_TEST_DATABASE_URL)',
    'the PostgreSQL half of every store test',
    'set SVC_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test; .ci/run does',
  )
  return undefined
}

/**
 * Migrating a new SQLite store costs ~170 ms of CPU, and the suite makes hundreds; copying a migrated file
 * costs about a millisecond. So the first store of a set of migrations migrates a template file (once per
 * machine, shared by every test process through its name), and each store is a copy of it.
 */
function sqliteEngine(): TestEngine {
  let template: Promise<string> | undefined
  return {
    engine: 'sqlite',
    createUrl: sqliteUrl,
    async createStore() {
      template ??= migratedSqliteTemplate()
      const storeUrl = await sqliteUrl()
      copyFileSync(await template, sqlitePathOf(storeUrl.url))
      return open(storeUrl)
    },
  }
}

async function migratedSqliteTemplate(): Promise<string> {
  const path = join(tmpdir(), `svc-test-sqlite-template-${migrationsHash()}.db`)
  if (existsSync(path)) return path
  const building = `${path}.building-${process.pid}-${randomBytes(4).toString('hex')}`
  const store = createDb(`sqlite:${building}`)
  await migrateToLatest(store)
  // The copy is the one file: everything in the write-ahead log goes into it first.
  await sql`pragma wal_checkpoint(truncate)`.execute(store.db)
  await store.close()
  rmSync(`${building}-wal`, { force: true })
  rmSync(`${building}-shm`, { force: true })
  // Another process may have made it meanwhile; a rename over it swaps one equal file for another.
  renameSync(building, path)
  return path
}

function sqlitePathOf(url: string): string {
  return url.replace(/^sqlite:/, '')
}

/**
 * Migrating a new PostgreSQL store takes ~0.4–2 s of round trips; copying a migrated template database
 * takes ~50 ms. So the first store of a set of migrations migrates a template (once per server, shared
 * by every test process), and each store is a copy of it. A role that may not create databases gets a
 * schema of its own per store instead, migrated each time.
 */
function postgresEngine(baseUrl: string): TestEngine {
  let template: Promise<string | undefined> | undefined
  const storeFromTemplate = async (): Promise<TestStore> => {
    template ??= migratedTemplate(baseUrl).catch(unlessMayNotCreateDatabases)
    const name = await template
    if (name) {
      // The template may be another role's, made by a run that could create databases.
      const copy = await postgresDatabaseUrl(baseUrl, name).catch(unlessMayNotCreateDatabases)
      if (copy) return open(copy)
      template = Promise.resolve(undefined)
    }
    return openMigrated(await postgresSchemaUrl(baseUrl))
  }
  return {
    engine: 'postgres',
    async createUrl() {
      return postgresDatabaseUrl(baseUrl).catch(async (error) => {
        await unlessMayNotCreateDatabases(error)
        return postgresSchemaUrl(baseUrl)
      })
    },
    async createStore() {
      for (let attempt = 1; ; attempt++) {
        try {
          return await storeFromTemplate()
        } catch (error) {
          // Another checkout's tests, on other migrations, dropped the template: make ours again.
          if ((error as { code?: string }).code !== UNDEFINED_DATABASE || attempt === 3) throw error
          template = undefined
        }
      }
    },
  }
}

const UNDEFINED_DATABASE = '3D000'
const INSUFFICIENT_PRIVILEGE = '42501'

async function unlessMayNotCreateDatabases(error: unknown): Promise<undefined> {
  if ((error as { code?: string }).code === INSUFFICIENT_PRIVILEGE) return undefined
  throw error
}

async function openMigrated(storeUrl: StoreUrl): Promise<TestStore> {
  const store = open(storeUrl)
  await migrateToLatest(store)
  return store
}

function open({ url, dispose }: StoreUrl): TestStore {
  const store = createDb(url)
  return {
    ...store,
    url,
    async dispose() {
      await store.close()
      await dispose()
    },
  }
}

async function sqliteUrl(): Promise<StoreUrl> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'))
  return {
    url: `sqlite:${join(dir, 'svc.db')}`,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

const TEST_DATABASE_PREFIX = 'svc_test_'
const TEMPLATE_PREFIX = `${TEST_DATABASE_PREFIX}template_`
const BUILDING_PREFIX = `${TEST_DATABASE_PREFIX}building_`
/** Stores are named `svc_test_store_<creation time, base 36>_<random>`, so that leftovers can be told by age. */
const STORE_PREFIX = `${TEST_DATABASE_PREFIX}store_`
/** Far beyond any test's time limit: a store older than this was left by a test process that was killed. */
const LEFTOVER_STORE_MS = 60 * 60_000
// pg_advisory_lock key (any fixed number) held while a template is made, so test processes make it once.
const TEMPLATE_LOCK = 0x5e7c7e57

/** The name of a database migrated to this checkout's migrations, made if no test process made it yet. */
async function migratedTemplate(baseUrl: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${migrationsHash()}`
  return withAdmin(baseUrl, async (admin) => {
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK])
    await dropLeftovers(admin)
    const { rows } = await admin.query<{ datname: string; made: string | null }>(
      "select datname, shobj_description(oid, 'pg_database') as made from pg_database where datname like $1",
      [`${TEMPLATE_PREFIX}%`],
    )
    if (rows.some((row) => row.datname === name)) return name
    // Templates of other migrations: another checkout (a worktree beside this one) may still be copying
    // its own, so only those unused for an hour go (a copy of one would be a schema that no longer exists).
    for (const { datname, made } of rows) {
      if (!(Number(made) > Date.now() - LEFTOVER_STORE_MS)) {
        await admin.query(`drop database if exists ${datname} with (force)`)
      }
    }
    // Made under another name and renamed when migrated, so that a process killed halfway leaves no template.
    const building = `${BUILDING_PREFIX}${randomBytes(6).toString('hex')}`
    await admin.query(`create database ${building}`)
    try {
      const store = createDb(databaseUrl(baseUrl, building), { poolSize: 1 })
      try {
        await migrateToLatest(store)
      } finally {
        await store.close()
      }
      await admin.query(`alter database ${building} rename to ${name}`)
      // When it was made, read by the sweep of other checkouts' templates above.
      await admin.query(`comment on database ${name} is '${Date.now()}'`)
    } catch (error) {
      await admin.query(`drop database if exists ${building} with (force)`)
      throw error
    }
    return name
  })
}

/**
 * Drops what killed test processes left (run under the template lock, so no template is being built):
 * half-built templates, and stores older than any test runs.
 */
async function dropLeftovers(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    'select datname from pg_database where datname like $1 or datname like $2',
    [`${BUILDING_PREFIX}%`, `${STORE_PREFIX}%`],
  )
  for (const { datname } of rows) {
    const createdMs = Number.parseInt(datname.slice(STORE_PREFIX.length).split('_')[0] ?? '', 36)
    const leftover = datname.startsWith(BUILDING_PREFIX) || Date.now() - createdMs > LEFTOVER_STORE_MS
    if (leftover) await admin.query(`drop database if exists ${datname} with (force)`)
  }
}

/** A hash of the migrations' source: a changed migration makes a new template. */
function migrationsHash(): string {
  const folder = new URL('./migrations/', import.meta.url)
  const hash = createHash('sha256')
  for (const file of readdirSync(folder).sort()) {
    if (!file.endsWith('.test.ts')) hash.update(file).update(readFileSync(new URL(file, folder)))
  }
  return hash.digest('hex').slice(0, 16)
}

async function postgresDatabaseUrl(baseUrl: string, template?: string): Promise<StoreUrl> {
  const name = `${STORE_PREFIX}${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  await withAdmin(baseUrl, (admin) =>
    admin.query(`create database ${name}${template ? ` template ${template}` : ''}`),
  )
  return {
    url: databaseUrl(baseUrl, name),
    // force: a server process a test killed may not have closed its connections yet.
    async dispose() {
      await withAdmin(baseUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`))
    },
  }
}

function databaseUrl(baseUrl: string, database: string): string {
  const url = new URL(baseUrl)
  url.pathname = `/${database}`
  return url.toString()
}

async function postgresSchemaUrl(baseUrl: string): Promise<StoreUrl> {
  const schema = `test_${randomBytes(6).toString('hex')}`
  await withAdmin(baseUrl, (admin) => admin.query(`create schema ${schema}`))
  const url = new URL(baseUrl)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return {
    url: url.toString(),
    async dispose() {
      await withAdmin(baseUrl, (admin) => admin.query(`drop schema ${schema} cascade`))
    },
  }
}

async function withAdmin<T>(baseUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  try {
    return await work(admin)
  } finally {
    await admin.end()
  }
}

/** Migrates `store` up to migration `name` and no further (the old schema of an upgrade test). */
export async function migrateStoreTo(store: Store, name: string): Promise<void> {
  const { error } = await (await migratorOf(store)).migrateTo(name)
  if (error) throw error
}
