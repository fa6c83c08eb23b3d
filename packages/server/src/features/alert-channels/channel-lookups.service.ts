// The reads of alert channels and their subscriptions that alerting makes: the one door to the channels'
// tables from outside this feature.
import type { ServiceContext } from '../../context.ts'
import { cachedFoldReads } from '../../fold-reads.ts'
import * as repo from './alert-channels.repo.ts'

export { findChannel, findChannelById } from './alert-channels.repo.ts'

export type SubscriptionRow = Awaited<ReturnType<typeof repo.subscriptionsOf>>[number]

/**
 * The subscriptions of checks (by id) and groups (by id), with their channel rows, in channel order. Every
 * result's alert fold reads them, so they come from the fold-reads cache: each check's and group's list
 * (an empty one too) is read once and kept until a channel or subscription is written (the repo drops
 * the cache) or the cache's TTL ends.
 */
export async function subscriptionsOf(
  ctx: ServiceContext,
  checkIds: string[],
  groupIds: number[],
): Promise<SubscriptionRow[]> {
  const keys = [...checkIds.map(checkKey), ...groupIds.map(groupKey)]
  const found = await cachedFoldReads<SubscriptionRow[]>(ctx, keys, async (missing) => {
    const missingKeys = new Set(missing)
    const rows = await repo.subscriptionsOf(
      ctx,
      checkIds.filter((id) => missingKeys.has(checkKey(id))),
      groupIds.filter((id) => missingKeys.has(groupKey(id))),
    )
    const byKey = new Map<string, SubscriptionRow[]>(missing.map((key) => [key, []]))
    for (const row of rows) {
      const key = row.check_id !== null ? checkKey(row.check_id) : groupKey(row.group_id as number)
      byKey.get(key)?.push(row)
    }
    return byKey
  })
  return [...new Set(keys)].flatMap((key) => found.get(key) ?? []).sort((a, b) => a.id - b.id)
}

const checkKey = (id: string) => `subscriptions:check:${id}`
const groupKey = (id: number) => `subscriptions:group:${id}`
