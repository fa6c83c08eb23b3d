import type { CheckResultsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { deleteRollupsBefore } from './analytics.repo.ts'
import { foldResultIntoRollups } from './rollups.ts'

/**
 * What analytics does with each newly stored result, inside the transaction that stores it (see
 * alerting/alerter.ts): rollups, so a stored result is in analytics at once and exactly once.
 */
export async function foldResultIntoAnalytics(ctx: ServiceContext, row: CheckResultsTable): Promise<void> {
  await foldResultIntoRollups(ctx, row)
}

/** Prunes what analytics keeps of an account's results older than `cutoffMs`, with the results. */
export async function pruneAnalytics(
  ctx: ServiceContext,
  accountId: string,
  cutoffMs: number,
): Promise<void> {
  await deleteRollupsBefore(ctx, accountId, cutoffMs)
}
