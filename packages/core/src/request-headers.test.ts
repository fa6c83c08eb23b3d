import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { encodedHeaderValue } from './request-headers.ts'

test('encodedHeaderValue: Latin-1 text goes as it is; text with any character beyond it as its UTF-8 bytes', () => {
  assert.equal(encodedHeaderValue('svc-monitor/0.1'), 'svc-monitor/0.1')
  assert.equal(encodedHeaderValue('café ÿ'), 'café ÿ')
  assert.equal(encodedHeaderValue('5 €'), '5 \u00e2\u0082\u00ac')
  assert.equal(encodedHeaderValue('ok 😀'), 'ok \u00f0\u009f\u0098\u0080')
  // Whatever the characters (lone surrogates too): UTF-8 bytes exactly when one is above 0xff.
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (value) => {
      const beyond = [...value].some((char) => (char.codePointAt(0) ?? 0) > 0xff)
      assert.equal(encodedHeaderValue(value), beyond ? Buffer.from(value, 'utf8').toString('latin1') : value)
    }),
  )
})
