import assert from 'node:assert/strict'
import { test } from 'node:test'
import { inCi, missingComponent } from './testing.ts'

function withCi<T>(value: string | undefined, run: () => T): T {
  const before = process.env.CI
  if (value === undefined) delete process.env.CI
  else process.env.CI = value
  try {
    return run()
  } finally {
    if (before === undefined) delete process.env.CI
    else process.env.CI = before
  }
}

test('in CI (CI=true or 1) a missing component fails, naming it; elsewhere its tests are skipped', () => {
  assert.deepEqual(
    ['true', 'TRUE', '1', 'false', '0', '', undefined].map((value) => withCi(value, inCi)),
    [true, true, true, false, false, false, false],
  )
  assert.throws(
    () => withCi('true', () => missingComponent('ffmpeg', 'video tests', 'apt-get install ffmpeg')),
    /^Error: CI=true and ffmpeg is missing: video tests can't run, and CI must not skip them \(apt-get install ffmpeg\)$/,
  )
})

test('without CI, a missing component is one loud line however many tests ask', (t) => {
  const warn = t.mock.method(console, 'warn', () => {})
  const reasons = withCi(undefined, () =>
    [1, 2, 3].map(() => missingComponent('Ceph (radosgw)', 'S3 tests', 'apt-get install radosgw')),
  )
  assert.deepEqual(
    reasons,
    Array(3).fill('Ceph (radosgw) missing: S3 tests SKIPPED (apt-get install radosgw)'),
  )
  assert.deepEqual(
    warn.mock.calls.map((call) => call.arguments),
    [['!!!!!!!!!! Ceph (radosgw) missing: S3 tests SKIPPED (apt-get install radosgw) !!!!!!!!!!']],
  )
})
