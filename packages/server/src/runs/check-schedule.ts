import type { CheckType } from '@svc/core'
import type { ServiceContext } from '../context.ts'
import { HEARTBEAT_LOCATION, type HeartbeatSettings, heartbeatWindowMs } from './heartbeat-window.ts'
import { RUNNABLE_CHECK_TYPES } from './run-check.ts'
import { insertSchedulesOfNewChecks, replaceSchedule, type ScheduleRow } from './schedules.repo.ts'
import { nextSlotAfter, planSlots } from './slots.ts'

export interface SchedulableCheck {
  id: string
  checkType: CheckType
  activated: boolean
  /** Milliseconds between runs (the effective `periodMs`). */
  periodMs: number
  locations: string[]
  runParallel: boolean
  /** False when the check's group is deactivated. */
  groupActivated: boolean
  heartbeat?: HeartbeatSettings
}

/**
 * Rewrites a check's schedule rows after any change, so the next claim sees the new configuration:
 * no rows for a deactivated check (or group) or a script check (until the Playwright runner lands); a
 * heartbeat's deadline in the `heartbeat` pseudo-location; else one row per location at its next slot,
 * which is within one period of now. A heartbeat's clock starts (period + grace from now) when it is
 * created, (re)activated or `heartbeatChanged` (new period or grace); any other edit, of the check or
 * its group, is no ping and leaves the deadline the last ping (or miss) set.
 */
export async function syncCheckSchedule(
  ctx: ServiceContext,
  check: SchedulableCheck,
  options: { heartbeatChanged?: boolean } = {},
): Promise<void> {
  const rows = plannedSchedule(ctx, check)
  const keepDue = check.heartbeat !== undefined && rows.length > 0 && options.heartbeatChanged !== true
  await replaceSchedule(ctx, check.id, rows, { keepDue })
}

/** The schedules of checks created in this transaction, planned as `syncCheckSchedule` plans them. */
export async function scheduleNewChecks(ctx: ServiceContext, checks: SchedulableCheck[]): Promise<void> {
  await insertSchedulesOfNewChecks(
    ctx,
    checks.map((check) => ({ checkId: check.id, rows: plannedSchedule(ctx, check) })),
  )
}

function plannedSchedule(ctx: ServiceContext, check: SchedulableCheck): ScheduleRow[] {
  const nowMs = ctx.clock.now().getTime()
  const active = check.activated && check.groupActivated
  if (active && check.heartbeat) {
    return [{ location: HEARTBEAT_LOCATION, nextDueMs: nowMs + heartbeatWindowMs(check.heartbeat) }]
  }
  if (!active || !RUNNABLE_CHECK_TYPES.includes(check.checkType)) return []
  const plans = planSlots(check.id, check.periodMs, check.locations, check.runParallel, ctx.slotGrain.ms)
  return plans.map((plan) => ({ location: plan.location, nextDueMs: nextSlotAfter(nowMs, plan) }))
}
