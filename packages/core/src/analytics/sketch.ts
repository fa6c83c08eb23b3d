/**
 * A mergeable quantile sketch with 1% relative accuracy (the DDSketch construction): values fall into
 * logarithmic bins of ratio γ = (1 + α) / (1 − α), so any quantile read back is within α of the exact
 * value at that rank, and two sketches merge by adding bin counts. Rollups keep one per bucket, so a
 * percentile over months is a merge of a few hundred sketches, never a scan of raw results.
 */
export const SKETCH_RELATIVE_ACCURACY = 0.01

const GAMMA = (1 + SKETCH_RELATIVE_ACCURACY) / (1 - SKETCH_RELATIVE_ACCURACY)
const LOG_GAMMA = Math.log(GAMMA)
/** Values at or below this count as zero (timings are whole or fractional milliseconds, never tiny). */
const MIN_POSITIVE = 1e-6

/** The stored form: `z` values of zero (or less), `b` bin index → count. */
export interface SketchData {
  z: number
  b: Record<string, number>
}

export function emptySketch(): SketchData {
  return { z: 0, b: {} }
}

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

export function addToSketch(sketch: SketchData, value: number): void {
  if (isSketchZero(value)) {
    sketch.z += 1
    return
  }
  const index = sketchIndex(value)
  sketch.b[index] = (sketch.b[index] ?? 0) + 1
}

export function mergeSketches(into: SketchData, from: SketchData): void {
  into.z += from.z
  for (const [index, count] of Object.entries(from.b)) into.b[index] = (into.b[index] ?? 0) + count
}

export function sketchCount(sketch: SketchData): number {
  let count = sketch.z
  for (const bin of Object.values(sketch.b)) count += bin
  return count
}

/**
 * The value at quantile `q` (0–1): the value of rank ⌊q·(n − 1)⌋ in sorted order, within 1% relative
 * error; clamped to the exact min and max when given. Null for an empty sketch.
 */
export function sketchQuantile(
  sketch: SketchData,
  q: number,
  bounds?: { min: number; max: number },
): number | null {
  const count = sketchCount(sketch)
  if (count === 0) return null
  const rank = Math.floor(q * (count - 1))
  let value = 0
  if (rank >= sketch.z) {
    let seen = sketch.z
    const bins = Object.entries(sketch.b)
      .map(([index, binCount]) => [Number(index), binCount] as const)
      .sort((a, b) => a[0] - b[0])
    for (const [index, binCount] of bins) {
      seen += binCount
      if (seen > rank) {
        value = sketchBinValue(index)
        break
      }
    }
  }
  return bounds ? Math.min(bounds.max, Math.max(bounds.min, value)) : value
}
