import { DatabaseSync, type SQLInputValue } from 'node:sqlite'
import { Worker } from 'node:worker_threads'
import { mergeStoredMetricStats } from '@svc/core'
import type { SqliteDatabase, SqliteStatement } from 'kysely'

export interface SqliteStore {
  /** `node:sqlite` in the better-sqlite3 shape Kysely's SqliteDialect expects. */
  database: SqliteDatabase
  /** Whether the store's connection is in a transaction (its statements can't be tried again alone). */
  inTransaction(): boolean
  /**
   * Resolves once `database.close()` has run and the checkpointer thread has closed its own connection:
   * from then on the store's files can be deleted (a thread still opening would create them again).
   */
  closed: Promise<void>
}

/**
 * Runs `work` while no statement of the store runs or starts, and resolves when it has (Kysely's one
 * connection held: statements queue meanwhile, the event loop stays free).
 */
export type HoldStatements = (work: () => Promise<void>) => Promise<void>

/** The SQL function merging two stored metric stats (`mergeStoredMetricStats`) on a SQLite store. */
export const MERGE_STATS_FUNCTION = 'svc_merge_stats'

/**
 * Opens the SQLite file at `path` (or `:memory:`). Once the store is busy, a checkpointer thread starts
 * beside it, which holds the store's statements through `holdStatements` while it starts the log over.
 * SQLite has no boolean type and node:sqlite refuses to bind JS booleans, so they become 1/0 here,
 * once, instead of in every repository.
 */
export function openSqlite(path: string, holdStatements: HoldStatements): SqliteStore {
  const database = new DatabaseSync(path)
  // Opening may wait for another process's lock here, once; statements after wait in sqlite-lock-waits.ts.
  database.exec('PRAGMA busy_timeout = 5000')
  database.exec('PRAGMA journal_mode = WAL')
  database.exec('PRAGMA synchronous = NORMAL')
  database.exec('PRAGMA foreign_keys = ON')
  database.exec('PRAGMA busy_timeout = 0')
  // Rollup upserts merge a row's stored metric stats in the statement, so a fold needn't read the row
  // first (PostgreSQL reads and locks them instead: it has no such function).
  database.function(MERGE_STATS_FUNCTION, { deterministic: true }, (into, other) =>
    mergeStoredMetricStats(into as Uint8Array, other as Uint8Array),
  )
  let checkpointer: { close(): Promise<void> } | undefined
  const noteWrite =
    path === ':memory:'
      ? () => {}
      : onceBusy(() => {
          if (database.isOpen) checkpointer = startCheckpointer(database, path, holdStatements)
        })
  const prepare = statementCache(database, noteWrite)
  const closed = Promise.withResolvers<void>()
  return {
    database: {
      close: () => {
        if (!database.isOpen) return
        database.close()
        if (checkpointer) checkpointer.close().then(closed.resolve)
        else closed.resolve()
      },
      prepare,
    },
    inTransaction: () => database.isTransaction,
    closed: closed.promise,
  }
}

const STATEMENT_CACHE_SIZE = 1000

/**
 * `prepare` with a cache: Kysely prepares every query anew, and parsing SQL dominated small queries, so
 * statements are reused. `noteWrite` hears of every statement run for its writes.
 */
function statementCache(database: DatabaseSync, noteWrite: () => void): (query: string) => SqliteStatement {
  const statements = new Map<string, SqliteStatement>()
  return (query) => {
    // Kysely begins transactions deferred: one that read before another process (a runner beside
    // the server) committed then failed its first write at once with SQLITE_BUSY_SNAPSHOT, whatever
    // the busy timeout. Taking the write lock at the start makes the others wait their turn instead.
    const sql = query === 'begin' ? 'begin immediate' : query
    const cached = statements.get(sql)
    if (cached) {
      // Least recently used first out: a statement of every result outlives one-off batch shapes.
      statements.delete(sql)
      statements.set(sql, cached)
      return cached
    }
    const statement = database.prepare(sql)
    const prepared: SqliteStatement = {
      reader: statement.columns().length > 0,
      all: (parameters) => statement.all(...bindable(parameters)),
      run: (parameters) => {
        noteWrite()
        return statement.run(...bindable(parameters))
      },
      iterate: (parameters) => statement.iterate(...bindable(parameters)),
    }
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string)
    statements.set(sql, prepared)
    return prepared
  }
}

function bindable(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0
    if (value === undefined) return null
    return value as SQLInputValue
  })
}

/**
 * Statements that write within a minute past which the store counts as busy. Until then commits
 * checkpoint by themselves (SQLite's default, every ~4 MB of log: rare at that pace) and the process
 * has no checkpointer thread, whose heap of its own is ~11 MB of an idle server's RSS.
 */
const BUSY_WRITES_PER_MINUTE = 300

/** Calls `start` once, the first time `BUSY_WRITES_PER_MINUTE` writes come within a minute. */
function onceBusy(start: () => void): () => void {
  let started = false
  let writes = 0
  let windowStartMs = Date.now()
  return () => {
    if (started || ++writes < BUSY_WRITES_PER_MINUTE) return
    const now = Date.now()
    if (now - windowStartMs <= 60_000) {
      started = true
      start()
      return
    }
    writes = 0
    windowStartMs = now
  }
}

/** How often the checkpointer copies the write-ahead log into the database file. */
const CHECKPOINT_INTERVAL_MS = 1000
/**
 * Pages of log after which a commit checkpoints on the main thread after all: a backstop, reached only
 * when the checkpointer falls far behind (SQLite's default is 1000 pages, about 4 MB).
 */
const BACKSTOP_CHECKPOINT_PAGES = 50_000
/**
 * Pages of log past which the checkpointer has the log started over (see sqlite-checkpointer.js):
 * SQLite's own checkpoint size (~4 MB).
 */
const RESTART_LOG_PAGES = 1000

function startCheckpointer(
  database: DatabaseSync,
  path: string,
  holdStatements: HoldStatements,
): { close(): Promise<void> } {
  database.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`)
  const worker = new Worker(new URL('./sqlite-checkpointer.js', import.meta.url), {
    workerData: { path, intervalMs: CHECKPOINT_INTERVAL_MS, restartPages: RESTART_LOG_PAGES },
  })
  const exited = new Promise<void>((done) => worker.once('exit', () => done()))
  let closed = false
  restartOnLongLog(worker, holdStatements, exited, () => closed)
  // It must never keep a process alive; if it fails, the backstop checkpoints on the main thread.
  worker.unref()
  worker.on('error', (error) => {
    // A store closed (its files perhaps deleted) before the worker opened it is no failure.
    if (closed) return
    console.error(
      `svc: the SQLite checkpointer of ${path} stopped; commits checkpoint by themselves now`,
      error,
    )
  })
  return {
    close() {
      closed = true
      // Held until it has stopped, so a process ending with `await store.close()` waits for it.
      worker.ref()
      worker.postMessage('close')
      return exited
    },
  }
}

/**
 * When the checkpointer says the log grew long, holds this store's statements while it restarts the log.
 */
function restartOnLongLog(
  worker: Worker,
  holdStatements: HoldStatements,
  exited: Promise<void>,
  isClosed: () => boolean,
): void {
  // A commit of ours waiting on the restart would wait in SQLite's busy handler, which sleeps the main
  // thread: held statements wait without blocking it.
  let restarting = false
  let restarted: (() => void) | undefined
  let gone = false
  worker.on('message', (message) => {
    if (message === 'restarted') restarted?.()
    if (message !== 'log-long' || restarting || isClosed()) return
    restarting = true
    // Statements wait on its answer: a timer keeps the process alive meanwhile (a script whose only
    // pending work is a held write would otherwise end with the write unsettled).
    const awaited = setInterval(() => {}, 60_000)
    holdStatements(
      () =>
        new Promise<void>((resolve) => {
          // A thread that stopped while the hold waited its turn would never answer.
          if (gone) return resolve()
          restarted = resolve
          worker.postMessage('restart')
        }),
    )
      // A store closed meanwhile: nothing to hold any more.
      .catch(() => {})
      .finally(() => {
        restarting = false
        restarted = undefined
        clearInterval(awaited)
      })
  })
  exited.then(() => {
    gone = true
    restarted?.()
  })
}
