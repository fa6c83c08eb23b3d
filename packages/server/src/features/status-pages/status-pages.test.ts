import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { DEFAULT_THEME_COLORS, THEME_COLOR_NAMES } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type Tenant, type TestApp } from '../../testing/test-app.ts'
import * as accounts from '../accounts/accounts.service.ts'

const palette = (color: string) => Object.fromEntries(THEME_COLOR_NAMES.map((name) => [name, color]))

for (const engine of testEngines()) {
  describe(`status pages and services on ${engine.engine}`, () => {
    let t: TestApp
    let stranger: Tenant
    const nowMs = Date.parse('2026-11-22T10:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      const other = await accounts.createAccount(t.ctx, { name: 'Other' })
      stranger = await t.addUser('OWNER', other.id)
    })
    after(() => t.close())

    const createCheck = async (name: string) =>
      json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name, activated: false, request: { url: 'http://127.0.0.1:9/' } },
        }),
      )
    const createService = async (payload: object, as?: Tenant) => {
      const res = await t.call({ method: 'POST', url: '/v1/status-pages/services', payload, as })
      // 200, as the hosted API answers a new service.
      assert.equal(res.statusCode, 200, res.body)
      return json(res)
    }
    const createPage = (payload: object, as?: Tenant) =>
      t.call({ method: 'POST', url: '/v3/status-pages', payload, as })

    test('services: create, read, list, replace, link checks, delete', async () => {
      const check = await createCheck('homepage')
      const service = await createService({ name: 'Website', description: 'the site', checkIds: [check.id] })
      assert.match(service.id, /^[0-9a-f-]{36}$/)
      assert.deepEqual(service, {
        id: service.id,
        name: 'Website',
        description: 'the site',
        accountId: t.owner.accountId,
        checkIds: [check.id],
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:00.000Z',
      })
      assert.deepEqual(
        json(await t.call({ method: 'GET', url: `/v1/status-pages/services/${service.id}` })),
        service,
      )

      const unknown = await t.call({
        method: 'POST',
        url: '/v1/status-pages/services',
        payload: { name: 'x', checkIds: [check.id, '00000000-0000-4000-8000-000000000000'] },
      })
      assert.equal(unknown.statusCode, 400)
      assert.equal(json(unknown).attributes.errors[0].path, 'body.checkIds.1')
      const strangerCheck = await t.call({
        method: 'POST',
        url: '/v1/status-pages/services',
        payload: { name: 'x', checkIds: [check.id] },
        as: stranger,
      })
      assert.equal(strangerCheck.statusCode, 400, 'a check of another account is unknown')
      for (const payload of [
        {},
        { name: '' },
        { name: 'x'.repeat(256) },
        { name: 'x', foo: 1 },
        { name: 'x', checkIds: ['nope'] },
      ]) {
        assert.equal(
          (await t.call({ method: 'POST', url: '/v1/status-pages/services', payload })).statusCode,
          400,
        )
      }

      const replaced = json(
        await t.call({
          method: 'PUT',
          url: `/v1/status-pages/services/${service.id}`,
          payload: { name: 'Web' },
        }),
      )
      assert.equal(replaced.name, 'Web')
      assert.equal(replaced.description, null)
      assert.deepEqual(replaced.checkIds, [])

      // Paged by cursor, as the hosted API pages services.
      await createService({ name: 'Second' })
      const first = json(await t.call({ method: 'GET', url: '/v1/status-pages/services?limit=1' }))
      assert.equal(first.length, 1)
      assert.equal(first.entries.length, 1)
      assert.equal(typeof first.nextId, 'string')
      const url = `/v1/status-pages/services?limit=100&nextId=${first.nextId}`
      const rest = json(await t.call({ method: 'GET', url }))
      assert.equal(rest.nextId, null)
      const all = json(await t.call({ method: 'GET', url: '/v1/status-pages/services?paginated=false' }))
      assert.deepEqual(
        all.entries.map((s: { id: string }) => s.id),
        [...first.entries, ...rest.entries].map((s: { id: string }) => s.id),
      )
      const forged = await t.call({ method: 'GET', url: '/v1/status-pages/services?nextId=not-ours' })
      assert.equal(forged.statusCode, 400)
      assert.equal(json(forged).attributes.errors[0].path, 'querystring.nextId')

      assert.equal(
        (await t.call({ method: 'GET', url: `/v1/status-pages/services/${service.id}`, as: stranger }))
          .statusCode,
        404,
      )
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/status-pages/services/${service.id}` })).statusCode,
        204,
      )
      assert.equal(
        (await t.call({ method: 'GET', url: `/v1/status-pages/services/${service.id}` })).statusCode,
        404,
      )
    })

    test('a deleted check leaves the services it was linked to', async () => {
      const check = await createCheck('api')
      const service = await createService({ name: 'API', checkIds: [check.id] })
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })).statusCode, 204)
      assert.deepEqual(
        json(await t.call({ method: 'GET', url: `/v1/status-pages/services/${service.id}` })).checkIds,
        [],
      )
    })

    test('a service named by a check’s triggerIncident cannot be deleted (409) until the check lets go', async () => {
      const service = await createService({ name: 'Checkout' })
      const trigger = {
        serviceId: service.id,
        severity: 'MAJOR',
        name: 'Checkout is down',
        description: 'We are looking into it.',
        notifySubscribers: false,
      }
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/url',
        payload: {
          name: 'checkout',
          activated: false,
          request: { url: 'http://127.0.0.1:9/' },
          triggerIncident: trigger,
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const check = json(created)
      const refused = await t.call({ method: 'DELETE', url: `/v1/status-pages/services/${service.id}` })
      assert.equal(refused.statusCode, 409, refused.body)
      assert.deepEqual(json(refused), {
        statusCode: 409,
        error: 'Conflict',
        message: `Service ${service.id} is named by the triggerIncident of 1 check(s): change or remove it there first`,
      })
      // The check keeps working: an unrelated change of it is accepted.
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { name: 'checkout 2' },
      })
      assert.equal(renamed.statusCode, 200, renamed.body)

      const released = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { triggerIncident: null },
      })
      assert.equal(released.statusCode, 200, released.body)
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/status-pages/services/${service.id}` })).statusCode,
        204,
      )
    })

    test('pages: every field, defaults, cards of services, v3 read and list', async () => {
      const api = await createService({ name: 'API' })
      const web = await createService({ name: 'Web' })
      const res = await createPage({
        name: 'Acme status',
        url: 'acme',
        cards: [
          { name: 'Core', services: [{ id: api.id }, { id: web.id }] },
          { name: 'Empty', services: [] },
        ],
      })
      assert.equal(res.statusCode, 201, res.body)
      const page = json(res)
      assert.deepEqual(
        { ...page, id: undefined, cards: undefined },
        {
          id: undefined,
          name: 'Acme status',
          url: 'acme',
          description: null,
          customDomain: null,
          themeColors: DEFAULT_THEME_COLORS,
          logo: null,
          logoDark: null,
          redirectTo: null,
          favicon: null,
          defaultTheme: 'AUTO',
          version: 1,
          whiteLabel: false,
          isPrivate: false,
          publicUrl: 'http://svc.test/status/acme',
          cards: undefined,
          created_at: '2026-11-22T10:00:00.000Z',
          updated_at: '2026-11-22T10:00:00.000Z',
        },
      )
      assert.deepEqual(
        page.cards.map((c: any) => [c.name, c.services.map((s: any) => s.name)]),
        [
          ['Core', ['API', 'Web']],
          ['Empty', []],
        ],
      )
      assert.deepEqual(page.cards[0].services[0], api)
      assert.deepEqual(json(await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}` })), page)
      const list = await t.call({ method: 'GET', url: '/v3/status-pages' })
      assert.ok(json(list).some((p: any) => p.id === page.id))
      assert.equal(
        (await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}`, as: stranger })).statusCode,
        404,
      )
      assert.equal(json(await t.call({ method: 'GET', url: '/v3/status-pages', as: stranger })).length, 0)

      const full = {
        name: 'Full',
        url: 'full-page-1',
        description: 'All of it',
        customDomain: 'Status.Example.COM',
        logo: 'https://cdn.example.com/logo.png',
        logoDark: 'https://cdn.example.com/logo-dark.png',
        favicon: 'https://cdn.example.com/favicon.ico',
        redirectTo: 'https://example.com',
        defaultTheme: 'DARK',
        themeColors: { light: palette('#ffffff'), dark: palette('rgb(10, 20, 30)') },
        isPrivate: true,
        whiteLabel: true,
        cards: [{ name: 'All', services: [{ id: web.id }] }],
      }
      const created = json(await createPage(full))
      assert.equal(created.customDomain, 'status.example.com')
      for (const field of [
        'description',
        'logo',
        'logoDark',
        'favicon',
        'redirectTo',
        'defaultTheme',
        'themeColors',
        'isPrivate',
        'whiteLabel',
      ] as const) {
        assert.deepEqual(created[field], full[field], field)
      }
    })

    test('url and customDomain are unique across accounts and validated; colours are checked', async () => {
      const first = json(
        await createPage({ name: 'One', url: 'taken', customDomain: 'status.one.io', cards: [] }),
      )
      const slugTaken = await createPage({ name: 'Two', url: 'taken', cards: [] }, stranger)
      assert.equal(slugTaken.statusCode, 409)
      // The field is named in errors too, so the dashboard's form shows the 409 beside it.
      assert.deepEqual(json(slugTaken), {
        statusCode: 409,
        error: 'Conflict',
        message: 'body.url taken is taken by another status page',
        attributes: { errors: [{ path: 'body.url', message: 'taken is taken by another status page' }] },
      })
      const domainTaken = await createPage(
        { name: 'Two', url: 'two', customDomain: 'STATUS.one.io.', cards: [] },
        stranger,
      )
      assert.equal(domainTaken.statusCode, 409)
      assert.equal(
        json(domainTaken).message,
        'body.customDomain status.one.io is used by another status page',
      )

      const bad = async (payload: object, path: string) => {
        const res = await createPage({ name: 'Bad', url: 'bad', cards: [], ...payload })
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload).slice(0, 80)}: ${res.body}`)
        assert.equal(json(res).attributes.errors[0].path, path)
      }
      for (const customDomain of [
        'localhost',
        'https://status.example.com',
        'status.example.com/path',
        'status.example.com:8080',
        '-bad.example.com',
        'exa mple.com',
        '10.0.0.1',
        'svc.test',
        `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.com`,
      ]) {
        await bad({ customDomain }, 'body.customDomain')
      }
      await bad({ customDomain: `${'a.'.repeat(250)}com` }, 'body.customDomain')
      await bad({ url: 'Not A Slug' }, 'body.url')
      await bad({ url: '-x' }, 'body.url')
      await bad({ logo: 'javascript:alert(1)' }, 'body.logo')
      await bad({ defaultTheme: 'SEPIA' }, 'body.defaultTheme')
      const missing = palette('#fff')
      delete missing.borderColor
      await bad(
        { themeColors: { light: missing, dark: palette('#000') } },
        'body.themeColors.light.borderColor',
      )
      await bad({ themeColors: { light: palette('#fff') } }, 'body.themeColors.dark')
      await bad(
        { themeColors: { light: palette('red;}body{x:y'), dark: palette('#000') } },
        'body.themeColors.light.bodyBackgroundColor',
      )
      await bad(
        { cards: [{ name: 'c', services: [{ id: '00000000-0000-4000-8000-000000000000' }] }] },
        'body.cards.0.services.0.id',
      )
      const service = await createService({ name: 'dup' })
      await bad(
        { cards: [{ name: 'c', services: [{ id: service.id }, { id: service.id }] }] },
        'body.cards.0.services.1.id',
      )
      const foreign = await createService({ name: 'foreign' }, stranger)
      await bad({ cards: [{ name: 'c', services: [{ id: foreign.id }] }] }, 'body.cards.0.services.0.id')
      await bad({ cards: [{ id: first.id, name: 'c', services: [] }] }, 'body.cards.0.id')
      await bad({ surprise: true }, 'body.surprise')
      await bad({ cards: undefined }, 'body.cards')

      const ok500 = `${'a'.repeat(63)}.example.com`
      assert.equal(
        (await createPage({ name: 'ok', url: 'ok-domain', customDomain: ok500, cards: [] })).statusCode,
        201,
      )
      const tooLong = await createPage({
        name: 'x',
        url: 'too-long',
        customDomain: 'a'.repeat(501),
        cards: [],
      })
      assert.equal(json(tooLong).message, 'body.customDomain must NOT have more than 500 characters')
    })

    test('PUT replaces settings and cards, keeps named cards, bumps version; a shown service cannot be deleted', async () => {
      const a = await createService({ name: 'A' })
      const b = await createService({ name: 'B' })
      const page = json(
        await createPage({ name: 'P', url: 'put-page', cards: [{ name: 'One', services: [{ id: a.id }] }] }),
      )
      const cardId = page.cards[0].id
      const res = await t.call({
        method: 'PUT',
        url: `/v3/status-pages/${page.id}`,
        payload: {
          name: 'P2',
          url: 'put-page-2',
          customDomain: 'status.put.dev',
          cards: [
            { name: 'New', services: [{ id: b.id }] },
            { id: cardId, name: 'One', services: [{ id: a.id }, { id: b.id }] },
          ],
        },
      })
      assert.equal(res.statusCode, 200, res.body)
      const updated = json(res)
      assert.equal(updated.version, 2)
      assert.equal(updated.name, 'P2')
      assert.equal(updated.url, 'put-page-2')
      assert.equal(updated.cards[1].id, cardId)
      assert.notEqual(updated.cards[0].id, cardId)
      assert.deepEqual(
        updated.cards[1].services.map((s: any) => s.name),
        ['A', 'B'],
      )

      const conflict = await t.call({ method: 'DELETE', url: `/v1/status-pages/services/${a.id}` })
      assert.equal(conflict.statusCode, 409)
      await t.call({
        method: 'PUT',
        url: `/v3/status-pages/${page.id}`,
        payload: { name: 'P2', url: 'put-page-2', cards: [] },
      })
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/status-pages/services/${a.id}` })).statusCode,
        204,
      )
      assert.equal(
        (
          await t.call({
            method: 'PUT',
            url: `/v3/status-pages/${page.id}`,
            as: stranger,
            payload: { name: 'x', url: 'x', cards: [] },
          })
        ).statusCode,
        404,
      )
      assert.equal((await t.call({ method: 'DELETE', url: `/v3/status-pages/${page.id}` })).statusCode, 204)
      assert.equal((await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}` })).statusCode, 404)
    })

    test('the deprecated v1 form is the spec’s shape exactly, with deprecation headers', async () => {
      const service = await createService({ name: 'Search', checkIds: [] })
      const page = json(
        await createPage({
          name: 'V1',
          url: 'v1-page',
          description: 'Old clients',
          cards: [{ name: 'Card', services: [{ id: service.id }] }],
        }),
      )
      const res = await t.call({ method: 'GET', url: `/v1/status-pages/${page.id}` })
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers.deprecation, 'true')
      assert.match(
        String(res.headers.sunset),
        /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
      )
      assert.equal(res.headers.link, `</v3/status-pages/${page.id}>; rel="successor-version"`)
      const v1 = json(res)
      assert.deepEqual(Object.keys(v1).sort(), [
        'cards',
        'customDomain',
        'defaultTheme',
        'description',
        'favicon',
        'id',
        'isPrivate',
        'logo',
        'logoDark',
        'name',
        'projectBindings',
        'redirectTo',
        'themeColors',
        'url',
        'version',
        'whiteLabel',
      ])
      assert.deepEqual(v1.projectBindings, { owner: null, references: [] })
      assert.equal(v1.version, 1)
      assert.deepEqual(Object.keys(v1.themeColors.light), [...THEME_COLOR_NAMES])
      assert.deepEqual(v1.cards, [
        {
          id: page.cards[0].id,
          name: 'Card',
          created_at: page.cards[0].created_at,
          updated_at: page.cards[0].updated_at,
          services: [
            {
              name: 'Search',
              id: service.id,
              accountId: t.owner.accountId,
              created_at: service.created_at,
              updated_at: service.updated_at,
            },
          ],
        },
      ])
      assert.equal(
        (await t.call({ method: 'GET', url: `/v1/status-pages/${page.id}`, as: stranger })).statusCode,
        404,
      )
      assert.equal(
        (await t.call({ method: 'GET', url: `/v1/status-pages/${page.id}`, as: null })).statusCode,
        401,
      )
    })

    test('access tokens: created once with the raw token, listed masked, revoked', async () => {
      const page = json(await createPage({ name: 'Private', url: 'tokens-page', isPrivate: true, cards: [] }))
      const created = await t.call({
        method: 'POST',
        url: `/v3/status-pages/${page.id}/access-tokens`,
        payload: { name: 'partners' },
      })
      assert.equal(created.statusCode, 201)
      const token = json(created)
      assert.match(token.token, /^svcsp_[A-Za-z0-9_-]{43}$/)
      assert.equal(token.maskedToken, `svcsp_********${token.token.slice(-4)}`)
      const list = json(await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}/access-tokens` }))
      assert.deepEqual(list, [
        { id: token.id, name: 'partners', maskedToken: token.maskedToken, created_at: token.created_at },
      ])
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v3/status-pages/${page.id}/access-tokens/${token.id}` }))
          .statusCode,
        204,
      )
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v3/status-pages/${page.id}/access-tokens/${token.id}` }))
          .statusCode,
        404,
      )
      const readOnly = await t.addUser('READ_ONLY')
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: `/v3/status-pages/${page.id}/access-tokens`,
            payload: { name: 'x' },
            as: readOnly,
          })
        ).statusCode,
        403,
      )
    })

    test('an access token created while its page is deleted: 404, no token left behind', async () => {
      const page = json(
        await createPage({
          name: 'Going',
          url: 'going-tokens',
          isPrivate: true,
          cards: [{ name: 'All', services: [] }],
        }),
      )
      // The page's deletion has locked it and waits where it deletes what names it; then the token.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('status_page_cards'), [
        () => t.call({ method: 'DELETE', url: `/v3/status-pages/${page.id}` }),
        () =>
          t.call({
            method: 'POST',
            url: `/v3/status-pages/${page.id}/access-tokens`,
            payload: { name: 'ci' },
          }),
      ])
      assert.deepEqual(
        answers.map((res) => [res.statusCode, res.body && json(res).message]),
        [
          [204, ''],
          [404, `Status page ${page.id} not found`],
        ],
      )
      const tokens = await t.store.db
        .selectFrom('status_page_access_tokens')
        .select('id')
        .where('status_page_id', '=', page.id)
        .execute()
      assert.deepEqual(tokens, [])
    })

    test('access tokens are listed a page at a time with content-range', async () => {
      const page = json(await createPage({ name: 'Paged', url: 'tokens-paged', isPrivate: true, cards: [] }))
      const names = ['one', 'two', 'three']
      for (const name of names) {
        const res = await t.call({
          method: 'POST',
          url: `/v3/status-pages/${page.id}/access-tokens`,
          payload: { name },
        })
        assert.equal(res.statusCode, 201)
      }
      const url = `/v3/status-pages/${page.id}/access-tokens`
      const all = await t.call({ method: 'GET', url: `${url}?limit=100` })
      const listed = json(all).map((token: { name: string }) => token.name)
      assert.deepEqual([...listed].sort(), [...names].sort())
      assert.equal(all.headers['content-range'], 'items 0-2/3')
      const first = await t.call({ method: 'GET', url: `${url}?limit=2` })
      assert.equal(first.statusCode, 200)
      assert.deepEqual(
        json(first).map((token: { name: string }) => token.name),
        listed.slice(0, 2),
      )
      assert.equal(first.headers['content-range'], 'items 0-1/3')
      const second = await t.call({ method: 'GET', url: `${url}?limit=2&page=2` })
      assert.deepEqual(
        json(second).map((token: { name: string }) => token.name),
        listed.slice(2),
      )
      assert.equal(second.headers['content-range'], 'items 2-2/3')
      const beyond = await t.call({ method: 'GET', url: `${url}?page=5` })
      assert.deepEqual(json(beyond), [])
      assert.equal(beyond.headers['content-range'], 'items */3')
      const bad = await t.call({ method: 'GET', url: `${url}?limit=101` })
      assert.equal(bad.statusCode, 400)
      assert.match(json(bad).message, /^querystring\.limit /)
    })
  })
}
