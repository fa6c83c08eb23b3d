import { type ByteWriter, zigzag } from './byte-codec.ts'
import type { MetricAggregation } from './metrics.ts'
import { isSketchZero, sketchBinValue, sketchIndex } from './sketch.ts'

/**
 * What a rollup keeps of one metric in one bucket: count, sum, sum of squares, min, max and the
 * quantile sketch's bins (dense, growing as values arrive). Merging two is adding them, so a bucket of
 * any length is the merge of the rollup rows inside it. Percentiles are within 1% relative error
 * (sketch.ts); count, sum, avg, min, max and stddev are exact.
 */
export class MetricStats {
  count = 0
  sum = 0
  sumSq = 0
  min = Number.POSITIVE_INFINITY
  max = Number.NEGATIVE_INFINITY
  zeros = 0
  /** bins[i] counts values of sketch bin `offset + i`. */
  private bins: number[] = EMPTY_BINS
  private offset = 0
  /** Running totals of `bins`, built on the first quantile asked for (and dropped on any change). */
  private cumulative: number[] | null = null

  add(value: number): void {
    this.count++
    this.sum += value
    this.sumSq += value * value
    if (value < this.min) this.min = value
    if (value > this.max) this.max = value
    if (isSketchZero(value)) this.zeros++
    else this.addToBin(sketchIndex(value), 1)
  }

  merge(other: MetricStats): void {
    this.count += other.count
    this.sum += other.sum
    this.sumSq += other.sumSq
    if (other.min < this.min) this.min = other.min
    if (other.max > this.max) this.max = other.max
    this.zeros += other.zeros
    const bins = other.bins
    for (let i = 0; i < bins.length; i++) {
      const count = bins[i] as number
      if (count !== 0) this.addToBin(other.offset + i, count)
    }
  }

  addToBin(index: number, count: number): void {
    this.cumulative = null
    let position = index - this.offset
    if (position < 0 || position >= this.bins.length) {
      this.grow(index)
      position = index - this.offset
    }
    this.bins[position] = (this.bins[position] as number) + count
  }

  private grow(index: number): void {
    this.reserve(index, index)
  }

  /** Makes room for bins `low` to `high` at once (merging a stored row reserves its whole span). */
  reserve(low: number, high: number): void {
    const length = this.bins.length
    if (length > 0 && low >= this.offset && high < this.offset + length) return
    if (length === 0) {
      this.bins = new Array<number>(high - low + 33).fill(0)
      this.offset = low - 16
      return
    }
    const from = Math.min(this.offset, low - 16)
    const to = Math.max(this.offset + length, high + 17)
    const grown = new Array<number>(Math.max(to - from, length * 2)).fill(0)
    const shift = this.offset - from
    for (let i = 0; i < length; i++) grown[shift + i] = this.bins[i] as number
    this.bins = grown
    this.offset = from
  }

  /** The value at quantile `q` (0–1), rank ⌊q·(n − 1)⌋, within 1%; clamped to the exact min and max. */
  quantile(q: number): number | null {
    if (this.count === 0) return null
    const rank = Math.floor(q * (this.count - 1))
    let value = 0
    if (rank >= this.zeros) {
      const cumulative = this.cumulativeBins()
      // The first bin whose running total passes the rank.
      let low = 0
      let high = cumulative.length - 1
      while (low < high) {
        const mid = (low + high) >> 1
        if ((cumulative[mid] as number) + this.zeros > rank) high = mid
        else low = mid + 1
      }
      value = sketchBinValue(this.offset + low)
    }
    return Math.min(this.max, Math.max(this.min, value))
  }

  private cumulativeBins(): number[] {
    if (!this.cumulative) {
      const cumulative = new Array<number>(this.bins.length)
      let total = 0
      for (let i = 0; i < this.bins.length; i++) {
        total += this.bins[i] as number
        cumulative[i] = total
      }
      this.cumulative = cumulative
    }
    return this.cumulative
  }

  /** One aggregate of the values; null when there are none. */
  aggregate(aggregation: MetricAggregation): number | null {
    if (this.count === 0) return null
    switch (aggregation) {
      case 'avg':
        return this.sum / this.count
      case 'sum':
        return this.sum
      case 'min':
        return this.min
      case 'max':
        return this.max
      case 'stddev': {
        const mean = this.sum / this.count
        return Math.sqrt(Math.max(0, this.sumSq / this.count - mean * mean))
      }
      case 'median':
      case 'p50':
        return this.quantile(0.5)
      case 'p90':
        return this.quantile(0.9)
      case 'p95':
        return this.quantile(0.95)
      case 'p99':
        return this.quantile(0.99)
    }
  }

  /** Writes the number of non-empty bins, then each as (gap from the previous index, count). */
  writeBins(writer: ByteWriter): void {
    const bins = this.bins
    let nonEmpty = 0
    for (let i = 0; i < bins.length; i++) if (bins[i] !== 0) nonEmpty++
    writer.varint(nonEmpty)
    let previous: number | undefined
    for (let i = 0; i < bins.length; i++) {
      const count = bins[i] as number
      if (count === 0) continue
      const index = this.offset + i
      writer.varint(previous === undefined ? zigzag(index) : index - previous)
      writer.varint(count)
      previous = index
    }
  }

  /** Non-empty bins in index order, as [index, count] pairs. */
  *entries(): Generator<[number, number]> {
    for (let i = 0; i < this.bins.length; i++) {
      const count = this.bins[i] as number
      if (count !== 0) yield [this.offset + i, count]
    }
  }
}

const EMPTY_BINS: number[] = []
