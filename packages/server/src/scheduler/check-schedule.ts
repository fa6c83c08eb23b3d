import type { CheckType } from '@svc/core'
import type { ServiceContext } from '../context.ts'
import { RUNNABLE_CHECK_TYPES } from './run-check.ts'
import { replaceSchedule } from './schedules.repo.ts'
import { nextSlotAfter, planSlots } from './slots.ts'

export interface SchedulableCheck {
  id: string
  checkType: CheckType
  activated: boolean
  frequency: number
  locations: string[]
  runParallel: boolean
  /** False when the check's group is deactivated. */
  groupActivated: boolean
}

/**
 * Rewrites a check's schedule rows after any change, so the next claim sees the new configuration:
 * no rows for a deactivated check (or group), a heartbeat (the server judges those from pings) or a
 * script check (until the Playwright runner lands), else
 * one row per location at its next slot, which is within one period of now.
 */
export async function syncCheckSchedule(ctx: ServiceContext, check: SchedulableCheck): Promise<void> {
  const runs = check.activated && check.groupActivated && RUNNABLE_CHECK_TYPES.includes(check.checkType)
  if (!runs) return replaceSchedule(ctx, check.id, [])
  const nowMs = ctx.clock.now().getTime()
  const plans = planSlots(check.id, check.frequency, check.locations, check.runParallel)
  await replaceSchedule(
    ctx,
    check.id,
    plans.map((plan) => ({ location: plan.location, nextDueMs: nextSlotAfter(nowMs, plan) })),
  )
}
