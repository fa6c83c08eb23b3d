import type { SelectQueryBuilder } from 'kysely'
import type { ServiceContext } from './context.ts'

/** Runs `work` in one transaction, its queries on `tx`; inside a transaction already, in that one. */
export function inTransaction<T>(ctx: ServiceContext, work: (tx: ServiceContext) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx)
  return ctx.db.transaction().execute((db) => work({ ...ctx, db }))
}

/**
 * How a read in a transaction locks the rows it finds until the transaction ends, on PostgreSQL (SQLite
 * runs one write transaction at a time and needs none), so that a row found stays what it was found:
 * - `exclusive`: the row is about to be deleted (or to change what others name it by). Saves that name
 *   it wait for that, then no longer find it; the deletion waits for saves holding it as `referenced`,
 *   then sees what they saved.
 * - `change`: the row is about to change: other changes and deletion wait, saves naming it don't.
 * - `referenced`: something being saved names the row: it is not deleted before that commits.
 * A read locking several rows must read them in key order, so two transactions locking overlapping rows
 * wait on each other instead of deadlocking; and a transaction takes these locks before it writes.
 */
export type RowLock = 'exclusive' | 'change' | 'referenced'

export function locked<DB, TB extends keyof DB, O>(
  ctx: Pick<ServiceContext, 'engine'>,
  query: SelectQueryBuilder<DB, TB, O>,
  lock: RowLock,
): SelectQueryBuilder<DB, TB, O> {
  if (ctx.engine !== 'postgres') return query
  if (lock === 'exclusive') return query.forUpdate()
  if (lock === 'change') return query.forNoKeyUpdate()
  return query.forKeyShare()
}
