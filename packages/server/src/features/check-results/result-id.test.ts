import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newResultId } from './result-id.ts'

test('a result id is a version 7 UUID carrying its time in milliseconds', () => {
  const atMs = Date.UTC(2026, 10, 24, 3, 0, 0, 123)
  const id = newResultId(atMs)
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  assert.equal(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16), atMs)
})

test('result ids sort by time across milliseconds and differ within one', () => {
  const earlier = newResultId(1_000)
  const later = newResultId(1_001)
  assert.ok(earlier < later)
  const sameMs = new Set(Array.from({ length: 1000 }, () => newResultId(5_000)))
  assert.equal(sameMs.size, 1000)
})
