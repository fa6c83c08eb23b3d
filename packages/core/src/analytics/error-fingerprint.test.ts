import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  errorFingerprint,
  normalizeErrorMessage,
  normalizeWholeErrorMessage,
  safeCutOfErrorMessage,
} from './error-fingerprint.ts'

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

/** The normalization as it was before it was made linear: every fingerprint stored since must stay. */
function quadraticNormalization(message: string): string {
  return message
    .replace(/\b((?:https?|wss?):\/\/[^\s?#'"<>)]*)[?#][^\s'"<>)]*/gi, '$1')
    .replace(/\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT\b/g, '<timestamp>')
    .replace(
      /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g,
      '<timestamp>',
    )
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<id>')
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, '<ip>')
    .replace(
      /(?<![\w:])(?=[0-9a-f:]*[a-f]|[0-9a-f:]*::)(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:])/gi,
      '<ip>',
    )
    .replace(
      /\b(status(?: code)?:? ?|STATUS_CODE[^\n]*?got |HTTP\/\d(?:\.\d)? )([1-5]\d\d)\b/gi,
      '$1KEPTSTATUS$2',
    )
    .replace(/(?<![A-Za-z_<\d])\d+(?:\.\d+)?/g, '<n>')
    .replaceAll('KEPTSTATUS', '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 1000)
}

/** Pieces the patterns look for, so that random messages hit their edges (and their failing starts). */
const fragment = fc.oneof(
  fc.constantFrom(
    'http://',
    'https://',
    'wss://',
    'ws://',
    'HTTP://',
    'shop.test',
    '/cart',
    '?',
    '#',
    '=',
    '&',
    "'",
    '"',
    '<',
    '>',
    ')',
    '(',
    ' ',
    '\n',
    '\t',
    ':',
    '::',
    '.',
    ',',
    '-',
    '+',
    '_',
    'Z',
    'T',
    'STATUS_CODE',
    'status_code',
    'STATUS_CODE EQUALS "200", ',
    'STATUS_CODE EQUALS "200", got 502',
    'got ',
    'got',
    'got 503',
    'status',
    'status 404',
    'Status code ',
    'status code 503',
    ' code',
    'status: ',
    'HTTP/1.1 ',
    'HTTP/2 ',
    'HTTP/1.1 503',
    '503',
    '404',
    '200',
    '600',
    '2026-07-21',
    'T10:15:02',
    '.113Z',
    '+02:00',
    'Tue, 21 Jul 2026 10:15:02 GMT',
    '0f8fad5b-d9cb-469f-a165-70867728950e',
    'deadbeef',
    '8f14e45fceea167a',
    '10.0.3.17',
    ':5432',
    '2001:db8::1',
    'fe80::',
    'KEPTSTATUS',
    '<n>',
    '\r',
    '\r\n',
  ),
  fc.stringMatching(/^[0-9a-fA-F:.]{1,12}$/),
  fc.string({ maxLength: 8 }),
)
const line = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(''))
const message = fc.oneof(
  fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join('')),
  fc.array(fragment, { maxLength: 200 }).map((parts) => parts.join('')),
  fc.array(line, { maxLength: 8 }).map((lines) => lines.join('\n')),
  fc.string({ maxLength: 300 }),
)

test('normalizing a message gives what it gave before it was made linear, so no error group splits', () => {
  fc.assert(
    fc.property(message, (raw) => {
      assert.equal(normalizeErrorMessage(raw), quadraticNormalization(raw))
    }),
    { numRuns: 2_000 },
  )
})

test('the whole message normalized starts with the text before any cut normalized', () => {
  fc.assert(
    fc.property(message, fc.nat(), (raw, at) => {
      const cut = safeCutOfErrorMessage(raw, at % (raw.length + 1))
      if (cut === undefined) return
      const whole = normalizeWholeErrorMessage(raw)
      const before = normalizeWholeErrorMessage(raw.slice(0, cut))
      assert.equal(whole.slice(0, before.length), before, `cut at ${cut}`)
    }),
    { numRuns: 2_000 },
  )
})

/**
 * Messages long enough to be cut (a fingerprint keeps the first 1,000 characters of the normalized one,
 * and a cut is made in the first quarter of a message): some text, then more of it.
 */
const longMessage = fc
  .tuple(
    fc.oneof(
      fc.array(fragment, { minLength: 300, maxLength: 1500 }).map((parts) => parts.join('')),
      fc.array(line, { minLength: 50, maxLength: 200 }).map((lines) => lines.join('\n')),
      // Cuts a long way apart: long lines without any, or lines naming `STATUS_CODE` early on.
      fc
        .array(fc.tuple(fc.array(fragment, { maxLength: 12 }), fc.nat({ max: 400 })), { maxLength: 12 })
        .map((pieces) =>
          pieces.map(([parts, filler]) => `${parts.join('')}${'x1 '.repeat(filler)}`).join(''),
        ),
    ),
    fc.integer({ min: 1, max: 6 }),
  )
  .map(([text, times]) => text.repeat(times))

test('a long message normalized up to a cut gives the first 1,000 characters of the whole, wherever the cut is looked for', () => {
  fc.assert(
    fc.property(
      longMessage,
      fc.option(fc.nat({ max: 2000 }), { nil: undefined, freq: 10 }),
      (raw, firstCutAt) => {
        assert.equal(normalizeErrorMessage(raw, firstCutAt), quadraticNormalization(raw))
      },
    ),
    // Shrinking messages this long against the old normalization takes minutes: the first failure is shown.
    { numRuns: 400, endOnFailure: true },
  )
})

test('a line naming STATUS_CODE is not cut before its end: a later status code changes what came before', () => {
  const filler = '"x" '.repeat(2_000)
  for (const end of [' got 502', ' got nothing']) {
    const raw = `Assertion failed: STATUS_CODE EQUALS "200", status 404 ${filler}${end}\nnext line 7`
    assert.equal(normalizeErrorMessage(raw, 100), quadraticNormalization(raw), end)
  }
  assert.match(normalizeErrorMessage(`STATUS_CODE status 404 ${filler} got 502`, 100), /status <n>/)
  assert.match(normalizeErrorMessage(`STATUS_CODE status 404 ${filler}`, 100), /status 404/)
})

test('a long message of URLs without a query is normalized (each failed URL start once rescanned the rest)', () => {
  const urls = 'http://'.repeat(150_000)
  const cleaned = normalizeErrorMessage(
    `Redirect loop: ${urls} (last https://shop.test/cart?session=8f14e45f)`,
  )
  assert.equal(cleaned, `Redirect loop: ${urls}`.slice(0, 1000))
})

test('a long line of assertion names that never get a status code is normalized, other status codes kept', () => {
  const cleaned = normalizeErrorMessage(
    `Assertion failed: STATUS_CODE EQUALS "200", status 404 ${'STATUS_CODE got '.repeat(65_000)}`,
  )
  assert.equal(
    cleaned,
    `Assertion failed: STATUS_CODE EQUALS "<n>", status 404 ${'STATUS_CODE got '.repeat(65_000)}`.slice(
      0,
      1000,
    ),
  )
})
