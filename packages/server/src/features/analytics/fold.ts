import type { CheckResultsTable, ChecksTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { deleteGroupsBefore } from '../error-groups/error-group-lookups.service.ts'
import { deleteRollupsBefore } from './analytics.repo.ts'
import { foldResultsIntoRollups } from './rollups.ts'

/**
 * What analytics does with newly stored results, inside the transaction that stores them (one of the
 * folds of runs/folds.ts): its rollups, so a stored result is in them at once and exactly once. A
 * result's `check` row, when the caller has it, spares loading it again.
 */
export async function foldResultsIntoAnalytics(
  ctx: ServiceContext,
  results: { row: CheckResultsTable; check?: { row: ChecksTable } }[],
): Promise<void> {
  const checks = new Map(results.flatMap((r) => (r.check ? [[r.row.check_id, r.check.row] as const] : [])))
  await foldResultsIntoRollups(
    ctx,
    results.map((r) => r.row),
    checks,
  )
}

/** Prunes what analytics keeps of an account's results older than `cutoffMs`, with the results. */
export async function pruneAnalytics(
  ctx: ServiceContext,
  accountId: string,
  cutoffMs: number,
): Promise<void> {
  await deleteRollupsBefore(ctx, accountId, cutoffMs)
  await deleteGroupsBefore(ctx, accountId, new Date(cutoffMs).toISOString())
}
