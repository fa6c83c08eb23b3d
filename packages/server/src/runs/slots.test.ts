import assert from 'node:assert/strict'
import { test } from 'node:test'
import { nextSlotAfter, planSlots, stableOffsetMs } from './slots.ts'

const MINUTE = 60_000

test('offsets are stable per check and spread inside the period', () => {
  assert.equal(stableOffsetMs('check-a', 10 * MINUTE), stableOffsetMs('check-a', 10 * MINUTE))
  const offsets = new Set(
    Array.from({ length: 200 }, (_, i) => Math.floor(stableOffsetMs(`c${i}`, MINUTE) / 1000)),
  )
  assert.ok(offsets.size > 40, `200 checks land on ${offsets.size} distinct seconds of the minute`)
  for (let i = 0; i < 50; i++) {
    const offset = stableOffsetMs(`c${i}`, 5 * MINUTE)
    assert.ok(offset >= 0 && offset < 5 * MINUTE)
  }
})

test('offsets fall on whole seconds, so checks due in the same second share a wake-up', () => {
  const offsets = Array.from({ length: 300 }, (_, i) => stableOffsetMs(`c${i}`, MINUTE))
  assert.deepEqual(
    offsets.filter((offset) => offset % 1000 !== 0),
    [],
  )
  assert.equal(new Set(offsets).size, 60, '300 checks use every second of the minute')
  assert.ok(Array.from({ length: 100 }, (_, i) => stableOffsetMs(`c${i}`, 10_000)).every((o) => o < 10_000))
  assert.equal(stableOffsetMs('c1', 500), 0, 'a period under a second has one slot')
})

test('on a coarser grain, offsets are the whole-second ones rounded down, still spread over the period', () => {
  const ids = Array.from({ length: 300 }, (_, i) => `c${i}`)
  for (const grainMs of [2000, 6000, 10_000]) {
    const moves = ids.map((id) => stableOffsetMs(id, MINUTE) - stableOffsetMs(id, MINUTE, grainMs))
    assert.ok(
      moves.every((move) => move >= 0 && move < grainMs),
      `a check moves less than the ${grainMs} ms grain, never later`,
    )
    const offsets = ids.map((id) => stableOffsetMs(id, MINUTE, grainMs))
    assert.deepEqual(
      offsets.filter((offset) => offset % grainMs !== 0),
      [],
    )
    assert.equal(new Set(offsets).size, MINUTE / grainMs, `every ${grainMs} ms slot of the minute is used`)
  }
  assert.equal(stableOffsetMs('c1', 10_000, 10_000), 0, 'a period of one grain has one slot')
  const [plan] = planSlots('c1', MINUTE, ['a'], false, 6000)
  assert.equal(plan?.offsetMs, stableOffsetMs('c1', MINUTE, 6000))
})

test('the next slot is strictly after now and on the grid', () => {
  const plan = { periodMs: 10 * MINUTE, offsetMs: 90_000 }
  assert.equal(nextSlotAfter(0, plan), 90_000)
  assert.equal(nextSlotAfter(90_000, plan), 90_000 + 10 * MINUTE)
  assert.equal(nextSlotAfter(90_001, plan), 90_000 + 10 * MINUTE)
  assert.equal(nextSlotAfter(-1, { periodMs: MINUTE, offsetMs: 0 }), 0)
})

test('round-robin runs one location per period in turn; runParallel runs all each period', () => {
  const locations = ['a', 'b', 'c']
  const roundRobin = planSlots('check', 60_000, locations, false)
  const firstRuns = roundRobin.map((plan) => nextSlotAfter(0, plan)).sort((x, y) => x - y)
  const gaps = firstRuns.slice(1).map((t, i) => t - (firstRuns[i] ?? 0))
  assert.deepEqual(gaps, [MINUTE, MINUTE], 'one location per minute')
  assert.ok(roundRobin.every((plan) => plan.periodMs === 3 * MINUTE))

  const parallel = planSlots('check', 60_000, locations, true)
  assert.equal(new Set(parallel.map((plan) => nextSlotAfter(0, plan))).size, 1)
  assert.ok(parallel.every((plan) => plan.periodMs === MINUTE))
})
