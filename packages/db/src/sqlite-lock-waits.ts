import { setTimeout as sleep } from 'node:timers/promises'
import type { AbortableOperationOptions, CompiledQuery, DatabaseConnection, Dialect, Driver } from 'kysely'
import { isStoreBusy } from './errors.ts'

/** How long a statement waits for a lock another process holds before it fails as busy (a 503 upstream). */
export const LOCK_WAIT_MS = 5000
/** The longest pause between two tries for the lock. */
const LONGEST_PAUSE_MS = 20

/**
 * SQLite's `dialect` with statements that wait for a lock another process holds (a runner beside the
 * server, a long prune there) without blocking the event loop: SQLite's own busy handler sleeps the
 * thread, which would stop every request, timer and check in flight (their timings too) meanwhile.
 * Only a statement outside a transaction is tried again, a transaction's `begin immediate` included: one
 * that was refused the lock did nothing. `wait.ms` is read at each wait.
 */
export function withAsyncLockWaits(
  dialect: Dialect,
  inTransaction: () => boolean,
  wait: { ms: number },
): Dialect {
  return {
    createDriver: () => new LockWaitingDriver(dialect.createDriver(), inTransaction, wait),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}

class LockWaitingDriver implements Driver {
  readonly #driver: Driver
  readonly #inTransaction: () => boolean
  readonly #wait: { ms: number }
  readonly #wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>()

  constructor(driver: Driver, inTransaction: () => boolean, wait: { ms: number }) {
    this.#driver = driver
    this.#inTransaction = inTransaction
    this.#wait = wait
    // SQLite's driver runs transactions and savepoints through the connection it is handed: ours.
    const { savepoint, rollbackToSavepoint, releaseSavepoint } = driver
    if (savepoint) this.savepoint = savepoint.bind(driver)
    if (rollbackToSavepoint) this.rollbackToSavepoint = rollbackToSavepoint.bind(driver)
    if (releaseSavepoint) this.releaseSavepoint = releaseSavepoint.bind(driver)
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
      wrapped = this.#waiting(inner)
      this.#wrapped.set(inner, wrapped)
    }
    return wrapped
  }

  beginTransaction(...args: Parameters<Driver['beginTransaction']>) {
    return this.#driver.beginTransaction(...args)
  }

  commitTransaction(...args: Parameters<Driver['commitTransaction']>) {
    return this.#driver.commitTransaction(...args)
  }

  rollbackTransaction(...args: Parameters<Driver['rollbackTransaction']>) {
    return this.#driver.rollbackTransaction(...args)
  }

  releaseConnection(...args: Parameters<Driver['releaseConnection']>) {
    return this.#driver.releaseConnection(...args)
  }

  destroy(...args: Parameters<Driver['destroy']>) {
    return this.#driver.destroy(...args)
  }

  #waiting(inner: DatabaseConnection): DatabaseConnection {
    const inTransaction = this.#inTransaction
    const wait = this.#wait
    const tryAgain = async <R>(
      query: CompiledQuery,
      options: AbortableOperationOptions | undefined,
      error: unknown,
    ) => {
      if (!isStoreBusy(error) || inTransaction()) throw error
      const deadline = Date.now() + wait.ms
      for (let pause = 1; ; pause = Math.min(LONGEST_PAUSE_MS, pause * 2)) {
        if (Date.now() + pause > deadline) throw error
        await sleep(pause)
        try {
          return await inner.executeQuery<R>(query, options)
        } catch (again) {
          if (!isStoreBusy(again)) throw again
          error = again
        }
      }
    }
    return {
      executeQuery: <R>(query: CompiledQuery, options?: AbortableOperationOptions) =>
        inner.executeQuery<R>(query, options).catch((error: unknown) => tryAgain<R>(query, options, error)),
      streamQuery: (query, chunkSize, options) => inner.streamQuery(query, chunkSize, options),
    }
  }
}
