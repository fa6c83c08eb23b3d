import type { ServiceContext } from '../../context.ts'
import * as repo from './test-sessions.repo.ts'

/**
 * What the retention sweep keeps of sessions. A session (test or check) and its runs go with the results
 * of their time; an unsaved definition's run keeps its artifacts under its own id, owned by its account.
 */
export function pruneSessions(ctx: ServiceContext, accountId: string, beforeIso: string): Promise<number> {
  return repo.deleteSessionsBefore(ctx, accountId, beforeIso)
}

export function accountIdsOfUnsavedRuns(ctx: ServiceContext, runIds: string[]): Promise<Map<string, string>> {
  return repo.accountIdsOfUnsavedRuns(ctx, runIds)
}
