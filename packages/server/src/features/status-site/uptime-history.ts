import type { ServiceContext } from '../../context.ts'
import { dailyFinalCounts, dailyFinalCountsWithin } from '../check-results/result-lookups.service.ts'
import { tagHistoryAfter } from '../checks/check-lookups.service.ts'
import { resolveChecksById } from '../checks/resolve-check.ts'
import { coversTags, maintenanceHistory } from '../maintenance-windows/maintenance-windows.service.ts'
import {
  keepServiceDays,
  lockReferencedServiceIds,
  servicesOfCheck,
} from '../status-page-services/service-lookups.service.ts'
import { historyStartMs } from './history-days.ts'

export interface CheckDayCount {
  checkId: string
  /** YYYY-MM-DD, UTC. */
  day: string
  /** Final runs outside maintenance windows. */
  total: number
  /** Failed final runs outside maintenance windows. */
  failed: number
  /** Final runs during a maintenance window covering the check: neither up nor down time. */
  maintenance: number
}

/** Intervals per query: two parameters each, well within both engines' limits. */
const INTERVALS_PER_QUERY = 500

/**
 * The daily final-run counts of `checkIds` (of `accountId`) since `sinceIso`, with the runs that started
 * during the account's maintenance covering the check (one of its or its group's tags, as they were
 * then) counted apart: planned maintenance is not downtime, as on Atlassian Statuspage and Checkly (which
 * runs no checks then). That maintenance is what the windows gave each moment as they were then
 * (`maintenanceHistory`), matched against the tags the check had then (`check_tag_history`): changing a
 * window or a check's tags, or creating a window now, leaves past days as they were. Without
 * maintenance in that time this is `dailyFinalCounts` and two small lookups.
 */
export async function historyCounts(
  ctx: ServiceContext,
  accountId: string,
  checkIds: string[],
  sinceIso: string,
  now: Date,
): Promise<CheckDayCount[]> {
  if (checkIds.length === 0) return []
  const [counts, occurring] = await Promise.all([
    dailyFinalCounts(ctx, checkIds, sinceIso),
    maintenanceHistory(ctx, accountId, Date.parse(sinceIso), now.getTime()),
  ])
  const byKey = new Map(counts.map((c) => [`${c.checkId}|${c.day}`, { ...c, maintenance: 0 }]))
  if (occurring.length === 0 || counts.length === 0) return [...byKey.values()]

  const sharing = await checksSharingMaintenance(ctx, accountId, checkIds, sinceIso, occurring)
  await countMaintenanceApart(ctx, byKey, sharing)
  return [...byKey.values()]
}

type Occurring = Awaited<ReturnType<typeof maintenanceHistory>>

/** Checks with the same maintenance intervals, keyed by them, so one query counts each set's runs. */
type SharedMaintenance = Map<string, { checkIds: string[]; intervals: [number, number][] }>

/** Each check's maintenance: the intervals the windows covered it, by the tags it had at each time. */
async function checksSharingMaintenance(
  ctx: ServiceContext,
  accountId: string,
  checkIds: string[],
  sinceIso: string,
  occurring: Occurring,
): Promise<SharedMaintenance> {
  // Current tags first: a change committing in between then shows the old tags in both reads (for the
  // time since too, until the next reading), never the new ones over the past.
  const checks = await resolveChecksById(ctx, checkIds)
  const pastTags = new Map<string, { tags: string[]; endsMs: number }[]>()
  for (const row of await tagHistoryAfter(ctx, [...checks.keys()], sinceIso)) {
    const kept = pastTags.get(row.check_id) ?? []
    kept.push({ tags: JSON.parse(row.tags) as string[], endsMs: Date.parse(row.ends_at) })
    pastTags.set(row.check_id, kept)
  }
  const maintenanceOf = maintenanceOfTags(occurring)
  const sharing: SharedMaintenance = new Map()
  for (const [id, check] of checks) {
    if (check.row.account_id !== accountId) continue
    // Each stretch of its tags (the kept ones, each since the one before, then its current ones).
    const intervals: [number, number][] = []
    let fromMs = Number.NEGATIVE_INFINITY
    for (const { tags, endsMs } of [
      ...(pastTags.get(id) ?? []),
      { tags: check.effective.tags, endsMs: Number.POSITIVE_INFINITY },
    ]) {
      for (const [from, to] of maintenanceOf(tags)) {
        const within: [number, number] = [Math.max(from, fromMs), Math.min(to, endsMs)]
        if (within[0] < within[1]) intervals.push(within)
      }
      fromMs = endsMs
    }
    if (intervals.length === 0) continue
    const merged = mergeIntervals(intervals)
    const key = merged.flat().join(',')
    const entry = sharing.get(key) ?? { checkIds: [], intervals: merged }
    entry.checkIds.push(id)
    sharing.set(key, entry)
  }
  return sharing
}

/** The maintenance covering a set of tags, merged once per set of windows covering it. */
function maintenanceOfTags(occurring: Occurring): (tags: string[]) => [number, number][] {
  const mergedByCovering = new Map<string, [number, number][]>()
  return (tags) => {
    const covering = occurring.flatMap((w, i) => (coversTags([w.tags], tags) ? [i] : []))
    const key = covering.join(',')
    let merged = mergedByCovering.get(key)
    if (!merged) {
      merged = mergeIntervals(covering.flatMap((i) => occurring[i]?.occurrences ?? []))
      mergedByCovering.set(key, merged)
    }
    return merged
  }
}

/** Moves the runs during each check's maintenance from its days' total and failed to their maintenance. */
async function countMaintenanceApart(
  ctx: ServiceContext,
  byKey: Map<string, CheckDayCount>,
  sharing: SharedMaintenance,
): Promise<void> {
  for (const { checkIds: ids, intervals: merged } of sharing.values()) {
    const intervals = merged.map(([from, to]): [string, string] => [
      new Date(from).toISOString(),
      new Date(to).toISOString(),
    ])
    for (let at = 0; at < intervals.length; at += INTERVALS_PER_QUERY) {
      const within = await dailyFinalCountsWithin(ctx, ids, intervals.slice(at, at + INTERVALS_PER_QUERY))
      for (const m of within) {
        const count = byKey.get(`${m.checkId}|${m.day}`)
        if (!count) continue
        count.total -= m.total
        count.failed -= m.failed
        count.maintenance += m.total
      }
    }
  }
}

/** Sorted, overlapping or touching intervals merged: a run is counted once however many windows cover it. */
function mergeIntervals(intervals: [number, number][]): [number, number][] {
  const merged: [number, number][] = []
  for (const [from, to] of [...intervals].sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1)
    if (last && from <= last[1]) last[1] = Math.max(last[1], to)
    else merged.push([from, to])
  }
  return merged
}

/**
 * Before a check is deleted (with its results), or taken off services (`serviceIds`): keeps its daily
 * counts of the page history's days with each service it is linked to (or leaves), so the services' past
 * bars stay what the public saw. Kept per check, in place of what an earlier taking off kept: a check put
 * back counts its own runs again (the page leaves out what is kept of a linked check), never twice.
 */
export async function keepStatusHistory(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  serviceIds?: string[],
) {
  // Of the services it is on, those that stay until this commits (one deleted meanwhile takes its kept
  // days along anyway).
  const services = serviceIds ?? (await lockReferencedServiceIds(ctx, await servicesOfCheck(ctx, checkId)))
  if (services.length === 0) return
  const now = ctx.clock.now()
  const sinceIso = new Date(historyStartMs(now)).toISOString()
  const counts = await historyCounts(ctx, accountId, [checkId], sinceIso, now)
  await keepServiceDays(
    ctx,
    checkId,
    services,
    counts.map((c) => ({ day: c.day, total: c.total, failed: c.failed, maintenance: c.maintenance })),
  )
}
