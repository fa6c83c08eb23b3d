import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { encodedHeaderValue } from './request-headers.ts'

test('encodedHeaderValue: every value goes as its UTF-8 bytes (ASCII as it is)', () => {
  assert.equal(encodedHeaderValue('svc-monitor/0.1'), 'svc-monitor/0.1')
  assert.equal(encodedHeaderValue('café'), 'caf\u00c3\u00a9')
  assert.equal(encodedHeaderValue('5 €'), '5 \u00e2\u0082\u00ac')
  assert.equal(encodedHeaderValue('ok 😀'), 'ok \u00f0\u009f\u0098\u0080')
  // Whatever the characters (lone surrogates too): the value's UTF-8 bytes, one character each.
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (value) => {
      assert.equal(encodedHeaderValue(value), Buffer.from(value, 'utf8').toString('latin1'))
    }),
  )
})
