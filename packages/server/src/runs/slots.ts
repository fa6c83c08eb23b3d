import { createHash } from 'node:crypto'
import { WHOLE_SECOND_MS } from './slot-grain.ts'

/**
 * When a check runs. A check of period P has a stable offset O inside the period (from its id), so
 * checks spread over the period instead of all firing at second 0. Round-robin over N locations gives
 * location i the period N·P and offset O + i·P: one location per period, in turn. With `runParallel`
 * every location runs every period at O. O falls on the process's slot grain (slot-grain.ts).
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
  grainMs: number = WHOLE_SECOND_MS,
): SlotPlan[] {
  const offsetMs = stableOffsetMs(checkId, periodMs, grainMs)
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
 * A check's offset: a whole second of its period, rounded down to `grainMs`. Checks due in the same
 * second (or grain) start together and share the process's wake-ups, as kernels coalesce timers.
 * Spread to the millisecond, each check woke an idle process on its own: at 1,000 one-minute checks the
 * check alone then cost 3.4× the CPU (bench/README, "Slots on whole seconds"). Rounding down keeps the
 * spread even on every grain, and a change of grain moves a check by less than the grain.
 */
export function stableOffsetMs(checkId: string, periodMs: number, grainMs: number = WHOLE_SECOND_MS): number {
  const hash = createHash('sha256').update(checkId).digest()
  const seconds = Math.max(1, Math.floor(periodMs / WHOLE_SECOND_MS))
  const offsetMs = (hash.readUInt32BE(0) % seconds) * WHOLE_SECOND_MS
  return offsetMs - (offsetMs % grainMs)
}
