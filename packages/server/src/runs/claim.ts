import type { ServiceContext } from '../context.ts'
import { type ResolvedCheck, resolveChecksById } from '../features/checks/resolve-check.ts'
import { HEARTBEAT_LOCATION } from './heartbeat-window.ts'
import { claimDueRetries, type PendingRetry } from './retries.repo.ts'
import { type AccountVariables, loadAccountVariables } from './run-variables.ts'
import { deleteRunnerNode } from './runner-nodes.repo.ts'
import { type ClaimedSlot, claimDueSlots, type LeaseClaim, releaseLeases } from './schedules.repo.ts'

/** The claim stage of a run: due work taken under a row lease, with what its runs need loaded once. */
export interface Claimed {
  retries: PendingRetry[]
  slots: ClaimedSlot[]
  /** The claimed jobs' checks as they run now; a check deleted since the claim is missing. */
  checks: Map<string, ResolvedCheck>
  /** The variables of the checks' accounts, loaded once for the whole claim. */
  accounts: AccountVariables
}

export interface ClaimRequest {
  /** Whose leases the claimed rows carry. */
  owner: string
  nowMs: number
  leaseMs: number
  locations: string[]
  /** The most jobs to claim, retries first. */
  limit: number
  /**
   * Also claim the slots falling due within this long (default 0), heartbeat deadlines excepted (a ping
   * may still come): the caller starts each at its due time. Retries are claimed when due.
   */
  aheadMs?: number
}

/** Claims up to `limit` due retries and slots of `locations` under `owner`'s lease, retries first. */
export async function claimDue(ctx: ServiceContext, request: ClaimRequest): Promise<Claimed> {
  const { limit, aheadMs = 0, ...claim } = request
  const retries = await claimDueRetries(ctx, { ...claim, limit })
  const slots =
    aheadMs > 0
      ? await claimSlotsAhead(ctx, { ...claim, limit: limit - retries.length }, aheadMs)
      : await claimDueSlots(ctx, { ...claim, limit: limit - retries.length })
  const checks = await resolveChecksById(
    ctx,
    [...retries, ...slots].map((job) => job.checkId),
  )
  const accounts = await loadAccountVariables(ctx, [
    ...new Set([...checks.values()].map((check) => check.row.account_id)),
  ])
  return { retries, slots, checks, accounts }
}

/**
 * Heartbeat deadlines when due (a ping may still come), the other locations' slots due within `aheadMs`
 * too: one statement per location, as a claim of what is due now.
 */
async function claimSlotsAhead(ctx: ServiceContext, claim: LeaseClaim, aheadMs: number) {
  const isDeadline = (location: string) => location === HEARTBEAT_LOCATION
  const deadlines = await claimDueSlots(ctx, { ...claim, locations: claim.locations.filter(isDeadline) })
  const slots = await claimDueSlots(ctx, {
    ...claim,
    locations: claim.locations.filter((location) => !isDeadline(location)),
    dueByMs: claim.nowMs + aheadMs,
    limit: claim.limit - deadlines.length,
  })
  return [...deadlines, ...slots]
}

/** The lease owner of a node's life: what its scheduler's claims carry. */
export const schedulerOwner = (lifeId: string) => `node-${lifeId}`

/**
 * Ends now the run leases of a dead life of this node, so that its slots and retries are claimed again
 * at once, and drops its presence. A result it stored stays once: results are stored once per job id.
 */
export async function takeBackRuns(ctx: ServiceContext, lifeId: string): Promise<void> {
  await releaseLeases(ctx, schedulerOwner(lifeId))
  await deleteRunnerNode(ctx, schedulerOwner(lifeId))
}
