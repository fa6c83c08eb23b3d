/**
 * A mergeable quantile sketch with 1% relative accuracy (the DDSketch construction): values fall into
 * logarithmic bins of ratio γ = (1 + α) / (1 − α), so any quantile read back is within α of the exact
 * value at that rank, and two sketches merge by adding bin counts. Rollups keep one per bucket, so a
 * percentile over months is a merge of a few hundred sketches, never a scan of raw results.
 * Exported because the tests bound percentiles by it.
 */
export const SKETCH_RELATIVE_ACCURACY = 0.01

const GAMMA = (1 + SKETCH_RELATIVE_ACCURACY) / (1 - SKETCH_RELATIVE_ACCURACY)
const LOG_GAMMA = Math.log(GAMMA)
/** Values at or below this count as zero (timings are whole or fractional milliseconds, never tiny). */
const MIN_POSITIVE = 1e-6

/** The bin of a value above zero (see `isSketchZero`): bin i holds (γ^(i−1), γ^i]. */
export function sketchIndex(value: number): number {
  return Math.ceil(Math.log(value) / LOG_GAMMA)
}

/** Whether a value counts as zero (it falls in no bin). */
export function isSketchZero(value: number): boolean {
  return !(value > MIN_POSITIVE)
}

/** The value a bin stands for: within 1% of everything in it. */
export function sketchBinValue(index: number): number {
  return (2 * GAMMA ** index) / (GAMMA + 1)
}
