import type { CheckResultsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { deleteGroupsBefore } from '../error-groups/error-groups.repo.ts'
import { foldResultIntoErrorGroups } from '../error-groups/error-groups.service.ts'
import { deleteRollupsBefore } from './analytics.repo.ts'
import { foldResultIntoRollups } from './rollups.ts'

/**
 * What analytics does with each newly stored result, inside the transaction that stores it (see
 * alerting/alerter.ts): rollups and error groups, so a stored result is in both at once and exactly once.
 */
export async function foldResultIntoAnalytics(ctx: ServiceContext, row: CheckResultsTable): Promise<void> {
  await foldResultIntoRollups(ctx, row)
  await foldResultIntoErrorGroups(ctx, row)
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
