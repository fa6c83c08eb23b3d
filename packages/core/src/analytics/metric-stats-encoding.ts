import { ByteReader, ByteWriter, unzigzag, zigzag } from './byte-codec.ts'
import { MetricStats } from './metric-stats.ts'
import { isSketchZero, sketchIndex } from './sketch.ts'

/** Bins of the row being merged, as (index, count) pairs; reused across rows. */
let scratch = new Float64Array(2048)

/** The first byte of every stored form (never empty, so an empty one is not read back as NULL). */
const FORMAT_VERSION = 1

/**
 * The stored form of a rollup row's metrics: a format byte, then for each metric slot present, `[slot u8][length varint]`
 * then count, zeros (varints), sum, sumSq, min, max (float64), the bin count and the bins as
 * (gap from the previous index, count) varint pairs after a zigzag first index. Readers skip the slots
 * they don't need by length, without decoding them. A slot of one value (a minute row of a 1-minute
 * check) is stored as that value alone (its count, sums, min, max and bin all follow from it): a body of
 * 1 to 7 bytes is a varint of hundredths (a timing rounded to 0.01 ms, as runners round them), one of 8 a
 * float64; a full body is at least 35.
 */
export function encodeMetricStats(stats: ReadonlyMap<number, MetricStats>): Uint8Array {
  // Rows are encoded by the thousand per second: two writers serve every call instead of new buffers.
  const writer = rowWriter.reset()
  writer.byte(FORMAT_VERSION)
  for (const slot of [...stats.keys()].sort((a, b) => a - b)) {
    const metric = stats.get(slot) as MetricStats
    if (metric.count === 0) continue
    const body = slotWriter.reset()
    if (isSingleValue(metric)) {
      writeSingleValue(slot, metric.min, writer)
      continue
    }
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

/** The length of a slot's body holding its one value as a float64; shorter ones hold hundredths. */
const SINGLE_VALUE_LENGTH = 8
const HUNDREDTHS = 100

function writeSingleValue(slot: number, value: number, writer: ByteWriter): void {
  writer.byte(slot)
  const hundredths = Math.round(value * HUNDREDTHS)
  // Only when dividing gives the value back exactly (not -0, which reads back as 0).
  if (hundredths >= 0 && hundredths / HUNDREDTHS === value && !Object.is(value, -0)) {
    const body = slotWriter.reset()
    body.varint(hundredths)
    if (body.length < SINGLE_VALUE_LENGTH) {
      writer.varint(body.length)
      writer.append(body)
      return
    }
  }
  writer.varint(SINGLE_VALUE_LENGTH)
  writer.float64(value)
}

/** Reads the one value of a slot whose body (`length` bytes) holds only it. */
function readSingleValue(reader: ByteReader, length: number): number {
  return length === SINGLE_VALUE_LENGTH ? reader.float64() : reader.varint() / HUNDREDTHS
}

const isSingleValueLength = (length: number) => length <= SINGLE_VALUE_LENGTH

/** Stats of exactly one finite value, as `MetricStats.add` made them: rebuilt exactly from the value. */
function isSingleValue(metric: MetricStats): boolean {
  const value = metric.min
  return (
    metric.count === 1 &&
    Number.isFinite(value) &&
    Object.is(metric.max, value) &&
    Object.is(metric.sum, 0 + value) &&
    Object.is(metric.sumSq, 0 + value * value)
  )
}

/** Writes the full body of a one-value slot (count, zeros, sum, sumSq, min, max, bins). */
function writeSingleValueBody(value: number, body: ByteWriter): void {
  body.varint(1)
  const zero = isSketchZero(value)
  body.varint(zero ? 1 : 0)
  body.float64(0 + value)
  body.float64(0 + value * value)
  body.float64(value)
  body.float64(value)
  body.varint(zero ? 0 : 1)
  if (!zero) {
    body.varint(zigzag(sketchIndex(value)))
    body.varint(1)
  }
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
    if (isSingleValueLength(length)) {
      target.add(readSingleValue(reader, length))
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
function mergeSlot(stored: ByteReader, other: ByteReader, writer: ByteWriter): void {
  const slot = stored.byte()
  other.byte()
  const leftEnd = stored.varint() + stored.position
  const rightEnd = other.varint() + other.position
  const left = fullBody(stored, leftEnd, leftExpanded)
  const right = fullBody(other, rightEnd, rightExpanded)
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
  stored.position = leftEnd
  other.position = rightEnd
}

/** A reader of the full body of the slot at `reader` (ending at `end`): a one-value body is expanded first. */
function fullBody(reader: ByteReader, end: number, expanded: ByteWriter): ByteReader {
  const length = end - reader.position
  if (!isSingleValueLength(length)) return reader
  const value = readSingleValue(reader, length)
  writeSingleValueBody(value, expanded.reset())
  return new ByteReader(expanded.bytes())
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

/**
 * Decodes every slot of a stored row.
 * Exported because the tests decode what was encoded or merged.
 */
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

const rowWriter = new ByteWriter()
const slotWriter = new ByteWriter()
const binWriter = new ByteWriter()
const leftExpanded = new ByteWriter()
const rightExpanded = new ByteWriter()
