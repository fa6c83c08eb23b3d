import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cutText, integerOf, numberOf, parsedDetailOf, stringOf } from './result-detail.ts'

test('values of a detail read as absent unless of the expected type', () => {
  assert.deepEqual(
    ['503', 503, 503.5, null, [503], { code: 503 }, true, 1e21, Number.NaN].map((v) =>
      integerOf(v, 100, 999),
    ),
    [undefined, 503, undefined, undefined, undefined, undefined, undefined, undefined, undefined],
  )
  assert.deepEqual(
    [99, 100, 999, 1000].map((v) => integerOf(v, 100, 999)),
    [undefined, 100, 999, undefined],
  )
  assert.deepEqual(
    [-3, 2 ** 53].map((v) => integerOf(v)),
    [-3, undefined],
  )
  assert.deepEqual(['1', 1.5, Number.POSITIVE_INFINITY].map(numberOf), [undefined, 1.5, undefined])
  assert.deepEqual(
    ['OK', 5, { text: 'OK' }, ['OK']].map((v) => stringOf(v)),
    ['OK', undefined, undefined, undefined],
  )
  assert.equal(stringOf('x'.repeat(10), 4), 'xxx…')
})

test('a text is cut to its length with an ellipsis, never in the middle of a surrogate pair', () => {
  assert.equal(cutText('abcdef', 6), 'abcdef')
  assert.equal(cutText('abcdefg', 6), 'abcde…')
  // '😀' is two UTF-16 units: cut after its first, the pair goes whole.
  assert.equal(cutText('abcd😀fg', 6), 'abcd…')
  assert.equal(cutText('abc😀efg', 6), 'abc😀…')
  assert.equal(cutText('abcd😀fg', 6).isWellFormed(), true)
})

test('a detail that is not a JSON object reads as empty', () => {
  for (const detail of ['not json', 'null', '[1]', '"text"', '7', undefined as unknown as string])
    assert.deepEqual(parsedDetailOf({ detail }), {}, String(detail))
  assert.deepEqual(parsedDetailOf(undefined), {})
  assert.deepEqual(parsedDetailOf({ detail: '{"apiCheckResult": null}' }), { apiCheckResult: null })
})
