import assert from 'node:assert/strict'
import { test } from 'node:test'
import { evaluateAssertion } from './assertion-evaluation.ts'
import type { Assertion } from './assertions.ts'

const body = {
  status: 'ok',
  count: 3,
  items: [
    { id: 7, name: 'a' },
    { id: 8, name: 'b' },
  ],
  flag: true,
  empty: [],
  none: null,
}
const check = (a: Partial<Assertion> & Pick<Assertion, 'comparison'>, value: unknown = body) =>
  evaluateAssertion({ source: 'JSON_BODY', property: '', target: '', ...a }, value)

test('JSONPath selects values; numbers compare as numbers, JSON values by their text', () => {
  assert.equal(check({ property: '$.status', comparison: 'EQUALS', target: 'ok' }).passed, true)
  assert.equal(check({ property: '$.count', comparison: 'EQUALS', target: '3.0' }).passed, true)
  assert.equal(check({ property: '$.count', comparison: 'GREATER_THAN', target: '2' }).passed, true)
  assert.equal(check({ property: '$.count', comparison: 'LESS_THAN', target: '10' }).passed, true)
  assert.equal(check({ property: '$.flag', comparison: 'EQUALS', target: 'true' }).passed, true)
  assert.equal(check({ property: '$.items[1].id', comparison: 'EQUALS', target: '8' }).actual, 8)
  assert.deepEqual(check({ property: '$.items[*].name', comparison: 'CONTAINS', target: 'b' }).actual, [
    'a',
    'b',
  ])
  assert.equal(check({ property: '$.missing', comparison: 'EQUALS', target: '' }).passed, false)
  assert.equal(check({ property: '$.status', comparison: 'NOT_EQUALS', target: 'down' }).passed, true)
})

test('keys, values, emptiness and nulls', () => {
  assert.equal(check({ comparison: 'HAS_KEY', target: 'items' }).passed, true)
  assert.equal(check({ comparison: 'NOT_HAS_KEY', target: 'nope' }).passed, true)
  assert.equal(check({ property: '$.items[0]', comparison: 'HAS_VALUE', target: 'a' }).passed, true)
  assert.equal(check({ property: '$.items[0]', comparison: 'NOT_HAS_VALUE', target: 'z' }).passed, true)
  assert.equal(check({ property: '$.empty', comparison: 'IS_EMPTY' }).passed, true)
  assert.equal(check({ property: '$.items', comparison: 'NOT_EMPTY' }).passed, true)
  assert.equal(check({ property: '$.none', comparison: 'IS_NULL' }).passed, true)
  assert.equal(check({ property: '$.status', comparison: 'NOT_NULL' }).passed, true)
})

test('text, regex extraction, headers, and errors that fail instead of throwing', () => {
  const text = 'version=1.42 build=2026'
  assert.equal(check({ comparison: 'CONTAINS', target: 'build' }, text).passed, true)
  assert.equal(check({ comparison: 'NOT_CONTAINS', target: 'beta' }, text).passed, true)
  assert.equal(check({ comparison: 'MATCHES_REGEX', target: '^version=\\d' }, text).passed, true)
  const extracted = check({ regex: 'version=([\\d.]+)', comparison: 'GREATER_THAN', target: '1.4' }, text)
  assert.deepEqual([extracted.actual, extracted.passed], ['1.42', true])
  const header = evaluateAssertion(
    { source: 'HEADERS', property: 'Content-Type', comparison: 'CONTAINS', target: 'json' },
    { 'content-type': 'application/json; charset=utf-8' },
  )
  assert.equal(header.passed, true)
  assert.equal(
    evaluateAssertion({ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }, 200).passed,
    true,
  )
  const badRegex = check({ comparison: 'MATCHES_REGEX', target: '(' }, text)
  assert.equal(badRegex.passed, false)
  assert.match(badRegex.error ?? '', /Invalid regular expression/)
})

test('GREATER_THAN and LESS_THAN fail on a missing value, null, or a number against a non-number', () => {
  const passed = (a: Partial<Assertion> & Pick<Assertion, 'comparison'>, value: unknown = body) =>
    check(a, value).passed
  // A missing field is not "less than 500": the API that dropped `latency` must fail the check.
  assert.equal(passed({ property: '$.missing', comparison: 'LESS_THAN', target: '500' }), false)
  assert.equal(passed({ property: '$.missing', comparison: 'GREATER_THAN', target: '' }), false)
  assert.equal(passed({ property: '$.none', comparison: 'GREATER_THAN', target: '5' }), false)
  assert.equal(passed({ property: '$.none', comparison: 'LESS_THAN', target: '5' }), false)
  // `[7,8]`, `"ok"` and `true` are not numbers: neither above nor below 5.
  assert.equal(passed({ property: '$.items[*].id', comparison: 'GREATER_THAN', target: '5' }), false)
  assert.equal(passed({ property: '$.status', comparison: 'GREATER_THAN', target: '5' }), false)
  assert.equal(passed({ property: '$.flag', comparison: 'LESS_THAN', target: '5' }), false)
  assert.equal(passed({ property: '$.count', comparison: 'LESS_THAN', target: 'abc' }), false)
  // LATENCY of a run without replies reads from `{}`.
  assert.equal(passed({ property: 'avg', comparison: 'LESS_THAN', target: '100' }, {}), false)
  // Numbers still compare as numbers, and two texts by their text (ISO dates).
  assert.equal(passed({ property: '$.count', comparison: 'GREATER_THAN', target: '2.5' }), true)
  assert.equal(passed({ comparison: 'LESS_THAN', target: '2026-01-01' }, '2025-12-31T23:00:00Z'), true)
  assert.equal(passed({ comparison: 'GREATER_THAN', target: '2026-01-01' }, '2025-12-31T23:00:00Z'), false)
})

test('a JSONPath on a JSON null, number, string or boolean body selects it or nothing, never an error', () => {
  const nullBody = check({ property: '$', comparison: 'IS_NULL' }, null)
  assert.deepEqual([nullBody.passed, nullBody.error], [true, undefined])
  const missing = check({ property: '$.a', comparison: 'IS_NULL' }, null)
  assert.deepEqual([missing.passed, missing.error], [true, undefined])
  assert.deepEqual(check({ property: '$.a', comparison: 'NOT_NULL' }, 0).passed, false)
  const zero = check({ property: '$', comparison: 'EQUALS', target: '0' }, 0)
  assert.deepEqual([zero.actual, zero.passed, zero.error], [0, true, undefined])
  assert.equal(check({ property: '$', comparison: 'EQUALS', target: 'false' }, false).passed, true)
  assert.equal(check({ property: '$', comparison: 'EQUALS', target: '' }, '').passed, true)
})

test('an actual value over 64 KiB of JSON text is kept as the start of its text, marked cut', () => {
  const huge = { items: Array.from({ length: 20_000 }, (_, id) => ({ id, name: `item ${id}` })) }
  const whole = check({ property: '$', comparison: 'NOT_EMPTY' }, huge)
  assert.equal(whole.passed, true, 'compared on the whole value')
  assert.equal(typeof whole.actual, 'string')
  assert.equal((whole.actual as string).length, 64 * 1024 + 1)
  assert.ok((whole.actual as string).startsWith('{"items":[{"id":0,"name":"item 0"}'))
  assert.ok((whole.actual as string).endsWith('…'))
  const text = check({ comparison: 'CONTAINS', target: 'end' }, `${'x'.repeat(100_000)}end`)
  assert.deepEqual([text.passed, (text.actual as string).length], [true, 64 * 1024 + 1])
  // Values under the limit stay as they are.
  assert.deepEqual(check({ property: '$.items[0:2].id', comparison: 'NOT_EMPTY' }, huge).actual, [0, 1])
})

test('numbers written as text compare exactly, in decimal only: long ids and hex digests stay apart', () => {
  const passed = (a: Partial<Assertion> & Pick<Assertion, 'comparison'>, value: unknown) =>
    check(a, value).passed
  // A snowflake id in a JSON string or a text body is text of a decimal: one digit off is another id.
  const id = { id: '1234567890123456789' }
  assert.equal(passed({ property: '$.id', comparison: 'EQUALS', target: '1234567890123456788' }, id), false)
  assert.equal(
    passed({ property: '$.id', comparison: 'NOT_EQUALS', target: '1234567890123456788' }, id),
    true,
  )
  assert.equal(
    passed({ property: '$.id', comparison: 'GREATER_THAN', target: '1234567890123456788' }, id),
    true,
  )
  assert.equal(passed({ property: '$.id', comparison: 'LESS_THAN', target: '1234567890123456790' }, id), true)
  assert.equal(passed({ comparison: 'EQUALS', target: '9007199254740993' }, '9007199254740992\n'), false)
  // Hexadecimal, octal and binary are no decimal numbers: `0x10` is not 16, and two digests that a double
  // can't tell apart are still two texts.
  assert.equal(passed({ comparison: 'EQUALS', target: '16' }, '0x10'), false)
  assert.equal(passed({ comparison: 'EQUALS', target: '5' }, '0b101'), false)
  const digest = '0x52908400098527886E0F7030069857D2E4169EE7'
  assert.equal(passed({ comparison: 'EQUALS', target: `${digest.slice(0, -1)}8` }, digest), false)
  // Decimal numbers still compare by value, however written.
  assert.equal(passed({ comparison: 'EQUALS', target: '1000' }, '1e3'), true)
  assert.equal(passed({ comparison: 'EQUALS', target: '-0.50' }, '-.5'), true)
  assert.equal(passed({ comparison: 'EQUALS', target: '0' }, '-0.0'), true)
  assert.equal(passed({ comparison: 'GREATER_THAN', target: '-2' }, '-1.99'), true)
  assert.equal(passed({ comparison: 'LESS_THAN', target: '1e2' }, '99.999'), true)
  assert.equal(passed({ comparison: 'GREATER_THAN', target: '0.1' }, '0.10000000000000001'), true)
  // A JSON number is the double its text parses to, compared as one.
  assert.equal(passed({ comparison: 'EQUALS', target: '0.1' }, 0.1), true)
  assert.equal(passed({ comparison: 'LESS_THAN', target: '0.30000000000000004' }, 0.3), true)
})
