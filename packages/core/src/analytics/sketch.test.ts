import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  addToSketch,
  emptySketch,
  mergeSketches,
  SKETCH_RELATIVE_ACCURACY,
  sketchCount,
  sketchQuantile,
} from './sketch.ts'

/** The exact value at rank ⌊q·(n − 1)⌋: the definition the sketch approximates. */
function exactQuantile(sorted: number[], q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))] as number
}

/** A deterministic pseudo-random stream, so a failure can be replayed. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
}

test('quantiles of merged sketches are within 1% of the exact values, for several distributions', () => {
  const next = random(42)
  const distributions = {
    uniform: () => 5 + next() * 2_000,
    lognormal: () =>
      Math.exp(4 + 1.2 * Math.sqrt(-2 * Math.log(next() || 1e-9)) * Math.cos(2 * Math.PI * next())),
    bimodal: () => (next() < 0.9 ? 80 + next() * 20 : 5_000 + next() * 500),
    withZeros: () => (next() < 0.2 ? 0 : next() * 300),
  }
  for (const [name, draw] of Object.entries(distributions)) {
    const values: number[] = []
    const parts = Array.from({ length: 24 }, () => emptySketch())
    for (let i = 0; i < 20_000; i++) {
      const value = draw()
      values.push(value)
      addToSketch(parts[i % parts.length]!, value)
    }
    const merged = emptySketch()
    for (const part of parts) mergeSketches(merged, part)
    assert.equal(sketchCount(merged), values.length)
    const sorted = [...values].sort((a, b) => a - b)
    const bounds = { min: sorted[0]!, max: sorted.at(-1)! }
    for (const q of [0, 0.01, 0.5, 0.9, 0.95, 0.99, 1]) {
      const exact = exactQuantile(sorted, q)
      const estimate = sketchQuantile(merged, q, bounds) as number
      const error = exact === 0 ? estimate : Math.abs(estimate - exact) / exact
      assert.ok(error <= SKETCH_RELATIVE_ACCURACY + 1e-9, `${name} q=${q}: ${estimate} vs ${exact}`)
    }
  }
})

test('an empty sketch has no quantile; survives JSON round trips', () => {
  assert.equal(sketchQuantile(emptySketch(), 0.5), null)
  const sketch = emptySketch()
  for (const value of [10, 20, 30]) addToSketch(sketch, value)
  const copy = JSON.parse(JSON.stringify(sketch))
  assert.equal(
    sketchQuantile(copy, 0.5, { min: 10, max: 30 }),
    sketchQuantile(sketch, 0.5, { min: 10, max: 30 }),
  )
  assert.ok(Math.abs((sketchQuantile(copy, 0.5) as number) - 20) <= 0.2)
})
