import type { CheckResultsTable, Database } from '@svc/db'
import type { Kysely } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { moveSlots, type SlotMove } from '../../scheduler/schedules.repo.ts'
import { alertSignals, foldResultsIntoAlerts } from '../alerting/alerter.ts'
import { foldResultsIntoAnalytics } from '../analytics/fold.ts'
import type { ResolvedCheck } from '../checks/checks.service.ts'
import { insertResults } from './check-results.repo.ts'

/**
 * The one write path for check results. A result, what it changes in its check's alert state (with the
 * notifications it decides, as outbox rows) and its analytics commit in one transaction: a stored
 * result is folded exactly once, and a crash loses all or nothing.
 *
 * Results written at about the same time share that transaction (group commit): while one batch
 * commits, the next gathers, so a busy node pays the commit and each statement once per batch rather
 * than once per result, and a quiet one waits for no timer.
 */
export interface ResultWrite {
  row: CheckResultsTable
  /** The check as the caller resolved it; spares the folds loading it again. */
  check?: ResolvedCheck
  /** The schedule slot the result moves on, stored or a duplicate; the batch's move in one statement. */
  slotMove?: SlotMove
  /** Other store work that must commit with the result, stored or a duplicate (a retry planned). */
  alongside?: (tx: ServiceContext) => Promise<void>
}

/**
 * Stores a result once per job id (a job re-run after a lost lease can't store it twice) and folds it
 * if new; resolves after the commit with whether it was new. Inside a transaction it joins it.
 */
export async function writeResult(ctx: ServiceContext, write: ResultWrite): Promise<boolean> {
  if (ctx.db.isTransaction) {
    const { stored } = await storeResults(ctx, [write])
    return stored[0] as boolean
  }
  // Results finishing in the same turn of the event loop join the first batch.
  return enqueue(ctx, write, setImmediate)
}

/**
 * `writeResult` for a batch the caller gathered itself (the pings of one turn): one promise per write.
 * The batch goes to the store at once instead of a turn later, when the requests of the next turn
 * would have split it.
 */
export function writeResults(ctx: ServiceContext, writes: ResultWrite[]): Promise<boolean>[] {
  if (ctx.db.isTransaction) {
    const stored = storeResults(ctx, writes).then((batch) => batch.stored)
    return writes.map((_, i) => stored.then((all) => all[i] as boolean))
  }
  return writes.map((write) => enqueue(ctx, write, queueMicrotask))
}

function enqueue(ctx: ServiceContext, write: ResultWrite, startFlush: (flush: () => void) => void) {
  let queue = queues.get(ctx.db)
  if (!queue) {
    queue = { pending: [], flushers: 0 }
    queues.set(ctx.db, queue)
  }
  const batches = queue
  return new Promise<boolean>((resolve, reject) => {
    batches.pending.push({ ctx, write, resolve, reject })
    if (batches.flushers < concurrentBatches(ctx)) {
      batches.flushers++
      startFlush(() => void flush(batches))
    }
  })
}

/**
 * Batches committing at once per store. SQLite has one writer. PostgreSQL commits in parallel; batches
 * touching one check queue on its alert-state lock, taken first and in check order.
 */
const concurrentBatches = (ctx: ServiceContext) => (ctx.engine === 'postgres' ? 4 : 1)

/** Bounded so one statement stays within both engines' parameter limits (21 per result). */
const MAX_BATCH = 200

interface Pending {
  ctx: ServiceContext
  write: ResultWrite
  resolve(stored: boolean): void
  reject(error: unknown): void
}

interface Queue {
  pending: Pending[]
  /** Loops taking batches off `pending`, at most `concurrentBatches`. */
  flushers: number
}

/** One queue per store (Kysely instance): every context over a store shares its batches. */
const queues = new WeakMap<Kysely<Database>, Queue>()

async function flush(queue: Queue): Promise<void> {
  while (queue.pending.length > 0) {
    const batch = queue.pending.splice(0, MAX_BATCH)
    const ctx = (batch[0] as Pending).ctx
    try {
      const stored = await commit(
        ctx,
        batch.map((p) => p.write),
      )
      for (const [i, p] of batch.entries()) p.resolve(stored[i] as boolean)
    } catch (error) {
      if (batch.length === 1) {
        ;(batch[0] as Pending).reject(error)
        continue
      }
      // One bad write (its check deleted meanwhile, say) must not fail the others: each alone.
      for (const p of batch) {
        await commit(p.ctx, [p.write]).then(
          (stored) => p.resolve(stored[0] as boolean),
          (alone: unknown) => p.reject(alone),
        )
      }
    }
  }
  queue.flushers--
}

async function commit(ctx: ServiceContext, writes: ResultWrite[]): Promise<boolean[]> {
  const { stored, enqueued } = await ctx.db
    .transaction()
    .execute((db) => storeResults({ ...ctx, db }, writes))
  if (enqueued > 0) alertSignals.emit('enqueued')
  return stored
}

/** Stores and folds `writes` in the caller's transaction; answers which were new and the notifications queued. */
async function storeResults(
  tx: ServiceContext,
  writes: ResultWrite[],
): Promise<{ stored: boolean[]; enqueued: number }> {
  const inserted = await insertResults(
    tx,
    writes.map((w) => w.row),
  )
  const stored = writes.map((w) => inserted.has(w.row.id))
  const fresh = writes.filter((_, i) => stored[i])
  const enqueued = await foldResultsIntoAlerts(tx, fresh)
  const checks = new Map(fresh.flatMap((w) => (w.check ? [[w.row.check_id, w.check.row] as const] : [])))
  await foldResultsIntoAnalytics(
    tx,
    fresh.map((w) => w.row),
    checks,
  )
  await moveSlots(
    tx,
    writes.flatMap((w) => (w.slotMove ? [w.slotMove] : [])),
  )
  for (const write of writes) await write.alongside?.(tx)
  return { stored, enqueued }
}
