/**
 * The grain that checks' slots fall on (slots.ts). Checks due on the same grain start together and share
 * the process's wake-ups. A busy process keeps whole seconds. A quiet one plans on a coarser grain, so
 * that each wake-up still starts several checks: at 200 one-minute checks a whole-second grain started
 * about 3 checks per wake-up, and a check cost about 5× its CPU at saturation (bench/README, "A coarser
 * grain when quiet"). The grain in use is the context's `slotGrain`.
 */

export const WHOLE_SECOND_MS = 1000

export const COARSEST_GRAIN_MS = 10_000
/** Divisors of a minute: the slots of one-minute checks fall together on any of them. Finest first. */
export const SLOT_GRAINS_MS = [WHOLE_SECOND_MS, 2000, 3000, 4000, 5000, 6000, COARSEST_GRAIN_MS]

/**
 * A grain is kept while a slot holds up to this much more than the concurrency, so that a load near a
 * boundary (or a rate measured a little high) doesn't move checks back and forth between two grains.
 */
const KEEP_FACTOR = 1.25

/** A process plans on whole seconds until it has counted its runs this long. */
export const GRAIN_WINDOW_MS = 60_000

/**
 * The coarsest grain whose slots still start all their runs at once: a slot holds at most `concurrency`
 * runs (SVC_RUNNER_CONCURRENCY) at `runsPerMinute`. Whole seconds when even those hold more.
 */
export function slotGrainFor(currentMs: number, runsPerMinute: number, concurrency: number): number {
  const runsPerSlot = (grainMs: number) => (runsPerMinute * grainMs) / 60_000
  const coarsest =
    SLOT_GRAINS_MS.filter((grainMs) => runsPerSlot(grainMs) <= concurrency).at(-1) ?? WHOLE_SECOND_MS
  if (coarsest >= currentMs) return coarsest
  return runsPerSlot(currentMs) <= concurrency * KEEP_FACTOR ? currentMs : coarsest
}
