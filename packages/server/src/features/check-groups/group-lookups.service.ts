import type { ServiceContext } from '../../context.ts'
import { cachedFoldRead } from '../../fold-reads.ts'
import { findGroup } from './check-groups.repo.ts'

// The reads (and row locks) of check groups that other features make: the one door to the groups' table
// from outside this feature.
export { findGroup, findGroups, listGroups, listGroupsOfAccount, lockGroup } from './check-groups.repo.ts'

/** A group as the alert fold reads it for each failing result: from memory (fold-reads.ts) while unchanged. */
export const foldedGroup = (ctx: ServiceContext, accountId: string, id: number) =>
  cachedFoldRead(ctx, `group:${accountId}:${id}`, () => findGroup(ctx, accountId, id))
