import assert from 'node:assert/strict'
import { test } from 'node:test'
import { errorFingerprint, normalizeErrorMessage } from './error-fingerprint.ts'

test('real error strings lose what varies between runs and keep what names the failure', () => {
  const cases: [string, string][] = [
    [
      'DNS lookup failed: getaddrinfo ENOTFOUND api.shop.test',
      'DNS lookup failed: getaddrinfo ENOTFOUND api.shop.test',
    ],
    [
      'Connection refused: connect ECONNREFUSED 10.0.3.17:5432',
      'Connection refused: connect ECONNREFUSED <ip>',
    ],
    ['Status code 503 is not below 400', 'Status code 503 is not below <n>'],
    [
      'Assertion failed: STATUS_CODE EQUALS "200", got 502',
      'Assertion failed: STATUS_CODE EQUALS "<n>", got 502',
    ],
    [
      'Assertion failed: JSON_BODY $.order.id EQUALS "4711", got "order 0f8fad5b-d9cb-469f-a165-70867728950e created 2026-07-21T10:15:02.113Z"',
      'Assertion failed: JSON_BODY $.order.id EQUALS "<n>", got "order <id> created <timestamp>"',
    ],
    [
      'TLS error (CERT_HAS_EXPIRED): certificate has expired',
      'TLS error (CERT_HAS_EXPIRED): certificate has expired',
    ],
    [
      'page.goto: net::ERR_NAME_NOT_RESOLVED at https://shop.test/checkout?session=8f14e45fceea167a&ts=1789000000#step-2',
      'page.goto: net::ERR_NAME_NOT_RESOLVED at https://shop.test/checkout',
    ],
    [
      'buy flow: TimeoutError: locator.click: Timeout 30000ms exceeded. at tests/buy.spec.ts:14:7',
      'buy flow: TimeoutError: locator.click: Timeout <n>ms exceeded. at tests/buy.spec.ts:<n>:<n>',
    ],
    ['Packet loss 40% is over 10%', 'Packet loss <n>% is over <n>%'],
    ['Job took 10:15:02 (page.goto: net::ERR_FAILED)', 'Job took <n>:<n>:<n> (page.goto: net::ERR_FAILED)'],
    [
      'Request to 2001:db8::1 failed, Date: Tue, 21 Jul 2026 10:15:02 GMT',
      'Request to <ip> failed, Date: <timestamp>',
    ],
  ]
  for (const [raw, cleaned] of cases) assert.equal(normalizeErrorMessage(raw), cleaned, raw)
})

test('same error, same fingerprint; another status code or type, another fingerprint', () => {
  const a = errorFingerprint('NETWORK_ERROR', 'Connection refused: connect ECONNREFUSED 10.0.3.17:5432')
  const b = errorFingerprint('NETWORK_ERROR', 'Connection refused: connect ECONNREFUSED 10.0.9.2:5433')
  assert.equal(a.hash, b.hash)
  assert.match(a.hash, /^[0-9a-f]{64}$/)
  assert.notEqual(
    errorFingerprint('ASSERTION', 'Status code 503 is not below 400').hash,
    errorFingerprint('ASSERTION', 'Status code 404 is not below 400').hash,
  )
  assert.notEqual(
    errorFingerprint('TIMEOUT', 'The request timed out').hash,
    errorFingerprint('NETWORK_ERROR', 'The request timed out').hash,
  )
})
