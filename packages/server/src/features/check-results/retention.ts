import type { ServiceContext } from '../../context.ts'
import { listAllAccounts } from '../accounts/accounts.repo.ts'
import { toAccount } from '../accounts/accounts.service.ts'
import { deleteResultsBefore } from './check-results.repo.ts'

const DAY_MS = 86_400_000

/**
 * Deletes results older than each account's `resultRetentionDays`, never keeping any longer than
 * `maxRetentionDays` (SVC_RESULT_RETENTION_DAYS). Returns how many results went.
 */
export async function pruneResults(ctx: ServiceContext, maxRetentionDays: number): Promise<number> {
  const nowMs = ctx.clock.now().getTime()
  let deleted = 0
  for (const row of await listAllAccounts(ctx)) {
    const days = Math.min(toAccount(row).settings.resultRetentionDays, maxRetentionDays)
    deleted += await deleteResultsBefore(ctx, row.id, new Date(nowMs - days * DAY_MS).toISOString())
  }
  return deleted
}
