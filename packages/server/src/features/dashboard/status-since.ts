import type { ServiceContext } from '../../context.ts'
import { statusReads } from '../check-results/check-results.service.ts'

interface Held {
  status: string
  since: string
  /** The latest result's start when this was read: the next read looks for a change from there on. */
  latestAt: string
}

const MAX_HELD = 100_000
const heldByContext = new WeakMap<ServiceContext, Map<string, Held>>()

/**
 * Since when each check's current status holds (`current`: check id → status and latest result's start).
 * The overview is polled every few seconds: finding "since when" from scratch reads a check's whole
 * history, so the answer is kept per check and the next poll only reads the results that came after it.
 * Checks whose status changed (or that weren't read before) are read in full.
 */
export async function statusesSince(
  ctx: ServiceContext,
  current: Map<string, { status: string; latestAt: string }>,
): Promise<Map<string, string>> {
  let held = heldByContext.get(ctx)
  if (!held || held.size > MAX_HELD) {
    held = new Map()
    heldByContext.set(ctx, held)
  }
  const candidates = new Map<string, { status: string; fromIso: string }>()
  for (const [id, now] of current) {
    const before = held.get(id)
    if (before && before.status === now.status && before.latestAt <= now.latestAt)
      candidates.set(id, { status: now.status, fromIso: before.latestAt })
  }
  const broken = await statusReads.statusesBrokenSince(ctx, candidates)
  const since = new Map<string, string>()
  const unknown = new Map<string, string>()
  for (const [id, now] of current) {
    const before = held.get(id)
    if (before && candidates.has(id) && !broken.has(id)) since.set(id, before.since)
    else unknown.set(id, now.status)
  }
  for (const [id, at] of await statusReads.currentStatusesSince(ctx, unknown)) since.set(id, at)
  for (const [id, now] of current) {
    const at = since.get(id)
    if (at) held.set(id, { status: now.status, since: at, latestAt: now.latestAt })
    else held.delete(id)
  }
  return since
}
