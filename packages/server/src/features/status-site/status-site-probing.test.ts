import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Clock } from '../../clock.ts'
import * as accounts from '../../features/accounts/accounts.service.ts'
import { createTestApp, json, type Tenant, type TestApp } from '../../testing/test-app.ts'

class FakeClock implements Clock {
  ms = Date.parse('2026-11-29T08:00:00.000Z')
  now = () => new Date(this.ms)
  advance(seconds: number) {
    this.ms += seconds * 1000
  }
}

const HTML = { accept: 'text/html,application/xhtml+xml' }
const FAILED_AUTH = { max: 3, windowSeconds: 60 }
/** Headers that differ between any two responses, whatever they answer. */
const PER_REQUEST_HEADERS = new Set(['x-request-id', 'date'])

/** Status, headers (but the per-request ones) and body bytes: what a prober can compare. */
function observable(res: LightMyRequestResponse) {
  const headers = Object.entries(res.headers)
    .filter(([name]) => !PER_REQUEST_HEADERS.has(name))
    .sort(([a], [b]) => a.localeCompare(b))
  return { status: res.statusCode, headers, body: res.rawPayload.toString('base64') }
}

for (const engine of testEngines()) {
  describe(`probing public status pages on ${engine.engine}`, () => {
    let t: TestApp
    let stranger: Tenant
    let privateToken = ''
    const clock = new FakeClock()
    let nextAddress = 0
    /** A fresh client address, so that one comparison doesn't throttle the next. */
    const freshAddress = () => `10.1.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`
    before(async () => {
      t = await createTestApp(engine, { clock, limits: { failedAuth: FAILED_AUTH } })
      const other = await accounts.createAccount(t.ctx, { name: 'Other' })
      stranger = await t.addUser('OWNER', other.id)
      const page = async (payload: object) => {
        const res = await t.call({ method: 'POST', url: '/v3/status-pages', payload })
        assert.equal(res.statusCode, 201, res.body)
        return json(res)
      }
      const hidden = await page({
        name: 'Hidden',
        url: 'hidden-page',
        isPrivate: true,
        customDomain: 'status.hidden.example',
        cards: [],
      })
      await page({ name: 'Open', url: 'open-page', cards: [] })
      const token = await t.call({
        method: 'POST',
        url: `/v3/status-pages/${hidden.id}/access-tokens`,
        payload: { name: 'ops' },
      })
      privateToken = json(token).token
    })
    after(() => t.close())

    const send = (options: InjectOptions & { remoteAddress?: string }) =>
      t.app.inject({ remoteAddress: freshAddress(), ...options })

    test('a private page and an unknown one answer the same status, headers and bytes, HTML and JSON alike', async () => {
      // Same length slugs: a page that echoed the slug would differ in length only otherwise.
      const slugs = { private: 'hidden-page', unknown: 'nopage-here' }
      const variants: { name: string; request: (slug: string) => InjectOptions }[] = []
      for (const path of ['', '/summary.json', '/feed.rss', '/feed.atom']) {
        for (const [how, headers] of [
          ['plain', {}],
          ['browser', HTML],
          ['non-member key', { authorization: `Bearer ${stranger.key}` }],
          ['unknown key', { authorization: `Bearer svc_${'x'.repeat(43)}` }],
        ] as const) {
          variants.push({
            name: `GET ${path} ${how}`,
            request: (slug) => ({ url: `/status/${slug}${path}`, headers }),
          })
        }
        variants.push({
          name: `GET ${path} wrong token`,
          request: (slug) => ({ url: `/status/${slug}${path}?token=svcsp_wrong`, headers: HTML }),
        })
      }
      for (const [how, headers, payload] of [
        ['JSON', {}, { email: 'probe@example.com' }],
        [
          'form',
          { ...HTML, 'content-type': 'application/x-www-form-urlencoded' },
          'email=probe%40example.com',
        ],
      ] as const) {
        variants.push({
          name: `POST subscribe ${how}`,
          request: (slug) => ({ method: 'POST', url: `/status/${slug}/subscribe`, headers, payload }),
        })
      }
      for (const path of ['/subscribe/confirm', '/unsubscribe']) {
        for (const headers of [{}, HTML]) {
          variants.push({
            name: `GET ${path} ${headers === HTML ? 'browser' : 'plain'}`,
            request: (slug) => ({ url: `/status/${slug}${path}?token=nothing`, headers }),
          })
        }
      }
      for (const variant of variants) {
        const ofPrivate = await send(variant.request(slugs.private))
        const ofUnknown = await send(variant.request(slugs.unknown))
        assert.ok(ofPrivate.statusCode >= 400, `${variant.name}: ${ofPrivate.statusCode}`)
        assert.deepEqual(observable(ofPrivate), observable(ofUnknown), variant.name)
      }
      // On its custom domain too, against a domain of no page.
      for (const headers of [{}, HTML]) {
        const ofPrivate = await send({
          url: '/summary.json',
          headers: { ...headers, host: 'status.hidden.example' },
        })
        const ofUnknown = await send({
          url: '/summary.json',
          headers: { ...headers, host: 'status.nopage.example' },
        })
        assert.equal(ofPrivate.statusCode, 404)
        assert.deepEqual(observable(ofPrivate), observable(ofUnknown))
      }
      // The page itself is there for whoever holds its token.
      assert.equal((await send({ url: `/status/hidden-page?token=${privateToken}` })).statusCode, 200)
    })

    test('tokens presented in vain throttle the address, for private and unknown pages alike', async () => {
      const address = '192.0.2.77'
      const open = (url: string) => t.app.inject({ url, remoteAddress: address })
      assert.equal((await open('/status/hidden-page?token=svcsp_a')).statusCode, 404)
      assert.equal((await open('/status/nopage-here?token=svcsp_b')).statusCode, 404)
      assert.equal((await open('/status/hidden-page/summary.json?token=svcsp_c')).statusCode, 404)
      for (const url of [
        '/status/hidden-page?token=svcsp_d',
        '/status/nopage-here?token=svcsp_e',
        `/status/hidden-page?token=${privateToken}`,
      ]) {
        const res = await open(url)
        assert.equal(res.statusCode, 429, url)
        assert.equal(json(res).attributes.limit, FAILED_AUTH.max)
        assert.equal(res.headers['retry-after'], String(FAILED_AUTH.windowSeconds))
      }
      // Visitors without a token aren't held back, nor other addresses with one.
      assert.equal((await open('/status/open-page/summary.json')).statusCode, 200)
      const other = await t.app.inject({
        url: `/status/hidden-page?token=${privateToken}`,
        remoteAddress: '192.0.2.78',
      })
      assert.equal(other.statusCode, 200)
      clock.advance(FAILED_AUTH.windowSeconds)
      assert.equal((await open(`/status/hidden-page?token=${privateToken}`)).statusCode, 200)
    })

    test('subscribe, confirm and unsubscribe are limited per client address; pings are not', async () => {
      const address = '192.0.2.90'
      const requests: InjectOptions[] = [
        { method: 'POST', url: '/status/open-page/subscribe', payload: { email: 'someone@example.com' } },
        { url: '/status/open-page/subscribe/confirm?token=nothing' },
        { url: '/status/open-page/unsubscribe?token=nothing' },
        { method: 'POST', url: '/status/open-page/unsubscribe?token=nothing' },
      ]
      const statuses = []
      for (let i = 0; i < 20; i++) {
        const res = await t.app.inject({ ...requests[i % requests.length], remoteAddress: address })
        statuses.push(res.statusCode)
      }
      assert.ok(!statuses.includes(429), statuses.join(','))
      for (const request of requests) {
        const limited = await t.app.inject({ ...request, remoteAddress: address })
        assert.equal(limited.statusCode, 429, request.url as string)
        assert.deepEqual(json(limited), {
          statusCode: 429,
          error: 'Too Many Requests',
          message: 'Too many requests from this address: try again in 600 seconds',
          attributes: { limit: 20, windowSeconds: 600, retryAfterSeconds: 600 },
        })
        assert.equal(limited.headers['retry-after'], '600')
      }
      const elsewhere = await t.app.inject({ ...requests[0], remoteAddress: '192.0.2.91' })
      assert.equal(elsewhere.statusCode, 202)
      // Pings answer whatever the burst: an unknown token is a plain 404 every time, never a 429.
      for (let i = 0; i < 40; i++) {
        const ping = await t.app.inject({ url: '/ping/unknown-token', remoteAddress: address })
        assert.equal(ping.statusCode, 404)
      }
    })
  })
}
