import type { ServiceContext } from '../context.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { privateLocationIdOf } from '../features/private-locations/location-keys.ts'
import { findLocation } from '../features/private-locations/location-lookups.service.ts'
import { finishRetry } from './retries.repo.ts'
import type { ClaimedSlot } from './schedules.repo.ts'
import { COARSEST_GRAIN_MS } from './slot-grain.ts'
import { nextSlotAfter, planSlots } from './slots.ts'

/**
 * One attempt of a job, wherever it runs (this process's runner or an agent): a slot's first run, a
 * retry of it, or a one-off trigger.
 */
export interface Job {
  /** The job id of the first attempt: `${dueMs}:${checkId}:${location}` (see `slotKeyOf`), or `trigger:<uuid>`. */
  slotKey: string
  /** Where it runs, as schedule rows name places (`local`, `private:<id>`). */
  location: string
  attempt: number
  firstStartedMs: number
}

/**
 * A slot's key, the job id of its first attempt. Due time first: keys of new runs then sort after the
 * ones stored before them, so results' job ids (and retries' keys) land at the end of their unique
 * indexes, not on a page per check (with the check first, that index cost a store ~25 µs per result).
 */
export function slotKeyOf(slot: ClaimedSlot): string {
  return `${slot.dueMs}:${slot.checkId}:${slot.location}`
}

/** The due time a slot key (or a job id made from it) names; undefined for a trigger's. */
export function dueMsOfSlotKey(key: string): number | undefined {
  const dueMs = Number(key.slice(0, key.indexOf(':')))
  return Number.isFinite(dueMs) && !isTriggerJob({ slotKey: key }) ? dueMs : undefined
}

/** Unique per attempt, so a job re-run after a lost lease stores its result once. */
export function jobIdOf(job: Pick<Job, 'slotKey' | 'attempt'>): string {
  return job.attempt === 1 ? job.slotKey : `${job.slotKey}#${job.attempt}`
}

export const isTriggerJob = (job: Pick<Job, 'slotKey'>) => job.slotKey.startsWith('trigger:')

/**
 * Whether a claimed job still runs: a trigger always (it runs whether or not the check is activated);
 * a scheduled run or a retry only while the check and its group are activated, since `activated: false`
 * stops runs, the retries planned before it included.
 */
export function jobStillRuns(check: ResolvedCheck, job: Pick<Job, 'slotKey'>): boolean {
  return isTriggerJob(job) || (check.definition.activated !== false && check.groupActivated)
}

/** Drops a claimed job that no longer runs (see `jobStillRuns`): a retry's row goes, it is never run. */
export async function dropJob(ctx: ServiceContext, job: Pick<Job, 'slotKey' | 'attempt'>, owner: string) {
  if (job.attempt > 1) await finishRetry(ctx, job.slotKey, owner)
}

/** Where a result says it ran: a private location by its slug (as its agents' results say), else the location. */
export async function locationNameOf(ctx: ServiceContext, accountId: string, location: string) {
  const privateId = privateLocationIdOf(location)
  if (!privateId) return location
  return (await findLocation(ctx, accountId, privateId))?.slug_name ?? location
}

/**
 * A slot's next due time on its check's current plan (config changes apply from here). A plan that moved
 * the check's slot later (a finer slot grain, slot-grain.ts) would have it run again seconds after this
 * run: the next slot is at least a coarsest grain (or half a period) after this one.
 */
export function nextDueOf(ctx: ServiceContext, check: ResolvedCheck, slot: ClaimedSlot): number {
  const { periodMs } = check.effective
  const runParallel = Boolean(check.definition.runParallel)
  const plan = planSlots(check.row.id, periodMs, check.runLocations, runParallel, ctx.slotGrain.ms).find(
    (p) => p.location === slot.location,
  )
  const nowMs = ctx.clock.now().getTime()
  if (!plan) return nowMs + periodMs
  const gapMs = Math.min(COARSEST_GRAIN_MS, plan.periodMs / 2)
  return nextSlotAfter(Math.max(nowMs, slot.dueMs) + gapMs, plan)
}
