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
/** Bins of the row being merged, as (index, count) pairs; reused across rows. */
let scratch = new Float64Array(2048)

/** The first byte of every stored form (never empty, so an empty one is not read back as NULL). */
const FORMAT_VERSION = 1

/**
 * The stored form of a rollup row's metrics: a format byte, then for each metric slot present, `[slot u8][length varint]`
 * then count, zeros (varints), sum, sumSq, min, max (float64), the bin count and the bins as
 * (gap from the previous index, count) varint pairs after a zigzag first index. Readers skip the slots
 * they don't need by length, without decoding them.
 */
export function encodeMetricStats(stats: ReadonlyMap<number, MetricStats>): Uint8Array {
  // Rows are encoded by the thousand per second: two writers serve every call instead of new buffers.
  const writer = rowWriter.reset()
  writer.byte(FORMAT_VERSION)
  for (const slot of [...stats.keys()].sort((a, b) => a - b)) {
    const metric = stats.get(slot) as MetricStats
    if (metric.count === 0) continue
    const body = slotWriter.reset()
    body.varint(metric.count)
    body.varint(metric.zeros)
    body.float64(metric.sum)
    body.float64(metric.sumSq)
    body.float64(metric.min)
    body.float64(metric.max)
    metric.writeBins(body)
    writer.byte(slot)
    writer.varint(body.length)
    writer.append(body)
  }
  return writer.bytes()
}

/** Merges the metrics of a stored row into `into(slot)`'s accumulator; slots answering undefined are skipped. */
export function mergeEncodedMetricStats(
  bytes: Uint8Array,
  into: (slot: number) => MetricStats | undefined,
): void {
  const reader = new ByteReader(bytes)
  if (bytes.length > 0 && reader.byte() !== FORMAT_VERSION) throw new Error('unknown rollup stats format')
  while (reader.position < bytes.length) {
    const slot = reader.byte()
    const length = reader.varint()
    const end = reader.position + length
    const target = into(slot)
    if (!target) {
      reader.position = end
      continue
    }
    const count = reader.varint()
    target.count += count
    target.zeros += reader.varint()
    target.sum += reader.float64()
    target.sumSq += reader.float64()
    const min = reader.float64()
    const max = reader.float64()
    if (min < target.min) target.min = min
    if (max > target.max) target.max = max
    const bins = reader.varint()
    if (bins > scratch.length / 2) scratch = new Float64Array(bins * 4)
    let index = 0
    for (let i = 0; i < bins; i++) {
      index = i === 0 ? unzigzag(reader.varint()) : index + reader.varint()
      scratch[2 * i] = index
      scratch[2 * i + 1] = reader.varint()
    }
    if (bins > 0) target.reserve(scratch[0] as number, index)
    for (let i = 0; i < bins; i++) target.addToBin(scratch[2 * i] as number, scratch[2 * i + 1] as number)
    reader.position = end
  }
}

/**
 * The stored form of `into`'s stats merged with `other`'s: the bytes `encodeMetricStats` writes for that
 * merge, made without decoding either into bins. Slots of one side only are copied as they are; a slot of
 * both has its bins merged in index order. A stored row grows to hundreds of bins, and a result adds one.
 */
export function mergeStoredMetricStats(into: Uint8Array, other: Uint8Array): Uint8Array {
  const left = storedReader(into)
  const right = storedReader(other)
  const writer = rowWriter.reset()
  writer.byte(FORMAT_VERSION)
  // Slots are written in ascending order: walk both like a merge of two sorted lists.
  while (left.position < into.length || right.position < other.length) {
    const leftSlot = left.position < into.length ? left.peekByte() : Number.POSITIVE_INFINITY
    const rightSlot = right.position < other.length ? right.peekByte() : Number.POSITIVE_INFINITY
    if (leftSlot === rightSlot) mergeSlot(left, right, writer)
    else copySlot(leftSlot < rightSlot ? left : right, writer)
  }
  return writer.bytes()
}

/** Writes the merge of the slot at `left` and the same slot at `right`, as `MetricStats.merge` makes it. */
function mergeSlot(left: ByteReader, right: ByteReader, writer: ByteWriter): void {
  const slot = left.byte()
  right.byte()
  const leftEnd = left.varint() + left.position
  const rightEnd = right.varint() + right.position
  const body = slotWriter.reset()
  // count, zeros, sum, sumSq, min, max, then the bins.
  body.varint(left.varint() + right.varint())
  body.varint(left.varint() + right.varint())
  body.float64(left.float64() + right.float64())
  body.float64(left.float64() + right.float64())
  // Compared as `MetricStats.merge` compares them: Math.min and Math.max differ for NaN and -0.
  const leftMin = left.float64()
  const rightMin = right.float64()
  // biome-ignore lint/complexity/useMathMinMax: see above
  body.float64(rightMin < leftMin ? rightMin : leftMin)
  const leftMax = left.float64()
  const rightMax = right.float64()
  // biome-ignore lint/complexity/useMathMinMax: see above
  body.float64(rightMax > leftMax ? rightMax : leftMax)
  mergeBins(left, right, body)
  writer.byte(slot)
  writer.varint(body.length)
  writer.append(body)
  left.position = leftEnd
  right.position = rightEnd
}

function storedReader(bytes: Uint8Array): ByteReader {
  const reader = new ByteReader(bytes)
  if (bytes.length > 0 && reader.byte() !== FORMAT_VERSION) throw new Error('unknown rollup stats format')
  return reader
}

/** Copies the slot at `reader` (slot byte, length, body) as it is. */
function copySlot(reader: ByteReader, writer: ByteWriter): void {
  const start = reader.position
  reader.byte()
  const length = reader.varint()
  reader.position += length
  writer.appendBytes(reader.bytesFrom(start))
}

/** Writes the bin count and bins of two slots' bins (at `left` and `right`) merged in index order. */
function mergeBins(left: ByteReader, right: ByteReader, body: ByteWriter): void {
  const a = new BinCursor(left)
  const b = new BinCursor(right)
  const bins = binWriter.reset()
  let written = 0
  let previous = 0
  while (a.index !== NONE || b.index !== NONE) {
    const index = Math.min(a.index, b.index)
    let count = 0
    if (a.index === index) {
      count += a.count
      a.next()
    }
    if (b.index === index) {
      count += b.count
      b.next()
    }
    bins.varint(written === 0 ? zigzag(index) : index - previous)
    bins.varint(count)
    previous = index
    written++
  }
  body.varint(written)
  body.append(bins)
}

const NONE = Number.POSITIVE_INFINITY

/** Reads a slot's bins one at a time, in index order: `index` is NONE once all are read. */
class BinCursor {
  index = NONE
  count = 0
  private readonly reader: ByteReader
  private left: number
  private first = true

  constructor(reader: ByteReader) {
    this.reader = reader
    this.left = reader.varint()
    this.next()
  }

  next(): void {
    if (this.left === 0) {
      this.index = NONE
      return
    }
    this.left--
    const step = this.reader.varint()
    this.index = this.first ? unzigzag(step) : this.index + step
    this.first = false
    this.count = this.reader.varint()
  }
}

/** Decodes every slot of a stored row. */
export function decodeMetricStats(bytes: Uint8Array): Map<number, MetricStats> {
  const stats = new Map<number, MetricStats>()
  mergeEncodedMetricStats(bytes, (slot) => {
    let metric = stats.get(slot)
    if (!metric) {
      metric = new MetricStats()
      stats.set(slot, metric)
    }
    return metric
  })
  return stats
}

const zigzag = (n: number) => (n >= 0 ? n * 2 : -n * 2 - 1)
const unzigzag = (n: number) => (n % 2 === 0 ? n / 2 : -(n + 1) / 2)

class ByteWriter {
  private buffer = new Uint8Array(256)
  private view = new DataView(this.buffer.buffer)
  length = 0

  reset(): this {
    this.length = 0
    return this
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra))
    grown.set(this.buffer.subarray(0, this.length))
    this.buffer = grown
    this.view = new DataView(grown.buffer)
  }

  byte(value: number): void {
    this.reserve(1)
    this.buffer[this.length++] = value
  }

  /** Unsigned integers up to 2^53. */
  varint(value: number): void {
    this.reserve(8)
    let rest = value
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80
      rest = Math.floor(rest / 0x80)
    }
    this.buffer[this.length++] = rest
  }

  float64(value: number): void {
    this.reserve(8)
    this.view.setFloat64(this.length, value, true)
    this.length += 8
  }

  append(other: ByteWriter): void {
    this.appendBytes(other.buffer.subarray(0, other.length))
  }

  appendBytes(bytes: Uint8Array): void {
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  /** A copy of what was written: the writer is reused. */
  bytes(): Uint8Array {
    return this.buffer.slice(0, this.length)
  }
}

const rowWriter = new ByteWriter()
const slotWriter = new ByteWriter()
const binWriter = new ByteWriter()

class ByteReader {
  position = 0
  private readonly buffer: Uint8Array
  private readonly view: DataView

  constructor(buffer: Uint8Array) {
    this.buffer = buffer
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  }

  byte(): number {
    return this.buffer[this.position++] as number
  }

  peekByte(): number {
    return this.buffer[this.position] as number
  }

  /** The bytes from `start` to the current position (a view, not a copy). */
  bytesFrom(start: number): Uint8Array {
    return this.buffer.subarray(start, this.position)
  }

  varint(): number {
    let value = 0
    let scale = 1
    for (;;) {
      const byte = this.buffer[this.position++] as number
      value += (byte & 0x7f) * scale
      if (byte < 0x80) return value
      scale *= 0x80
    }
  }

  float64(): number {
    const value = this.view.getFloat64(this.position, true)
    this.position += 8
    return value
  }
}
