import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { REDACTED, Scrubber, scrubHeaders } from './scrub.ts'

const secret = 's3cr3t value/+?'

describe('Scrubber', () => {
  const scrubber = new Scrubber([secret, 'ab'])

  test('plain, URL-encoded, form-encoded, JSON-escaped and base64 forms', () => {
    const forms = [
      secret,
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%20/g, '+'),
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('base64url'),
    ]
    for (const form of forms)
      assert.equal(scrubber.text(`before ${form} after`), `before ${REDACTED} after`, form)
  })

  test('a secret with quotes and backslashes, JSON-escaped once and twice (JSON logged into JSON)', () => {
    const quoted = new Scrubber(['pa"ss\\word'])
    const once = JSON.stringify({ p: 'pa"ss\\word' })
    const twice = JSON.stringify({ text: once })
    assert.equal(quoted.text(once), `{"p":"${REDACTED}"}`)
    assert.equal(quoted.text(twice), JSON.stringify({ text: `{"p":"${REDACTED}"}` }))
  })

  test('base64 of a longer value holding the secret, at every alignment', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'user:']) {
      const encoded = Buffer.from(`${prefix}${secret}!`).toString('base64')
      assert.ok(scrubber.text(encoded).includes(REDACTED), prefix)
      assert.ok(!scrubber.text(encoded).includes(Buffer.from(secret).toString('base64').slice(4, 12)), prefix)
    }
  })

  test('a secret in a URL host is caught as the URL parser writes it (lowercased, punycode)', () => {
    const hostScrubber = new Scrubber(['AbCdEfSecret9', 'Sécret-Höst'])
    for (const host of ['AbCdEfSecret9.invalid', 'Sécret-Höst.invalid']) {
      const { href, hostname } = new URL(`http://${host}/path`)
      const message = `getaddrinfo ENOTFOUND ${hostname}`
      assert.equal(hostScrubber.text(href).includes(hostname.split('.')[0] as string), false, href)
      assert.equal(hostScrubber.text(message), `getaddrinfo ENOTFOUND ${REDACTED}.invalid`, message)
    }
  })

  test('values too short to scrub safely are left alone; bytes and deep values are scrubbed', () => {
    assert.equal(scrubber.text('ab abc'), 'ab abc')
    assert.equal(scrubber.bytes(Buffer.from(`x${secret}y${secret}`)).toString(), `x${REDACTED}y${REDACTED}`)
    assert.deepEqual(scrubber.deep({ a: [`${secret}`, 2, null], b: { c: `x${secret}` } }), {
      a: [REDACTED, 2, null],
      b: { c: `x${REDACTED}` },
    })
    assert.deepEqual(new Scrubber(['name', '":"']).deep({ name: 'my name', n: '":"' }), {
      name: `my ${REDACTED}`,
      n: REDACTED,
    })
  })

  test('authorization and cookie headers are always redacted', () => {
    assert.deepEqual(
      scrubHeaders(
        { Authorization: 'Bearer x', cookie: 'a=b', 'set-cookie': 'c=d', 'x-v': `v ${secret}` },
        scrubber,
      ),
      { Authorization: REDACTED, cookie: REDACTED, 'set-cookie': REDACTED, 'x-v': `v ${REDACTED}` },
    )
  })
})
