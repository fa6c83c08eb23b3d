import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { InjectOptions } from 'fastify'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { listEmails } from '../status-page-subscribers/status-page-subscribers.repo.ts'

for (const engine of testEngines()) {
  describe(`hosted-form status pages and subscriptions on ${engine.engine}`, () => {
    let t: TestApp
    let serviceId = ''
    const call = (method: InjectOptions['method'], url: string, payload?: object) =>
      t.call({ method, url, payload })
    const ok = async (method: InjectOptions['method'], url: string, payload?: object) => {
      const res = await call(method, url, payload)
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
      return res.statusCode === 204 ? undefined : json(res)
    }
    before(async () => {
      t = await createTestApp(engine)
      serviceId = (await ok('POST', '/v1/status-pages/services', { name: 'API' })).id
    })
    after(() => t.close())

    test('a page made, changed and deleted through /v1 is the page of /v3', async () => {
      const made = await call('POST', '/v1/status-pages', {
        name: 'Acme',
        url: 'acme-hosted',
        version: null,
        cards: [{ name: 'Empty card' }, { name: 'API', services: [{ id: serviceId }] }],
      })
      assert.equal(made.statusCode, 201, made.body)
      const page = json(made)
      assert.equal(page.accountId, t.owner.accountId)
      assert.deepEqual(
        page.cards.map((c: any) => [c.name, c.services.map((s: any) => s.id)]),
        [
          ['Empty card', []],
          ['API', [serviceId]],
        ],
      )
      const v3 = await ok('GET', `/v3/status-pages/${page.id}`)
      assert.equal(v3.name, 'Acme')
      assert.equal(v3.version, 1)

      // A client sends back what it read: the card's statusPageId and the version are taken, and ignored.
      const cards = page.cards.map((c: any) => ({
        id: c.id,
        statusPageId: page.id,
        name: c.name,
        services: c.services,
      }))
      const renamed = await ok('PUT', `/v1/status-pages/${page.id}`, {
        name: 'Acme Inc',
        url: 'acme-hosted',
        version: 1,
        cards: cards.map(({ services, ...c }: any) => ({
          ...c,
          services: services.map((s: any) => ({ id: s.id })),
        })),
      })
      assert.equal(renamed.version, 2)
      assert.deepEqual(
        renamed.cards.map((c: any) => c.id),
        page.cards.map((c: any) => c.id),
      )
      assert.equal((await ok('GET', `/v3/status-pages/${page.id}`)).name, 'Acme Inc')
      const taken = await call('POST', '/v1/status-pages', { name: 'Dup', url: 'acme-hosted', cards: [] })
      assert.equal(taken.statusCode, 409)

      await ok('DELETE', `/v1/status-pages/${page.id}`)
      assert.equal((await call('GET', `/v3/status-pages/${page.id}`)).statusCode, 404)
      assert.equal((await call('DELETE', `/v1/status-pages/${page.id}`)).statusCode, 404)
    })

    test('the list pages by cursor, with each page’s account', async () => {
      for (const url of ['list-a', 'list-b', 'list-c'])
        await ok('POST', '/v1/status-pages', { name: url, url, cards: [] })
      const seen: string[] = []
      let nextId: string | null = null
      do {
        const page: any = await ok('GET', `/v1/status-pages?limit=2${nextId ? `&nextId=${nextId}` : ''}`)
        assert.ok(page.entries.length <= 2)
        assert.equal(page.length, page.entries.length)
        for (const entry of page.entries) assert.equal(entry.accountId, t.owner.accountId)
        seen.push(...page.entries.map((e: any) => e.url))
        nextId = page.nextId
      } while (nextId)
      assert.deepEqual(
        seen.filter((url) => url.startsWith('list-')),
        ['list-a', 'list-b', 'list-c'],
      )
    })

    test('bulk subscriptions: pending with a confirmation email, or verified at once; repeats skipped', async () => {
      const page = await ok('POST', '/v1/status-pages', { name: 'News', url: 'news-hosted', cards: [] })
      const base = `/v1/status-pages/${page.id}/subscriptions`
      const pending = await call('POST', `${base}/bulk`, {
        subscriptions: [
          { type: 'EMAIL', config: 'Ada@Example.com' },
          { type: 'EMAIL', config: 'ada@example.com' },
        ],
      })
      assert.equal(pending.statusCode, 201, pending.body)
      assert.deepEqual(json(pending), { created: 1, skipped: 1, status: 'PENDING' })
      const mails = await listEmails(t.ctx, page.id)
      assert.deepEqual(
        mails.map((m) => [m.to_address, m.subject]),
        [['ada@example.com', 'Confirm your subscription to News']],
      )
      const verified = await ok('POST', `${base}/bulk`, {
        autoVerify: true,
        subscriptions: [
          { type: 'EMAIL', config: 'ada@example.com' },
          { type: 'EMAIL', config: 'bob@example.com' },
        ],
      })
      assert.deepEqual(verified, { created: 1, skipped: 1, status: 'VERIFIED' })
      assert.equal((await listEmails(t.ctx, page.id)).length, 1, 'autoVerify sends no email')
      const listed = await ok('GET', base)
      assert.deepEqual(
        listed.map((s: any) => [s.type, s.address, s.status]),
        [
          ['EMAIL', 'ada@example.com', 'PENDING'],
          ['EMAIL', 'bob@example.com', 'VERIFIED'],
        ],
      )
      // The same subscribers under the seed spec's route.
      const v3 = await ok('GET', `/v3/status-pages/${page.id}/subscribers`)
      assert.deepEqual(
        v3.map((s: any) => [s.email, s.status]),
        [
          ['ada@example.com', 'PENDING'],
          ['bob@example.com', 'CONFIRMED'],
        ],
      )
      const bad = await call('POST', `${base}/bulk`, {
        subscriptions: [
          { type: 'EMAIL', config: 'carol@example.com' },
          { type: 'EMAIL', config: 'not an address' },
        ],
      })
      assert.equal(bad.statusCode, 400)
      assert.match(bad.body, /subscriptions\.1\.config/)
      assert.equal((await ok('GET', base)).length, 2, 'a refused bulk adds nobody')
      assert.equal((await call('POST', `${base}/bulk`, { subscriptions: [] })).statusCode, 400)

      await ok('DELETE', `${base}/${listed[0].id}`)
      assert.deepEqual(
        (await ok('GET', base)).map((s: any) => s.address),
        ['bob@example.com'],
      )
      assert.equal((await call('DELETE', `${base}/${listed[0].id}`)).statusCode, 404)
      assert.equal((await call('GET', '/v1/status-pages/nope/subscriptions')).statusCode, 404)
    })
  })
}
