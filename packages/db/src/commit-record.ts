import { AsyncLocalStorage } from 'node:async_hooks'
import type {
  AbortableOperationOptions,
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  TransactionSettings,
} from 'kysely'

/**
 * Whether the store committed a write for one piece of work (an HTTP request): a transaction that
 * wrote, or a write outside any. A request that fails after one has saved part of what it does.
 */
export interface CommitRecord {
  committed: boolean
}

const records = new AsyncLocalStorage<CommitRecord>()

/** Runs `work`, marking `record` committed when the store commits a write `work` asked for. */
export function recordingCommits<T>(record: CommitRecord, work: () => T): T {
  return records.run(record, work)
}

/** The record `recordingCommits` runs the caller with, if any. */
export function currentCommitRecord(): CommitRecord | undefined {
  return records.getStore()
}

/**
 * Runs `work` outside any record: for writes that are none of the caller's changes (bookkeeping such as
 * a rate-limit hit), or done for many callers at once (a group commit, where each marks its own).
 */
export function apartFromCommitRecords<T>(work: () => T): T {
  return records.exit(work)
}

/** `dialect` whose store marks the current `recordingCommits` record on each commit of a write. */
export function withCommitRecords(dialect: Dialect): Dialect {
  return {
    createDriver: () => new CommitRecordingDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}

/** Reads only: selects (raw ones included). Anything else may write. */
const isRead = (query: CompiledQuery) =>
  query.query.kind === 'SelectQueryNode' ||
  (query.query.kind === 'RawNode' && /^\s*select\b/i.test(query.sql))

class CommitRecordingDriver implements Driver {
  readonly #driver: Driver
  /** The driver's connections by the ones handed out, and what each open transaction holds. */
  readonly #inner = new WeakMap<DatabaseConnection, DatabaseConnection>()
  readonly #wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>()
  readonly #transactions = new WeakMap<DatabaseConnection, { wrote: boolean }>()

  constructor(driver: Driver) {
    this.#driver = driver
    const { savepoint, rollbackToSavepoint, releaseSavepoint } = driver
    if (savepoint) this.savepoint = (c, ...rest) => savepoint.call(driver, this.#innerOf(c), ...rest)
    if (rollbackToSavepoint)
      this.rollbackToSavepoint = (c, ...rest) => rollbackToSavepoint.call(driver, this.#innerOf(c), ...rest)
    if (releaseSavepoint)
      this.releaseSavepoint = (c, ...rest) => releaseSavepoint.call(driver, this.#innerOf(c), ...rest)
  }

  savepoint?: Driver['savepoint']
  rollbackToSavepoint?: Driver['rollbackToSavepoint']
  releaseSavepoint?: Driver['releaseSavepoint']

  init(...args: Parameters<Driver['init']>) {
    return this.#driver.init(...args)
  }

  async acquireConnection(...args: Parameters<Driver['acquireConnection']>) {
    const inner = await this.#driver.acquireConnection(...args)
    let wrapped = this.#wrapped.get(inner)
    if (!wrapped) {
      wrapped = this.#recording(inner)
      this.#wrapped.set(inner, wrapped)
      this.#inner.set(wrapped, inner)
    }
    return wrapped
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    await this.#driver.beginTransaction(this.#innerOf(connection), settings)
    this.#transactions.set(connection, { wrote: false })
  }

  async commitTransaction(connection: DatabaseConnection) {
    const transaction = this.#transactions.get(connection)
    this.#transactions.delete(connection)
    await this.#driver.commitTransaction(this.#innerOf(connection))
    if (transaction?.wrote) markCommitted()
  }

  rollbackTransaction(connection: DatabaseConnection) {
    this.#transactions.delete(connection)
    return this.#driver.rollbackTransaction(this.#innerOf(connection))
  }

  releaseConnection(...[connection, options]: Parameters<Driver['releaseConnection']>) {
    return this.#driver.releaseConnection(this.#innerOf(connection), options)
  }

  destroy(...args: Parameters<Driver['destroy']>) {
    return this.#driver.destroy(...args)
  }

  #innerOf(connection: DatabaseConnection): DatabaseConnection {
    return this.#inner.get(connection) ?? connection
  }

  /** `inner` with its writes noted: committed at once outside a transaction, at its commit inside. */
  #recording(inner: DatabaseConnection): DatabaseConnection {
    const transactions = this.#transactions
    const wrapped: DatabaseConnection = {
      executeQuery<R>(query: CompiledQuery, options?: AbortableOperationOptions) {
        const result = inner.executeQuery<R>(query, options)
        if (isRead(query)) return result
        return result.then((done) => {
          const transaction = transactions.get(wrapped)
          if (transaction) transaction.wrote = true
          else markCommitted()
          return done
        })
      },
      streamQuery: (query, chunkSize, options) => inner.streamQuery(query, chunkSize, options),
    }
    // What a driver may offer beside (cancelling a query, ...), as it offers it.
    for (const key of ['cancelQuery', 'collectSessionInfo', 'killSession'] as const) {
      const method = inner[key]
      if (method) Object.assign(wrapped, { [key]: method.bind(inner) })
    }
    return wrapped
  }
}

function markCommitted() {
  const record = records.getStore()
  if (record) record.committed = true
}
