import {
  apartFromCommitRecords,
  type CheckResultsTable,
  type CommitRecord,
  currentCommitRecord,
  type Database,
  isStoreBusy,
} from '@svc/db'
import type { Kysely } from 'kysely'
import type { ServiceContext } from '../context.ts'
import { resultWrites } from '../features/check-results/check-results.service.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { HttpError } from '../http/errors.ts'
import { type AfterCommit, lockFoldStates, RESULT_FOLDS } from './folds.ts'
import { isTriggerJob } from './jobs.ts'
import { heldLeases, moveSlots, type SlotLease, type SlotMove } from './schedules.repo.ts'

/**
 * The store stage of a run, the one write path for check results. A result and what the folds make of
 * it (runs/folds.ts: its check's alert state with the notifications it decides, as outbox rows, its
 * analytics and error groups) commit in one transaction: a stored result is folded exactly once, and a
 * crash loses all or nothing.
 *
 * Results written at about the same time share that transaction (group commit): while one batch
 * commits, the next gathers, so a busy node pays the commit and each statement once per batch rather
 * than once per result, and a quiet one waits for no timer. On a busy store a batch of results no
 * request waits on (runs' results) also waits a few milliseconds for more: like PostgreSQL's
 * `commit_delay`, it trades that much latency for fewer, bigger commits. At spread load (results ~60 ms
 * apart, a store that committed within the last second) such a batch waits up to the context's
 * `resultCommitDelayMs` (SVC_RESULT_COMMIT_DELAY_MS) instead, so a few results share a commit. Only
 * quiet passes wait: a result that may open an alert (failing, erroring, degraded, a retried attempt)
 * or that someone waits on (a triggered run's) ends the wait and commits the batch at once.
 */
export interface ResultWrite {
  row: CheckResultsTable
  /** The check as the caller resolved it; spares the folds loading it again. */
  check?: ResolvedCheck
  /** The schedule slot the result moves on, stored or a duplicate; the batch's move in one statement. */
  slotMove?: SlotMove
  /** Other store work that must commit with the result, stored or a duplicate (a retry planned). */
  alongside?: (tx: ServiceContext) => Promise<void>
  /**
   * Store the result (and do its `slotMove` and `alongside`) only while this lease still holds when its
   * batch commits (a missed heartbeat deadline): a write that released the slot since wins, committed
   * before or in the same batch (a ping), and this one is dropped (answered as not stored).
   */
  whileLeased?: SlotLease
}

/**
 * A result refused because its check was deleted before its batch committed: nothing of it was stored.
 * Answers the 404 of an unknown check where nobody answers more precisely.
 */
export class CheckDeletedError extends HttpError {
  readonly checkId: string

  constructor(checkId: string) {
    super(404, `Check ${checkId} not found: it was deleted while its result was stored`)
    this.checkId = checkId
  }
}

/**
 * Stores a result once per job id (a job re-run after a lost lease can't store it twice) and folds it
 * if new; resolves after the commit with whether it was new, rejects with `CheckDeletedError` when its
 * check is gone. Inside a transaction it joins it.
 */
export async function writeResult(ctx: ServiceContext, write: ResultWrite): Promise<boolean> {
  if (ctx.db.isTransaction) {
    const { outcomes } = await storeResults(ctx, [write])
    return settled(outcomes[0] as Outcome)
  }
  // Results finishing in the same turn of the event loop join the first batch.
  return enqueue(ctx, write, { awaited: false })
}

/**
 * `writeResult` for a batch the caller gathered itself (the pings of one turn): one promise per write.
 * The batch goes to the store at once instead of a turn later, when the requests of the next turn
 * would have split it, and never waits to gather more: requests are waiting on it.
 */
export function writeResults(ctx: ServiceContext, writes: ResultWrite[]): Promise<boolean>[] {
  if (ctx.db.isTransaction) {
    const outcomes = storeResults(ctx, writes).then((batch) => batch.outcomes)
    return writes.map((_, i) => outcomes.then((all) => settled(all[i] as Outcome)))
  }
  return writes.map((write) => enqueue(ctx, write, { awaited: true }))
}

function enqueue(ctx: ServiceContext, write: ResultWrite, { awaited }: { awaited: boolean }) {
  let queue = queues.get(ctx.db)
  if (!queue) {
    queue = { pending: [], flushers: 0, lastCommitMs: Number.NEGATIVE_INFINITY, gathering: new Set() }
    queues.set(ctx.db, queue)
  }
  const batches = queue
  // A result that may alert (or that a request waits on) ends the wait of the batch gathering: only
  // quiet passes wait for company.
  const urgent = awaited || !isQuietPass(write.row)
  return new Promise<boolean>((resolve, reject) => {
    batches.pending.push({ ctx, write, awaited, urgent, record: currentCommitRecord(), resolve, reject })
    if (urgent || batches.pending.length >= GATHERED) for (const gathered of batches.gathering) gathered()
    if (batches.flushers < concurrentBatches(ctx)) {
      batches.flushers++
      // A batch commits for every caller in it: each marks its own record (see settle).
      const flushApart = () => apartFromCommitRecords(() => void flush(batches))
      if (awaited) queueMicrotask(flushApart)
      else setImmediate(flushApart)
    }
  })
}

/**
 * Batches committing at once per store. SQLite has one writer. PostgreSQL commits in parallel; batches
 * touching one check queue on its alert-state lock, taken in check order after their checks' locks.
 */
const concurrentBatches = (ctx: ServiceContext) => (ctx.engine === 'postgres' ? 4 : 1)

/** Bounded so one statement stays within both engines' parameter limits (21 per result). */
const MAX_BATCH = 200
/**
 * The longest a batch waits for more writes, only while the store is busy (a batch committed within
 * the last `BUSY_MS`). In bench:runner (20 runs in flight, the scheduler freeing a run's place when the
 * run ends), ~34 results shared a commit instead of ~8, for ~13% less CPU per scheduled check.
 */
const GATHER_MS = 5
const BUSY_MS = 50
/**
 * A store that committed within this long counts as busy at spread load: a quiet pass waits up to the
 * context's `resultCommitDelayMs` for others. At 200 1-minute checks (~3 results a second) a 1 s wait
 * puts ~3 results in a commit, at 1,000 (~17 a second) ~17; a quieter store commits each result at once.
 */
const SPREAD_BUSY_MS = 1000
/** Pending writes that make a batch without waiting. */
const GATHERED = 50

interface Pending {
  ctx: ServiceContext
  write: ResultWrite
  /** A request waits on it: its batch is flushed in a microtask, not a turn later. */
  awaited: boolean
  /** Awaited, or a result that may alert (not a quiet pass): its batch doesn't wait to gather more. */
  urgent: boolean
  /** What the caller committed (an HTTP request's): marked once this write is. */
  record: CommitRecord | undefined
  resolve(stored: boolean): void
  reject(error: unknown): void
}

interface Queue {
  pending: Pending[]
  /** Loops taking batches off `pending`, at most `concurrentBatches`. */
  flushers: number
  /** When (performance.now()) the store last committed a batch: how busy it is. */
  lastCommitMs: number
  /** End the waits of the batches gathering more. */
  gathering: Set<() => void>
}

/** One queue per store (Kysely instance): every context over a store shares its batches. */
const queues = new WeakMap<Kysely<Database>, Queue>()

async function flush(queue: Queue): Promise<void> {
  while (queue.pending.length > 0) {
    await gather(queue)
    const batch = queue.pending.splice(0, MAX_BATCH)
    // Another loop took them while this one gathered.
    if (batch.length === 0) break
    const ctx = (batch[0] as Pending).ctx
    try {
      const outcomes = await commit(
        ctx,
        batch.map((p) => p.write),
      )
      for (const [i, p] of batch.entries()) settle(p, outcomes[i] as Outcome)
    } catch (error) {
      // A store busy with another process's write failed the batch as a whole: alone, each would wait
      // out the busy timeout again.
      if (batch.length === 1 || isStoreBusy(error)) {
        for (const p of batch) p.reject(error)
        continue
      }
      // One bad write must not fail the others: each alone.
      for (const p of batch) {
        await commit(p.ctx, [p.write]).then(
          (outcomes) => settle(p, outcomes[0] as Outcome),
          (alone: unknown) => p.reject(alone),
        )
      }
    }
    queue.lastCommitMs = performance.now()
  }
  queue.flushers--
}

/**
 * Waits for more writes before a batch, unless one is urgent or `GATHERED` are pending: up to
 * `GATHER_MS` on a store that committed within `BUSY_MS` (saturated), up to the context's
 * `resultCommitDelayMs` on one that committed within `SPREAD_BUSY_MS` (spread load).
 */
async function gather(queue: Queue): Promise<void> {
  const first = queue.pending[0]
  if (!first || queue.pending.length >= GATHERED) return
  if (queue.pending.some((p) => p.urgent)) return
  const sinceCommitMs = performance.now() - queue.lastCommitMs
  const waitMs =
    sinceCommitMs < BUSY_MS
      ? GATHER_MS
      : sinceCommitMs < SPREAD_BUSY_MS
        ? (first.ctx.resultCommitDelayMs ?? 0)
        : 0
  if (waitMs <= 0) return
  await new Promise<void>((resolve) => {
    const gathered = () => {
      clearTimeout(timer)
      queue.gathering.delete(gathered)
      resolve()
    }
    const timer = setTimeout(gathered, waitMs)
    queue.gathering.add(gathered)
  })
}

async function commit(ctx: ServiceContext, writes: ResultWrite[]): Promise<Outcome[]> {
  const { outcomes, afterCommit } = await ctx.db
    .transaction()
    .execute((db) => storeResults({ ...ctx, db }, writes))
  for (const action of afterCommit) action()
  return outcomes
}

/**
 * A passing, final result of a scheduled run, neither failing, erroring nor degraded. What it may change
 * (a recovery's notification at most) can wait the commit delay. Anything else may open an alert, and a
 * triggered run's result (a test session, `svc test`) has someone waiting on it: those commit at once.
 */
function isQuietPass(row: CheckResultsTable): boolean {
  return (
    row.result_type === 'FINAL' &&
    !row.has_failures &&
    !row.has_errors &&
    !row.is_degraded &&
    !row.is_cancelled &&
    !isTriggerJob({ slotKey: row.job_id })
  )
}

/** What became of a write: new (true), a duplicate or dropped (false), or refused, its check gone. */
type Outcome = boolean | CheckDeletedError

function settled(outcome: Outcome): boolean {
  if (outcome instanceof CheckDeletedError) throw outcome
  return outcome
}

function settle(pending: Pending, outcome: Outcome): void {
  if (outcome instanceof CheckDeletedError) {
    pending.reject(outcome)
    return
  }
  if (outcome && pending.record) pending.record.committed = true
  pending.resolve(outcome)
}

/**
 * Stores and folds `writes` in the caller's transaction; answers what became of each and what the folds
 * ask to do once it commits.
 */
async function storeResults(
  tx: ServiceContext,
  all: ResultWrite[],
): Promise<{ outcomes: Outcome[]; afterCommit: AfterCommit[] }> {
  // The checks first, in id order, as their deletion locks them before the rows that name them (alert
  // states, slots, rollups): a deletion that came first is waited for, and its check's results refused;
  // one that comes later waits for this commit. Neither holds what the other waits for: no deadlock.
  const present = await resultWrites.lockChecksOfResults(
    tx,
    all.map((w) => w.row.check_id),
  )
  const writes = await withLeasesHeld(
    tx,
    all.filter((w) => present.has(w.row.check_id)),
  )
  const inserted = await resultWrites.insertResults(
    tx,
    writes.map((w) => w.row),
  )
  // A result written twice in one batch (an agent's post retried while the first was in flight) is new once.
  const isNew = new Map(writes.map((w) => [w, inserted.delete(w.row.id)]))
  const outcomes = all.map((w) =>
    present.has(w.row.check_id) ? (isNew.get(w) ?? false) : new CheckDeletedError(w.row.check_id),
  )
  // A cancelled run is kept as a result but changes nothing: no alert state, analytics or error groups.
  const fresh = writes.filter((w) => isNew.get(w) && !w.row.is_cancelled)
  const afterCommit: AfterCommit[] = []
  for (const fold of RESULT_FOLDS) {
    const after = fresh.length > 0 ? await fold(tx, fresh) : undefined
    if (after) afterCommit.push(after)
  }
  await moveSlots(
    tx,
    writes.flatMap((w) => (w.slotMove ? [w.slotMove] : [])),
  )
  for (const write of writes) await write.alongside?.(tx)
  return { outcomes, afterCommit }
}

/**
 * `writes` without those whose `whileLeased` lease is gone: released by a write committed since the
 * claim, or by one in this batch (a ping's new deadline); lost to another node. The leases are read after
 * the fold-state locks of every check in the batch, taken in check order, the first lock every result
 * write takes after its checks' (see `lockFoldStates`): a write of one of these checks that
 * committed meanwhile is seen, one still in flight is waited for, and batches never wait on each other in
 * a cycle (no deadlock).
 */
async function withLeasesHeld(tx: ServiceContext, writes: ResultWrite[]): Promise<ResultWrite[]> {
  const conditional = writes.filter((w) => w.whileLeased)
  if (conditional.length === 0) return writes
  await lockFoldStates(
    tx,
    writes.map((w) => w.row.check_id),
  )
  const held = await heldLeases(
    tx,
    conditional.map((w) => w.whileLeased as SlotLease),
  )
  const lost = new Set(conditional.filter((_, i) => !held[i]))
  const slotKey = (slot: { checkId: string; location: string }) => `${slot.checkId}|${slot.location}`
  const released = new Set(
    writes.flatMap((w) => (w.slotMove && w.slotMove.leaseOwner === undefined ? [slotKey(w.slotMove)] : [])),
  )
  return writes.filter((w) => !w.whileLeased || (!lost.has(w) && !released.has(slotKey(w.whileLeased))))
}
