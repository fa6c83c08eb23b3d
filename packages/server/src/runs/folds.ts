import type { CheckResultsTable } from '@svc/db'
import type { ServiceContext } from '../context.ts'
import { alertSignals, foldResultsIntoAlerts, lockAlertStates } from '../features/alerting/alerter.ts'
import { foldResultsIntoAnalytics } from '../features/analytics/fold.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { foldResultsIntoErrorGroups } from '../features/error-groups/error-groups.service.ts'

/** A result the store has just inserted, new (not a duplicate) and not cancelled. */
export interface StoredResult {
  row: CheckResultsTable
  /** The check as the caller resolved it, when it did; spares a fold loading it again. */
  check?: ResolvedCheck
}

/** Something to do once the transaction that stored the results has committed. */
export type AfterCommit = () => void

/**
 * What follows a stored result: it runs in the transaction that stores `results`, in their order, so
 * each result is folded exactly once and a crash loses the result and the fold together. It may answer
 * an action for after the commit (waking the alert dispatcher, say).
 */
export type ResultFold = (tx: ServiceContext, results: StoredResult[]) => Promise<AfterCommit | undefined>

const alertStates: ResultFold = async (tx, results) => {
  const enqueued = await foldResultsIntoAlerts(tx, results)
  return enqueued > 0 ? () => alertSignals.emit('enqueued') : undefined
}

const analyticsRollups: ResultFold = async (tx, results) => {
  await foldResultsIntoAnalytics(tx, results)
  return undefined
}

const errorGroups: ResultFold = async (tx, results) => {
  await foldResultsIntoErrorGroups(
    tx,
    results.map((result) => result.row),
  )
  return undefined
}

/**
 * The folds the store calls, in this order, for every batch of new results. Alert states go first: they
 * lock per check (see `lockFoldStates`), and every batch takes its locks in the same order.
 */
export const RESULT_FOLDS: readonly ResultFold[] = [alertStates, analyticsRollups, errorGroups]

/**
 * Locks what the first fold locks, in check id order: the store takes these before it reads a lease
 * (a missed heartbeat deadline's), so a write of the same check in flight elsewhere is waited for.
 */
export const lockFoldStates = (tx: ServiceContext, checkIds: string[]): Promise<void> =>
  lockAlertStates(tx, checkIds)
