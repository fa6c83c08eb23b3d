import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compactDetailBytes, detailOfCompactBytes } from './compact-detail-bytes.ts'

const SIGNATURE = 'wyzweQUgW4uw'

test('a compact detail reads back from its bytes as the same JSON text', () => {
  const details = [
    `[[0,0,7.56,0,1.19,0.02,10.03],null,"${SIGNATURE}"]`,
    `[[0,0,7.56,0,1.29,0.01,10],null,"${SIGNATURE}"]`,
    // A timing that isn't whole hundredths, a negative one and a large one keep their exact values.
    `[[0.125,-1,123456.78,0,1e-7,0.1,99999999],null,"${SIGNATURE}"]`,
    `[[1,2,3,4,5,6,7],{"issuer":"R3","validTo":"2026-03-01T00:00:00.000Z","nested":{"a":[1,2]}},"${SIGNATURE}"]`,
  ]
  for (const detail of details) {
    const bytes = compactDetailBytes(detail)
    assert.ok(bytes, detail)
    assert.equal(detailOfCompactBytes(bytes), detail)
  }
  // Whole hundredths and no certificate: 1 + 7 timings (1 or 2 bytes each) + 9 bytes of hash.
  assert.equal(compactDetailBytes(details[0] as string)?.length, 20)
})

test('a detail the bytes would not give back exactly stays text', () => {
  for (const detail of [
    '{"urlCheckResult":{}}',
    `[[0,0,7.56,0,1.19,0.02],null,"${SIGNATURE}"]`,
    '[[0,0,7.56,0,1.19,0.02,10.03],null,"short"]',
    `[[0,0,7.56,0,1.19,0.02,10.03],null,"${SIGNATURE}", 1]`,
    `[[0, 0,7.56,0,1.19,0.02,10.03],null,"${SIGNATURE}"]`,
    `[[0,0,"7.56",0,1.19,0.02,10.03],null,"${SIGNATURE}"]`,
    'not json',
  ]) {
    assert.equal(compactDetailBytes(detail), undefined, detail)
  }
})
