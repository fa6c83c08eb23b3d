import type { CheckResultsTable, ChecksTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { deleteGroupsBefore } from '../error-groups/error-groups.repo.ts'
import { foldResultsIntoErrorGroups } from '../error-groups/error-groups.service.ts'
import { deleteRollupsBefore } from './analytics.repo.ts'
import { foldResultsIntoRollups } from './rollups.ts'

/**
 * What analytics does with newly stored results, inside the transaction that stores them (see
 * check-results/store-results.ts): rollups and error groups, so a stored result is in both at once and
 * exactly once. `checks` spares loading checks the caller has.
 */
export async function foldResultsIntoAnalytics(
  ctx: ServiceContext,
  rows: CheckResultsTable[],
  checks?: ReadonlyMap<string, ChecksTable>,
): Promise<void> {
  await foldResultsIntoRollups(ctx, rows, checks)
  await foldResultsIntoErrorGroups(ctx, rows)
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
