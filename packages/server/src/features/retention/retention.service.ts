import type { ServiceContext } from '../../context.ts'
import { listAllAccounts } from '../accounts/accounts.repo.ts'
import { toAccount } from '../accounts/accounts.service.ts'
import { deleteFinishedNotificationsBefore } from '../alerting/alert-notifications.repo.ts'
import { pruneAnalytics } from '../analytics/fold.ts'
import { accountIdsOfChecks, pruneTagHistory } from '../checks/checks.repo.ts'
import { prunePeriods } from '../maintenance-windows/maintenance-windows.repo.ts'
import { pruneServiceDays } from '../status-page-services/status-page-services.repo.ts'
import { accountIdsOfUnsavedRuns, pruneSessions } from '../test-sessions/session-retention.ts'
import { deleteResultsBefore } from './check-results.repo.ts'

const DAY_MS = 86_400_000

/**
 * Deletes results older than each account's `resultRetentionDays`, never keeping any longer than
 * `maxRetentionDays` (SVC_RESULT_RETENTION_DAYS), with what analytics and the alert-delivery log keep
 * of that time (pending deliveries stay) and what the status-page history keeps of it (of deleted
 * checks, of changed or deleted maintenance windows, of checks' changed tags). Returns how many results went.
 */
export async function pruneResults(ctx: ServiceContext, maxRetentionDays: number): Promise<number> {
  const nowMs = ctx.clock.now().getTime()
  let deleted = 0
  for (const row of await listAllAccounts(ctx)) {
    const days = Math.min(toAccount(row).settings.resultRetentionDays, maxRetentionDays)
    const cutoffMs = nowMs - days * DAY_MS
    deleted += await deleteResultsBefore(ctx, row.id, new Date(cutoffMs).toISOString())
    await pruneAnalytics(ctx, row.id, cutoffMs)
    // The status history deleted checks left: the days wholly before the cutoff, as their results went.
    await pruneServiceDays(ctx, row.id, new Date(cutoffMs).toISOString().slice(0, 10))
    // And the maintenance windows deleted or changed left of it, over before the cutoff.
    await prunePeriods(ctx, row.id, new Date(cutoffMs).toISOString())
    // And the tags checks had before a change: those ended by the cutoff only judged runs now gone.
    await pruneTagHistory(ctx, row.id, new Date(cutoffMs).toISOString())
    await deleteFinishedNotificationsBefore(ctx, row.id, new Date(cutoffMs).toISOString())
    // Test and check sessions made before the cutoff, with an unsaved definition's whole result.
    await pruneSessions(ctx, row.id, new Date(cutoffMs).toISOString())
  }
  return deleted
}

/**
 * Deletes the artifacts (screenshots, traces, videos) of script results older than their account's
 * `traceRetentionDays`, and those of checks that no longer exist. An unsaved definition's run (`svc test`)
 * stores them under its run id, in place of a check's: they follow the same rule while the run exists.
 * Returns how many results' artifacts went.
 */
export async function pruneArtifacts(ctx: ServiceContext): Promise<number> {
  const store = ctx.scripts.artifacts
  const stored = await store.listResults()
  if (stored.length === 0) return 0
  const ownerIds = [...new Set(stored.map((result) => result.checkId))]
  const owners = await accountIdsOfChecks(ctx, ownerIds)
  const runs = await accountIdsOfUnsavedRuns(
    ctx,
    ownerIds.filter((id) => !owners.has(id)),
  )
  for (const [runId, accountId] of runs) owners.set(runId, accountId)
  const retentionDays = new Map(
    (await listAllAccounts(ctx)).map((row) => [row.id, toAccount(row).settings.traceRetentionDays]),
  )
  const nowMs = ctx.clock.now().getTime()
  const removedChecks = new Set<string>()
  let deleted = 0
  for (const { checkId, resultId, modifiedMs } of stored) {
    const accountId = owners.get(checkId)
    if (!accountId) {
      if (!removedChecks.has(checkId)) await store.removeCheck(checkId)
      removedChecks.add(checkId)
      continue
    }
    if (modifiedMs >= nowMs - (retentionDays.get(accountId) ?? 7) * DAY_MS) continue
    await store.removeResult(checkId, resultId)
    deleted++
  }
  return deleted
}
