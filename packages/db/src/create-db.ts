import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely'
import { type Migration, Migrator } from 'kysely/migration'
import pg from 'pg'
import { withCommitRecords } from './commit-record.ts'
import type { Engine } from './engine.ts'
import { migrations } from './migrations/index.ts'
import type { Database } from './schema.ts'
import { openSqlite } from './sqlite.ts'
import { LOCK_WAIT_MS, withAsyncLockWaits } from './sqlite-lock-waits.ts'

export interface Store {
  db: Kysely<Database>
  engine: Engine
  close(): Promise<void>
  /**
   * SQLite: how long a statement waits for the write lock another process holds before it fails as busy
   * (default 5 s); tests shorten it. PostgreSQL's statements wait for row locks as long as they take.
   */
  setLockWaitMs(ms: number): void
}

/**
 * Opens the store named by `url`: `postgres://...` (or `postgresql://`) for PostgreSQL,
 * `sqlite:PATH` or a bare file path for the embedded SQLite file.
 */
export function createDb(url: string, options: { poolSize?: number } = {}): Store {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, types: pgTypes })
    // An idle client that loses its connection emits 'error' on the pool; without a listener it kills the process.
    pool.on('error', () => {})
    const db = new Kysely<Database>({ dialect: withCommitRecords(new PostgresDialect({ pool })) })
    return { db, engine: 'postgres', close: () => db.destroy(), setLockWaitMs: () => {} }
  }
  const path = url.replace(/^sqlite:/, '')
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = openSqlite(path, (work) => db.connection().execute(work))
  const lockWait = { ms: LOCK_WAIT_MS }
  const db = new Kysely<Database>({
    dialect: withCommitRecords(
      withAsyncLockWaits(new SqliteDialect({ database: sqlite.database }), sqlite.inTransaction, lockWait),
    ),
  })
  return {
    db,
    engine: 'sqlite',
    setLockWaitMs: (ms) => {
      lockWait.ms = ms
    },
    async close() {
      await db.destroy()
      await sqlite.closed
    },
  }
}

/** Runs every pending migration; safe to call from several processes at once. */
export async function migrateToLatest(store: Store): Promise<void> {
  const migrator = await migratorOf(store)
  // A store another process migrated already needs no lock (on SQLite, taking it beside a busy writer
  // can fail at once with SQLITE_BUSY); a lost race for the lock is retried.
  for (let attempt = 1; ; attempt++) {
    const pending = (await migrator.getMigrations().catch(() => undefined))?.some((m) => !m.executedAt)
    if (pending === false) return
    const { error, results } = await migrator.migrateToLatest()
    if (!error) return
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    if (failed || attempt >= MIGRATION_ATTEMPTS) {
      throw new Error(`migration ${failed ?? '(lock)'} failed`, { cause: error })
    }
    await new Promise((done) => setTimeout(done, 100 * attempt))
  }
}

const MIGRATION_ATTEMPTS = 10

/** The migrator of `store` with every migration (tests of a data migration stop before it with `migrateTo`). */
export async function migratorOf(store: Store): Promise<Migrator> {
  const provider = {
    async getMigrations(): Promise<Record<string, Migration>> {
      return Object.fromEntries(
        Object.entries(migrations).map(([name, migration]) => [
          name,
          { up: (db: Kysely<unknown>) => migration.up(db, store.engine) },
        ]),
      )
    },
  }
  // Kysely looks for its bookkeeping tables in every schema; pin them to ours, or a neighbour schema
  // (another deployment or test on the same database) makes it skip creating them.
  const migrationTableSchema = store.engine === 'postgres' ? await currentSchema(store) : undefined
  return new Migrator({ db: store.db, provider, migrationTableSchema })
}

async function currentSchema(store: Store): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)
  const schema = rows[0]?.schema
  if (!schema) throw new Error('PostgreSQL has no current schema: set search_path')
  return schema
}

const INT8_OID = 20
const NUMERIC_OID = 1700
// bigint and numeric columns hold counters and epoch milliseconds, all well inside 2^53: read them as numbers.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format)
  },
} as pg.CustomTypesConfig
