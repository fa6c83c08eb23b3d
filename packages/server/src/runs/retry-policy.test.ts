import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { RetryStrategy } from '@svc/core'
import { nextRetry } from './retry-policy.ts'

const failed = { hasFailures: true, error: { type: 'ASSERTION' as const, message: 'Status code 503' } }
const run = (strategy: RetryStrategy | null, attempt: number, more: object = {}) =>
  nextRetry(strategy, {
    verdict: failed,
    attempt,
    elapsedMs: 0,
    location: 'a',
    locations: ['a', 'b', 'c'],
    ...more,
  })

test('backoffs: FIXED waits the base, LINEAR base × n, EXPONENTIAL base^n', () => {
  const base = { baseBackoffSeconds: 5, maxRetries: 3, maxDurationSeconds: 600 }
  const delays = (type: RetryStrategy['type']) =>
    [1, 2, 3, 4].map((attempt) => run({ type, ...base }, attempt)?.delayMs ?? null)
  assert.deepEqual(delays('FIXED'), [5_000, 5_000, 5_000, null])
  assert.deepEqual(delays('LINEAR'), [5_000, 10_000, 15_000, null])
  assert.deepEqual(delays('EXPONENTIAL'), [5_000, 25_000, 125_000, null])
  assert.deepEqual(delays('SINGLE_RETRY'), [5_000, null, null, null])
  assert.deepEqual(delays('NO_RETRIES'), [null, null, null, null])
  assert.equal(run(null, 1), null)
})

test('no retry past maxDurationSeconds, for a passing run, or for a non-network error with onlyOn', () => {
  const fixed: RetryStrategy = {
    type: 'FIXED',
    baseBackoffSeconds: 60,
    maxRetries: 5,
    maxDurationSeconds: 100,
  }
  assert.equal(run(fixed, 1, { elapsedMs: 30_000 })?.delayMs, 60_000)
  assert.equal(run(fixed, 2, { elapsedMs: 60_000 }), null)
  assert.equal(run(fixed, 1, { verdict: { hasFailures: false, error: null } }), null)
  const onlyNetwork: RetryStrategy = { ...fixed, onlyOn: ['NETWORK_ERROR'] }
  assert.equal(run(onlyNetwork, 1), null)
  for (const type of ['NETWORK_ERROR', 'TIMEOUT'] as const) {
    const verdict = { hasFailures: true, error: { type, message: 'x' } }
    assert.equal(run(onlyNetwork, 1, { verdict })?.delayMs, 60_000)
  }
})

test('sameRegion keeps the location; otherwise the next of the check locations, in turn', () => {
  const strategy: RetryStrategy = { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 2 }
  assert.equal(run(strategy, 1)?.location, 'a')
  assert.equal(run({ ...strategy, sameRegion: true }, 1)?.location, 'a')
  assert.equal(run({ ...strategy, sameRegion: false }, 1)?.location, 'b')
  assert.equal(run({ ...strategy, sameRegion: false }, 1, { location: 'c' })?.location, 'a')
  assert.equal(run({ ...strategy, sameRegion: false }, 1, { locations: ['a'] })?.location, 'a')
})
