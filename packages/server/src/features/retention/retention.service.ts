import type { ServiceContext } from '../../context.ts'
import { retentionOfAccounts } from '../accounts/accounts.service.ts'
import { pruneNotifications } from '../alerting/alert-notifications.ts'
import { pruneAnalytics } from '../analytics/fold.ts'
import { deleteResultsBefore } from '../check-results/check-results.service.ts'
import { accountIdsOfChecks, pruneTagHistory } from '../checks/check-lookups.service.ts'
import { pruneMaintenancePeriods } from '../maintenance-windows/maintenance-windows.service.ts'
import { pruneAgentRecords } from '../private-locations/private-locations.service.ts'
import { pruneServiceDays } from '../status-page-services/status-page-services.service.ts'
import { accountIdsOfUnsavedRuns, pruneSessions } from '../test-sessions/session-retention.ts'

const DAY_MS = 86_400_000

/** One step of the retention sweep: what it deletes (for the log) and how. */
export type RetentionStep = [what: string, step: () => Promise<unknown>]

/**
 * What goes by the accounts' retention settings, one step after another, for the hourly housekeeping
 * (main.ts). `maxRetentionDays` (SVC_RESULT_RETENTION_DAYS) caps every account's `resultRetentionDays`.
 */
export function retentionSteps(ctx: ServiceContext, maxRetentionDays: number): RetentionStep[] {
  return [
    ['old results', () => pruneResults(ctx, maxRetentionDays)],
    ['old artifacts', () => pruneArtifacts(ctx)],
    ['agent records', () => pruneAgentRecords(ctx, maxRetentionDays)],
  ]
}

/**
 * Deletes results older than each account's `resultRetentionDays`, never keeping any longer than
 * `maxRetentionDays` (SVC_RESULT_RETENTION_DAYS), with what analytics and the alert-delivery log keep
 * of that time (pending deliveries stay) and what the status-page history keeps of it (of deleted
 * checks, of changed or deleted maintenance windows, of checks' changed tags). Returns how many results went.
 * Exported because the tests run one step without the sweep.
 */
export async function pruneResults(ctx: ServiceContext, maxRetentionDays: number): Promise<number> {
  const nowMs = ctx.clock.now().getTime()
  let deleted = 0
  for (const { accountId, resultRetentionDays } of await retentionOfAccounts(ctx)) {
    const cutoffMs = nowMs - Math.min(resultRetentionDays, maxRetentionDays) * DAY_MS
    const cutoffIso = new Date(cutoffMs).toISOString()
    deleted += await deleteResultsBefore(ctx, accountId, cutoffIso)
    await pruneAnalytics(ctx, accountId, cutoffMs)
    // The status history deleted checks left: the days wholly before the cutoff, as their results went.
    await pruneServiceDays(ctx, accountId, cutoffIso.slice(0, 10))
    // And the maintenance windows deleted or changed left of it, over before the cutoff.
    await pruneMaintenancePeriods(ctx, accountId, cutoffIso)
    // And the tags checks had before a change: those ended by the cutoff only judged runs now gone.
    await pruneTagHistory(ctx, accountId, cutoffIso)
    await pruneNotifications(ctx, accountId, cutoffIso)
    // Test and check sessions made before the cutoff, with an unsaved definition's whole result.
    await pruneSessions(ctx, accountId, cutoffIso)
  }
  return deleted
}

/**
 * Deletes the artifacts (screenshots, traces, videos) of script results older than their account's
 * `traceRetentionDays`, and those of checks that no longer exist. An unsaved definition's run (`svc test`)
 * stores them under its run id, in place of a check's: they follow the same rule while the run exists.
 * Returns how many results' artifacts went.
 * Exported because the tests run one step without the sweep.
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
    (await retentionOfAccounts(ctx)).map((account) => [account.accountId, account.traceRetentionDays]),
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
