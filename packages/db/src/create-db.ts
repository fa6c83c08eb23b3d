import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { type Dialect, Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, sql } from 'kysely'
import { type Migration, Migrator } from 'kysely/migration'
import pg from 'pg'
import { withCommitRecords } from './commit-record.ts'
import type { Engine } from './engine.ts'
import { migrations, type Migration as StoreMigration } from './migrations/index.ts'
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
      withAsyncLockWaits(
        withTransactionalDdl(new SqliteDialect({ database: sqlite.database })),
        sqlite.inTransaction,
        lockWait,
      ),
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
      // Kysely opens its driver at the first query and closes only what it opened: a store that ran none
      // is closed here (a second close is nothing).
      sqlite.database.close()
      await sqlite.closed
    },
  }
}

/** A migration that failed; the store is as it was before the migrations of this start. */
export class MigrationError extends Error {}

/**
 * Runs every pending migration of `list` (the store's own by default); safe to call from several
 * processes at once. All pending migrations run in one transaction on both engines, so one that fails
 * leaves the store as it was, and the error names it and its reason.
 */
export async function migrateToLatest(
  store: Store,
  list: Record<string, StoreMigration> = migrations,
): Promise<void> {
  const migrator = await migratorOf(store, list)
  await refuseUnknownMigrations(store, list)
  // A store another process migrated already needs no lock (on SQLite, taking it beside a busy writer
  // can fail at once with SQLITE_BUSY); a lost race for the lock is retried.
  for (let attempt = 1; ; attempt++) {
    const pending = (await migrator.getMigrations().catch(() => undefined))?.some((m) => !m.executedAt)
    if (pending === false) return
    const { error, results } = await migrator.migrateToLatest()
    if (!error) return
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    if (failed || attempt >= MIGRATION_ATTEMPTS) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new MigrationError(
        `migration ${failed ?? '(lock)'} failed: ${reason}. The store is unchanged: no migration of this start was kept`,
        { cause: error },
      )
    }
    await new Promise((done) => setTimeout(done, 100 * attempt))
  }
}

/** Old code on a newer schema could write rows the newer code misreads: such a start is refused. */
async function refuseUnknownMigrations(store: Store, list: Record<string, StoreMigration>): Promise<void> {
  const schema = store.engine === 'postgres' ? await currentSchema(store) : undefined
  const table = sql.table(schema ? `${schema}.kysely_migration` : 'kysely_migration')
  // A new store has no migration table yet.
  const ran = await sql<{ name: string }>`select name from ${table}`.execute(store.db).catch(() => undefined)
  const unknown = ran?.rows.map((row) => row.name).filter((name) => !Object.hasOwn(list, name))
  if (unknown?.length) {
    throw new MigrationError(
      `the store was migrated by a newer svc (migrations unknown to this version: ${unknown.join(', ')}): ` +
        'run that version or newer, or restore a backup taken before the upgrade',
    )
  }
}

const MIGRATION_ATTEMPTS = 10

/** The migrator of `store` with every migration (tests of a data migration stop before it with `migrateTo`). */
export async function migratorOf(
  store: Store,
  list: Record<string, StoreMigration> = migrations,
): Promise<Migrator> {
  const provider = {
    async getMigrations(): Promise<Record<string, Migration>> {
      return Object.fromEntries(
        Object.entries(list).map(([name, migration]) => [
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

/**
 * SQLite's DDL is transactional, but Kysely's SQLite adapter says otherwise, so its migrator ran each
 * migration bare: one failing halfway left its first statements behind. Saying so runs them all in one
 * transaction (begun immediate, so it also holds other processes off while it runs).
 */
function withTransactionalDdl(dialect: Dialect): Dialect {
  return {
    createDriver: () => dialect.createDriver(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => new TransactionalDdlSqliteAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true
  }
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
