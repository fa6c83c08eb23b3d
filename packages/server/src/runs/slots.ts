import { createHash } from 'node:crypto'

/**
 * When a check runs. A check of period P has a stable offset O inside the period (from its id), so
 * checks spread over the period instead of all firing at second 0. Round-robin over N locations gives
 * location i the period N·P and offset O + i·P: one location per period, in turn. With `runParallel`
 * every location runs every period at O.
 */
export interface SlotPlan {
  location: string
  periodMs: number
  offsetMs: number
}

export function planSlots(
  checkId: string,
  /** `effective.periodMs`: frequency minutes, or seconds at frequency 0 (core's `checkPeriodMs`). */
  periodMs: number,
  locations: string[],
  runParallel: boolean,
): SlotPlan[] {
  const offsetMs = stableOffsetMs(checkId, periodMs)
  return locations.map((location, index) =>
    runParallel
      ? { location, periodMs, offsetMs }
      : { location, periodMs: periodMs * locations.length, offsetMs: offsetMs + index * periodMs },
  )
}

/** The first slot strictly after `nowMs`. */
export function nextSlotAfter(nowMs: number, plan: Pick<SlotPlan, 'periodMs' | 'offsetMs'>): number {
  const sinceOffset = (((nowMs - plan.offsetMs) % plan.periodMs) + plan.periodMs) % plan.periodMs
  return nowMs - sinceOffset + plan.periodMs
}

/**
 * Slots fall on whole seconds, so checks due in the same second start together and share the process's
 * wake-ups, as kernels coalesce timers. Spread to the millisecond, each check woke an idle process on
 * its own: at 1,000 one-minute checks the check alone then cost 3.4× the CPU (bench/README, "Slots on
 * whole seconds").
 */
const SLOT_GRAIN_MS = 1000

/** Exported because the tests pin the offsets. */
export function stableOffsetMs(checkId: string, periodMs: number): number {
  const hash = createHash('sha256').update(checkId).digest()
  const slots = Math.max(1, Math.floor(periodMs / SLOT_GRAIN_MS))
  return (hash.readUInt32BE(0) % slots) * SLOT_GRAIN_MS
}
