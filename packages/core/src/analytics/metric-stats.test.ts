import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { MetricStats } from './metric-stats.ts'
import {
  decodeMetricStats,
  encodeMetricStats,
  mergeEncodedMetricStats,
  mergeStoredMetricStats,
} from './metric-stats-encoding.ts'
import { SKETCH_RELATIVE_ACCURACY } from './sketch.ts'

function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
}

test('stats merged from encoded parts equal the stats of all values; percentiles within 1%', () => {
  const next = random(7)
  const values: number[] = []
  const parts: Uint8Array[] = []
  for (let part = 0; part < 50; part++) {
    const stats = new MetricStats()
    const other = new MetricStats()
    for (let i = 0; i < 200; i++) {
      const value = next() < 0.05 ? 0 : next() < 0.1 ? 3_000 + next() * 9_000 : 20 + next() * 400
      values.push(value)
      stats.add(value)
      other.add(value / 10)
    }
    parts.push(
      encodeMetricStats(
        new Map([
          [0, stats],
          [3, other],
        ]),
      ),
    )
  }
  const merged = new MetricStats()
  for (const bytes of parts) mergeEncodedMetricStats(bytes, (slot) => (slot === 0 ? merged : undefined))
  const sorted = [...values].sort((a, b) => a - b)
  const n = values.length
  const sum = values.reduce((a, b) => a + b, 0)
  const mean = sum / n
  const stddev = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / n)
  assert.equal(merged.count, n)
  assert.ok(Math.abs((merged.aggregate('sum') as number) - sum) < 1e-6 * sum)
  assert.ok(Math.abs((merged.aggregate('avg') as number) - mean) < 1e-9 * mean)
  assert.ok(Math.abs((merged.aggregate('stddev') as number) - stddev) < 1e-6 * stddev)
  assert.equal(merged.aggregate('min'), sorted[0])
  assert.equal(merged.aggregate('max'), sorted.at(-1))
  for (const [aggregation, q] of [
    ['p50', 0.5],
    ['median', 0.5],
    ['p90', 0.9],
    ['p95', 0.95],
    ['p99', 0.99],
  ] as const) {
    const exact = sorted[Math.floor(q * (n - 1))] as number
    const estimate = merged.aggregate(aggregation) as number
    const error = exact === 0 ? estimate : Math.abs(estimate - exact) / exact
    assert.ok(error <= SKETCH_RELATIVE_ACCURACY + 1e-9, `${aggregation}: ${estimate} vs ${exact}`)
  }
})

test('encoding round-trips every slot; empty stats aggregate to null', () => {
  const a = new MetricStats()
  for (const value of [0.0001, 0.05, 1, 250, 1e7]) a.add(value)
  const decoded = decodeMetricStats(encodeMetricStats(new Map([[2, a]])))
  assert.deepEqual([...decoded.keys()], [2])
  const b = decoded.get(2) as MetricStats
  assert.deepEqual([...b.entries()], [...a.entries()])
  assert.deepEqual(
    [b.count, b.sum, b.sumSq, b.min, b.max, b.zeros],
    [a.count, a.sum, a.sumSq, a.min, a.max, a.zeros],
  )
  assert.equal(new MetricStats().aggregate('avg'), null)
  assert.equal(new MetricStats().quantile(0.5), null)
  assert.equal(encodeMetricStats(new Map([[1, new MetricStats()]])).length, 1, 'empty slots are left out')
})

/** Stats of `values` per slot, as a stored row would hold them. */
const statsArbitrary = fc
  .dictionary(
    fc.integer({ min: 0, max: 40 }).map(String),
    fc.array(
      fc.oneof(
        fc.constant(0),
        fc.double({ min: 1e-7, max: 1e9, noNaN: true }),
        fc.integer({ min: 1, max: 5_000 }),
      ),
      { maxLength: 30 },
    ),
    { maxKeys: 6 },
  )
  .map((bySlot) => {
    const stats = new Map<number, MetricStats>()
    for (const [slot, values] of Object.entries(bySlot)) {
      const metric = new MetricStats()
      for (const value of values) metric.add(value)
      stats.set(Number(slot), metric)
    }
    return stats
  })

test('merging two stored forms writes the bytes that encoding their merged stats writes', () => {
  fc.assert(
    fc.property(statsArbitrary, statsArbitrary, (into, other) => {
      const expected = decodeMetricStats(encodeMetricStats(into))
      mergeEncodedMetricStats(encodeMetricStats(other), (slot) => {
        let metric = expected.get(slot)
        if (!metric) {
          metric = new MetricStats()
          expected.set(slot, metric)
        }
        return metric
      })
      assert.deepEqual(
        mergeStoredMetricStats(encodeMetricStats(into), encodeMetricStats(other)),
        encodeMetricStats(expected),
      )
    }),
    { numRuns: 500 },
  )
})

test('a slot of one value is stored as that value and reads back as the stats of adding it', () => {
  // Format byte, slot byte, length byte, then hundredths as a varint (a timing rounded to 0.01 ms) or a float64.
  const sizes: [number, number][] = [
    [0, 3 + 1],
    [51.65, 3 + 2],
    [1234.56, 3 + 3],
    [-0, 3 + 8],
    [1e-12, 3 + 8],
    [-3, 3 + 8],
    [123_456.789, 3 + 8],
  ]
  for (const [value, size] of sizes) {
    const one = new MetricStats()
    one.add(value)
    const stored = encodeMetricStats(new Map([[4, one]]))
    assert.equal(stored.length, size, `${value}`)
    const read = decodeMetricStats(stored).get(4) as MetricStats
    for (const field of ['count', 'sum', 'sumSq', 'min', 'max', 'zeros'] as const)
      assert.ok(Object.is(read[field], one[field]), `${field} of ${value}`)
    assert.deepEqual([...read.entries()], [...one.entries()])
    // Merged with another row (stored whole), it writes what encoding the merged stats writes.
    const more = new MetricStats()
    for (const other of [2, 7.5, 0, 40]) more.add(other)
    const mergedOf = (first: MetricStats, second: MetricStats) => {
      const merged = new MetricStats()
      merged.merge(first)
      merged.merge(second)
      return encodeMetricStats(new Map([[4, merged]]))
    }
    const moreStored = encodeMetricStats(new Map([[4, more]]))
    assert.deepEqual(mergeStoredMetricStats(moreStored, stored), mergedOf(more, one))
    assert.deepEqual(mergeStoredMetricStats(stored, moreStored), mergedOf(one, more))
  }
  // Two values: stored whole.
  const two = new MetricStats()
  two.add(3)
  two.add(3)
  assert.ok(encodeMetricStats(new Map([[0, two]])).length > 11)
})
