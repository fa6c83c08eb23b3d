import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createScrubber, SCRUBBED, scrubDeep } from './scrub.ts'

test('a secret is scrubbed as written, URL-encoded and form-encoded', () => {
  const scrub = createScrubber(['p@ss word/1'])
  assert.equal(scrub('pw=p@ss word/1;'), `pw=${SCRUBBED};`)
  assert.equal(scrub('?pw=p%40ss%20word%2F1&x=1'), `?pw=${SCRUBBED}&x=1`)
  assert.equal(scrub('pw=p%40ss+word%2F1'), `pw=${SCRUBBED}`)
})

test('a secret inside a longer base64 string is found at every byte alignment', () => {
  const secret = 'hunter2-is-secret'
  const scrub = createScrubber([secret])
  for (const prefix of ['', 'a', 'ab', 'user:', 'us:']) {
    for (const suffix of ['', 'x', 'xy', 'xyz']) {
      const encoded = Buffer.from(`${prefix}${secret}${suffix}`).toString('base64')
      const scrubbed = scrub(`Basic ${encoded}`)
      assert.notEqual(scrubbed, `Basic ${encoded}`, `${prefix}|${suffix}`)
      assert.ok(scrubbed.includes(SCRUBBED))
      // What is left can't be decoded back to the secret.
      assert.ok(!Buffer.from(scrubbed.slice(6), 'base64').toString().includes(secret))
    }
  }
  const urlSafe = Buffer.from(`??>${secret}`).toString('base64url')
  assert.ok(createScrubber([`??>${secret}`])(urlSafe).includes(SCRUBBED))
})

test('short values are left alone; scrubDeep walks objects, arrays and keys', () => {
  assert.equal(createScrubber(['abc'])('abc'), 'abc')
  const scrub = createScrubber(['topsecret'])
  assert.deepEqual(
    scrubDeep(
      { url: 'https://x/?k=topsecret', headers: { topsecret: ['a topsecret b'] }, status: 200 },
      scrub,
    ),
    { url: `https://x/?k=${SCRUBBED}`, headers: { [SCRUBBED]: [`a ${SCRUBBED} b`] }, status: 200 },
  )
})
