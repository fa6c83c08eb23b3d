import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type Tenant, type TestApp } from '../../testing/test-app.ts'
import * as accounts from '../accounts/accounts.service.ts'
import { pruneResults } from '../retention/retention.service.ts'
import { RENDER_TTL_MS, ROW_RECHECK_MS } from './page-cache.ts'
import { buildPageView } from './page-view.ts'
import { rewriteCustomDomainUrl } from './status-site.routes.ts'

const T0 = Date.parse('2026-11-22T12:00:00.000Z')
const HTML = { accept: 'text/html,application/xhtml+xml' }

for (const engine of testEngines()) {
  describe(`public status pages on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = T0
    let stranger: Tenant
    let base = ''
    const health = new Map<string, number>()
    const target = createServer((request, response) => {
      response.statusCode = health.get(request.url ?? '') ?? 200
      response.end('ok')
    })
    before(async () => {
      base = (await listenOnLoopback(target)).url
      t = await createTestApp(engine, {
        clock: { now: () => new Date(nowMs) },
        // Every request comes from one address here; status-site-probing.test.ts tests the limit.
        limits: { statusForms: { max: 10_000, windowSeconds: 600 } },
      })
      const other = await accounts.createAccount(t.ctx, { name: 'Other' })
      stranger = await t.addUser('OWNER', other.id)
    })
    after(async () => {
      target.close()
      await t.close()
    })

    const open = (url: string, headers: Record<string, string> = {}) =>
      t.call({ method: 'GET', url, as: null, headers })
    const summary = async (slug: string) => {
      const res = await open(`/status/${slug}/summary.json`)
      assert.equal(res.statusCode, 200, res.body)
      return json(res)
    }
    const later = (ms: number) => {
      nowMs += ms
    }
    const check = async (name: string, path: string) =>
      json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          // Activated: a deactivated check does not report on pages (the test app runs no scheduler).
          payload: { name, activated: true, request: { url: `${base}${path}` } },
        }),
      )
    const run = (checkId: string) => t.call({ method: 'POST', url: `/v1/checks/${checkId}/trigger` })
    const service = async (name: string, checkIds: string[] = []) =>
      json(await t.call({ method: 'POST', url: '/v1/status-pages/services', payload: { name, checkIds } }))
    const page = async (payload: object) => {
      const res = await t.call({ method: 'POST', url: '/v3/status-pages', payload })
      assert.equal(res.statusCode, 201, res.body)
      return json(res)
    }

    test('the page shows overall status, cards, services, incidents; escapes everything; leaks nothing', async () => {
      const probe = await check('secret-probe-name', '/up')
      const api = await service('API <script>alert(1)</script>', [probe.id])
      const created = await page({
        name: 'Acme & Co',
        url: 'acme-public',
        description: 'Status of "Acme"',
        logo: 'https://cdn.example.com/logo.png',
        logoDark: 'https://cdn.example.com/logo-dark.png',
        cards: [{ name: 'Core <b>services</b>', services: [{ id: api.id }] }],
      })
      await run(probe.id)
      const incident = json(
        await t.call({
          method: 'POST',
          url: `/v3/status-pages/${created.id}/incidents`,
          payload: {
            name: 'Slow <img src=x onerror=alert(1)>',
            componentImpacts: [{ componentId: api.id, status: 'DEGRADED_PERFORMANCE' }],
            incidentUpdates: [{ description: 'Looking into it\nsecond line', status: 'INVESTIGATING' }],
          },
        }),
      )
      const res = await open('/status/acme-public', HTML)
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8')
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'; style-src 'sha256-/)
      const html = res.body
      assert.match(html, /<html lang="en">/)
      assert.match(html, /<title>Acme &amp; Co<\/title>/)
      assert.match(html, /Degraded performance<\/h2>/, 'overall status')
      assert.match(html, /<h2 id="card-0">Core &lt;b&gt;services&lt;\/b&gt;<\/h2>/)
      assert.match(html, /API &lt;script&gt;alert\(1\)&lt;\/script&gt;/)
      assert.match(html, /Ongoing incidents/)
      assert.match(html, /Slow &lt;img src=x onerror=alert\(1\)&gt;/)
      assert.match(html, /Looking into it\nsecond line/)
      assert.match(
        html,
        /<source srcset="https:\/\/cdn.example.com\/logo-dark.png" media="\(prefers-color-scheme: dark\)">/,
      )
      assert.match(html, /@media \(prefers-color-scheme:dark\)/, 'AUTO follows the system theme')
      assert.match(
        html,
        /role="img" aria-label="API &lt;script&gt;alert\(1\)&lt;\/script&gt;: 100% uptime over the last 90 days"/,
      )
      assert.equal(html.match(/<i class="[a-z]" title="/g)?.length, 90)
      assert.match(html, /Powered by svc/)
      assert.doesNotMatch(html, /<script/i)
      assert.equal(html.includes(`id="incident-${incident.id}"`), true)

      const feeds = await Promise.all(
        ['', '/summary.json', '/feed.rss', '/feed.atom'].map((p) => open(`/status/acme-public${p}`)),
      )
      for (const body of feeds.map((r) => r.body)) {
        for (const secret of [t.owner.accountId, probe.id, 'secret-probe-name', base]) {
          assert.equal(body.includes(secret), false, `leaks ${secret}`)
        }
      }
      assert.equal(feeds[2]?.headers['content-type'], 'application/rss+xml; charset=utf-8')
      assert.match(
        feeds[2]?.body ?? '',
        /<item><title>Slow &lt;img src=x onerror=alert\(1\)&gt; \(Investigating\)<\/title>/,
      )
      assert.equal(feeds[3]?.headers['content-type'], 'application/atom+xml; charset=utf-8')
      assert.match(feeds[3]?.body ?? '', new RegExp(`<entry><id>urn:uuid:${incident.id}</id>`))
      const data = json(feeds[1] as any)
      assert.deepEqual(data.status, {
        indicator: 'DEGRADED_PERFORMANCE',
        description: 'Degraded performance',
      })
      assert.equal(data.page.url, 'http://svc.test/status/acme-public')
      assert.equal(data.ongoingIncidents[0].updates[0].description, 'Looking into it\nsecond line')
      assert.deepEqual(
        data.ongoingIncidents[0].components.map((c: any) => [c.name, c.status]),
        [['API <script>alert(1)</script>', 'DEGRADED_PERFORMANCE']],
      )

      const notFound = await open('/status/nope', HTML)
      assert.equal(notFound.statusCode, 404)
      assert.match(notFound.body, /Page not found/)
      assert.deepEqual(json(await open('/status/nope/summary.json')), {
        statusCode: 404,
        error: 'Not Found',
        message: 'Status page not found',
      })
    })

    test('control characters pasted into names and updates leave the feeds well-formed XML', async () => {
      // A terminal's colour escape (ESC) or a stray vertical tab is legal JSON but no XML 1.0 character:
      // one of them would make every feed reader reject the whole feed.
      const api = await service('API\u0007 gateway')
      const created = await page({
        name: 'Acme\u0001 status',
        url: 'acme-control',
        cards: [{ name: 'Core', services: [{ id: api.id }] }],
      })
      await t.call({
        method: 'POST',
        url: `/v3/status-pages/${created.id}/incidents`,
        payload: {
          name: 'Errors \u001b[31mred\u001b[0m',
          componentImpacts: [{ componentId: api.id, status: 'MAJOR_OUTAGE' }],
          incidentUpdates: [
            { description: 'line\u000bnext\ttab\nnewline \uFFFE end', status: 'INVESTIGATING' },
          ],
        },
      })
      const notXmlChar = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u
      for (const path of ['/feed.rss', '/feed.atom', '']) {
        const res = await open(`/status/acme-control${path}`)
        assert.equal(res.statusCode, 200)
        assert.equal(
          notXmlChar.exec(res.body)?.[0],
          undefined,
          `${path || 'html'} holds no control character`,
        )
        assert.match(res.body, /Errors \uFFFD\[31mred\uFFFD\[0m/)
        assert.match(res.body, /line\uFFFDnext\ttab\nnewline \uFFFD end/)
        assert.match(res.body, /API\uFFFD gateway/)
      }
      // The JSON keeps the text as posted: JSON can carry any character.
      const data = await summary('acme-control')
      assert.equal(data.ongoingIncidents[0].name, 'Errors \u001b[31mred\u001b[0m')
    })

    test('services follow their checks unless an ongoing incident sets them; uptime bars count results', async () => {
      const a = await check('a', '/a')
      const b = await check('b', '/b')
      const both = await service('Both', [a.id, b.id])
      const none = await service('No checks')
      const created = await page({
        name: 'Follow',
        url: 'follow',
        cards: [{ name: 'c', services: [{ id: both.id }, { id: none.id }] }],
      })
      const statusOf = async () => {
        const data = await summary('follow')
        return Object.fromEntries(data.cards[0].services.map((s: any) => [s.name, s.status]))
      }
      assert.deepEqual(await statusOf(), { Both: 'OPERATIONAL', 'No checks': 'OPERATIONAL' })

      await run(a.id)
      await run(b.id)
      health.set('/b', 500)
      later(1000)
      await run(b.id)
      later(RENDER_TTL_MS)
      assert.deepEqual(await statusOf(), { Both: 'PARTIAL_OUTAGE', 'No checks': 'OPERATIONAL' })
      health.set('/a', 503)
      later(1000)
      await run(a.id)
      later(RENDER_TTL_MS)
      assert.equal((await statusOf()).Both, 'MAJOR_OUTAGE')
      assert.equal((await summary('follow')).status.indicator, 'MAJOR_OUTAGE')

      const incident = json(
        await t.call({
          method: 'POST',
          url: `/v3/status-pages/${created.id}/incidents`,
          payload: {
            name: 'Maintenance',
            componentImpacts: [{ componentId: both.id, status: 'UNDER_MAINTENANCE' }],
            incidentUpdates: [{ description: 'Planned work', status: 'IDENTIFIED' }],
          },
        }),
      )
      assert.equal((await statusOf()).Both, 'UNDER_MAINTENANCE', 'the incident overrides the checks at once')
      await t.call({
        method: 'POST',
        url: `/v1/incidents/${incident.id}/updates`,
        payload: { description: 'Done', status: 'RESOLVED' },
      })
      assert.equal((await statusOf()).Both, 'MAJOR_OUTAGE', 'a resolved incident no longer overrides')
      const { resolvedAt } = json(
        await t.call({ method: 'GET', url: `/v3/status-pages/${created.id}/incidents/${incident.id}` }),
      )
      assert.deepEqual(
        (await summary('follow')).pastIncidents[0].components.map((c: any) => [c.status, c.endedAt]),
        [['UNDER_MAINTENANCE', resolvedAt]],
        'its impacts ended with it',
      )

      const days = (await summary('follow')).cards[0].services[0].days
      assert.equal(days.length, 90)
      assert.deepEqual(days.at(-1), { date: '2026-11-22', uptime: 50 }, '2 of 4 runs passed today')
      assert.equal(days[0].uptime, null)
      assert.equal((await summary('follow')).cards[0].services[0].uptime, 50)
      health.clear()
    })

    test('a deactivated check no longer sets its service’s status', async () => {
      const a = await check('on', '/deact-a')
      const b = await check('off', '/deact-b')
      const both = await service('Deact both', [a.id, b.id])
      const alone = await service('Deact alone', [b.id])
      await page({
        name: 'Deact',
        url: 'deact',
        cards: [{ name: 'c', services: [{ id: both.id }, { id: alone.id }] }],
      })
      const statusOf = async () => {
        const data = await summary('deact')
        return Object.fromEntries(data.cards[0].services.map((s: any) => [s.name, s.status]))
      }
      health.set('/deact-b', 500)
      await run(a.id)
      await run(b.id)
      later(RENDER_TTL_MS)
      assert.deepEqual(await statusOf(), { 'Deact both': 'PARTIAL_OUTAGE', 'Deact alone': 'MAJOR_OUTAGE' })

      const off = await t.call({ method: 'PUT', url: `/v1/checks/${b.id}`, payload: { activated: false } })
      assert.equal(off.statusCode, 200, off.body)
      later(RENDER_TTL_MS)
      assert.deepEqual(
        await statusOf(),
        { 'Deact both': 'OPERATIONAL', 'Deact alone': 'OPERATIONAL' },
        'the deactivated check reports nothing; the other one still does',
      )
      const data = await summary('deact')
      assert.equal(data.cards[0].services[1].uptime, 0, 'its past runs stay in the uptime history')

      // The same for an activated check of a deactivated group.
      health.set('/deact-a', 500)
      await run(a.id)
      later(RENDER_TTL_MS)
      assert.equal((await statusOf())['Deact both'], 'MAJOR_OUTAGE')
      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: { name: 'Paused', activated: false },
        }),
      )
      const moved = await t.call({ method: 'PUT', url: `/v1/checks/${a.id}`, payload: { groupId: group.id } })
      assert.equal(moved.statusCode, 200, moved.body)
      later(RENDER_TTL_MS)
      assert.equal((await statusOf())['Deact both'], 'OPERATIONAL')
      health.clear()
    })

    test('an active maintenance window covering all of a service’s checks shows it under maintenance', async () => {
      const db = await check('db', '/mw-db')
      const web = await check('web', '/mw-web')
      for (const [id, tags] of [
        [db.id, ['database']],
        [web.id, ['web']],
      ] as const) {
        const res = await t.call({ method: 'PUT', url: `/v1/checks/${id}`, payload: { tags } })
        assert.equal(res.statusCode, 200, res.body)
      }
      const database = await service('MW database', [db.id])
      const site = await service('MW site', [db.id, web.id])
      const noChecks = await service('MW none')
      await page({
        name: 'Maint',
        url: 'maint',
        cards: [{ name: 'c', services: [{ id: database.id }, { id: site.id }, { id: noChecks.id }] }],
      })
      health.set('/mw-db', 500)
      await run(db.id)
      await run(web.id)
      const statusOf = async () => {
        const data = await summary('maint')
        return Object.fromEntries(data.cards[0].services.map((s: any) => [s.name, s.status]))
      }
      later(RENDER_TTL_MS)
      assert.deepEqual(await statusOf(), {
        'MW database': 'MAJOR_OUTAGE',
        'MW site': 'PARTIAL_OUTAGE',
        'MW none': 'OPERATIONAL',
      })

      const start = nowMs + 60_000
      const created = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'Internal: DB upgrade',
          tags: ['database'],
          startsAt: new Date(start).toISOString(),
          endsAt: new Date(start + 3_600_000).toISOString(),
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      later(RENDER_TTL_MS)
      assert.equal((await statusOf())['MW database'], 'MAJOR_OUTAGE', 'an upcoming window changes nothing')

      nowMs = start + RENDER_TTL_MS
      const data = await summary('maint')
      assert.deepEqual(
        await statusOf(),
        {
          'MW database': 'UNDER_MAINTENANCE',
          'MW site': 'UNDER_MAINTENANCE',
          'MW none': 'OPERATIONAL',
        },
        'a check in maintenance reports no failure; its services are under maintenance',
      )
      assert.equal(data.cards[0].services[0].statusText, 'Under maintenance')
      assert.deepEqual(data.status, {
        indicator: 'UNDER_MAINTENANCE',
        description: 'Maintenance in progress',
      })
      const html = (await open('/status/maint', HTML)).body
      assert.match(html, /Maintenance in progress<\/h2>/)
      assert.match(html, /MW database<\/h3><span class="status lv-maintenance">/)
      assert.equal(html.includes('DB upgrade'), false, 'the window itself stays internal')

      health.set('/mw-web', 500)
      await run(web.id)
      later(RENDER_TTL_MS)
      assert.equal(
        (await statusOf())['MW site'],
        'MAJOR_OUTAGE',
        'a failure of a check not in maintenance is worse',
      )
      const deactivated = await t.call({
        method: 'PUT',
        url: `/v1/checks/${web.id}`,
        payload: { activated: false },
      })
      assert.equal(deactivated.statusCode, 200, deactivated.body)
      later(RENDER_TTL_MS)
      assert.equal((await statusOf())['MW site'], 'UNDER_MAINTENANCE')

      nowMs = start + 3_600_000
      later(RENDER_TTL_MS)
      assert.equal((await statusOf())['MW database'], 'MAJOR_OUTAGE', 'the window is over')
      health.clear()
    })

    test('an old ongoing incident stays on the page however many incidents started since', async () => {
      const api = await service('Busy API')
      const created = await page({
        name: 'Busy',
        url: 'busy',
        cards: [{ name: 'c', services: [{ id: api.id }] }],
      })
      const incidents = `/v3/status-pages/${created.id}/incidents`
      const long = await t.call({
        method: 'POST',
        url: incidents,
        payload: {
          name: 'EU region slow',
          componentImpacts: [{ componentId: api.id, status: 'DEGRADED_PERFORMANCE' }],
          incidentUpdates: [
            {
              description: 'Watching it',
              status: 'MONITORING',
              publicIncidentUpdateDate: new Date(T0 - 30 * 86_400_000).toISOString(),
            },
          ],
        },
      })
      assert.equal(long.statusCode, 201, long.body)
      // A flapping check's triggerIncident opens and resolves many short incidents.
      for (let i = 1; i <= 100; i++) {
        const res = await t.call({
          method: 'POST',
          url: incidents,
          payload: {
            name: `Blip ${i}`,
            incidentUpdates: [
              {
                description: 'Gone again',
                status: 'RESOLVED',
                publicIncidentUpdateDate: new Date(T0 - (100 - i) * 60_000).toISOString(),
              },
            ],
          },
        })
        assert.equal(res.statusCode, 201, res.body)
      }
      const data = await summary('busy')
      assert.equal(data.cards[0].services[0].status, 'DEGRADED_PERFORMANCE')
      assert.deepEqual(
        data.ongoingIncidents.map((i: any) => i.name),
        ['EU region slow'],
        'the incident that degrades the service is shown with it',
      )
      assert.equal(data.pastIncidents[0].name, 'Blip 100')
      const html = (await open('/status/busy', HTML)).body
      assert.match(html, /Ongoing incidents<\/h2><article[^>]*><h3[^>]*>EU region slow</)
    })

    test('an incident that started before the 90 days and ended within them colours its days and is listed', async () => {
      const api = await service('Old API')
      const created = await page({
        name: 'Long ago',
        url: 'long-ago',
        cards: [{ name: 'c', services: [{ id: api.id }] }],
      })
      const daysAgo = (n: number) => new Date(nowMs - n * 86_400_000).toISOString()
      const incident = json(
        await t.call({
          method: 'POST',
          url: `/v3/status-pages/${created.id}/incidents`,
          payload: {
            name: 'Long outage',
            componentImpacts: [{ componentId: api.id, status: 'MAJOR_OUTAGE' }],
            incidentUpdates: [
              { description: 'Down', status: 'INVESTIGATING', publicIncidentUpdateDate: daysAgo(95) },
              { description: 'Back', status: 'RESOLVED', publicIncidentUpdateDate: daysAgo(85) },
            ],
          },
        }),
      )
      assert.equal(incident.lastUpdateStatus, 'RESOLVED')
      const data = await summary('long-ago')
      assert.deepEqual(
        data.pastIncidents.map((i: any) => i.name),
        ['Long outage'],
      )
      const html = (await open('/status/long-ago', HTML)).body
      // Days 89 to 85 ago are inside the 90 days and were declared down.
      assert.equal(html.match(/<i class="x" title="[^"]*, major outage">/g)?.length, 5)
    })

    test('If-None-Match compares weakly and takes a list, as a proxy that weakens ETags sends it', async () => {
      await page({ name: 'Weak', url: 'weak', cards: [] })
      const etag = String((await open('/status/weak')).headers.etag)
      const status = async (ifNoneMatch: string) =>
        (await open('/status/weak', { 'if-none-match': ifNoneMatch })).statusCode
      assert.equal(await status(`W/${etag}`), 304)
      assert.equal(await status(`"other", ${etag}`), 304)
      assert.equal(await status(`"other",W/${etag}`), 304)
      assert.equal(await status('*'), 304)
      assert.equal(await status('"other"'), 200)
      assert.equal(await status(`W/"other", ${etag.slice(0, -1)}x"`), 200)
    })

    test('API changes show at once; an unchanged page answers 304 to its ETag', async () => {
      const s = await service('Cached')
      const created = await page({
        name: 'Cache',
        url: 'cache',
        cards: [{ name: 'c', services: [{ id: s.id }] }],
      })
      const first = await open('/status/cache')
      const etag = String(first.headers.etag)
      assert.equal((await open('/status/cache', { 'if-none-match': etag })).statusCode, 304)
      const gzipped = await open('/status/cache', { 'accept-encoding': 'br, gzip' })
      assert.equal(gzipped.headers['content-encoding'], 'gzip')
      assert.equal(gunzipSync(gzipped.rawPayload).toString('utf8'), first.body)
      assert.notEqual(gzipped.headers.etag, etag)
      assert.equal(
        (await open('/status/cache', { 'if-none-match': etag, 'accept-encoding': 'gzip' })).statusCode,
        200,
      )
      const incident = json(
        await t.call({
          method: 'POST',
          url: `/v3/status-pages/${created.id}/incidents`,
          payload: {
            name: 'Fresh incident',
            incidentUpdates: [{ description: 'one', status: 'INVESTIGATING' }],
          },
        }),
      )
      const second = await open('/status/cache')
      assert.match(second.body, /Fresh incident/)
      assert.notEqual(second.headers.etag, etag)
      await t.call({
        method: 'POST',
        url: `/v1/incidents/${incident.id}/updates`,
        payload: { description: 'second update', status: 'MONITORING' },
      })
      assert.match((await open('/status/cache')).body, /second update/)
      await t.call({
        method: 'PUT',
        url: `/v1/status-pages/services/${s.id}`,
        payload: { name: 'Renamed service' },
      })
      assert.match((await open('/status/cache')).body, /Renamed service/)
      await t.call({
        method: 'PUT',
        url: `/v3/status-pages/${created.id}`,
        payload: { name: 'Cache 2', url: 'cache-2', cards: [] },
      })
      assert.equal((await open('/status/cache')).statusCode, 404)
      assert.match((await open('/status/cache-2')).body, /Cache 2/)
      await t.call({ method: 'DELETE', url: `/v3/status-pages/${created.id}` })
      assert.equal((await open('/status/cache-2')).statusCode, 404)
    })

    test('another node’s change shows once the cached row is a second old', async () => {
      const created = await page({ name: 'Nodes', url: 'nodes', cards: [] })
      assert.match((await open('/status/nodes')).body, /<h1>Nodes<\/h1>/)
      // Written straight to the store, as another server process would.
      await t.store.db
        .updateTable('status_pages')
        .set({ name: 'Elsewhere', content_version: 99 })
        .where('id', '=', created.id)
        .execute()
      assert.match((await open('/status/nodes')).body, /<h1>Nodes<\/h1>/)
      later(ROW_RECHECK_MS)
      assert.match((await open('/status/nodes')).body, /<h1>Elsewhere<\/h1>/)
    })

    test('themes: LIGHT and DARK pick one palette and logo; colours land in the CSS; white label hides the footer', async () => {
      const palette = (color: string) =>
        Object.fromEntries(
          [
            'bodyBackgroundColor',
            'headerBackgroundColor',
            'headerFontColor',
            'titleFontColor',
            'bodyFontColor',
            'bodyFontColorMuted',
            'navigationFontColor',
            'linkFontColor',
            'cardBackgroundColor',
            'borderColor',
            'primaryButtonBackgroundColor',
            'primaryButtonFontColor',
          ].map((n) => [n, color]),
        )
      await page({
        name: 'Dark',
        url: 'dark-only',
        defaultTheme: 'DARK',
        whiteLabel: true,
        logo: 'https://cdn.example.com/light.png',
        logoDark: 'https://cdn.example.com/dark.png',
        favicon: 'https://cdn.example.com/favicon.png',
        themeColors: { light: palette('#fafafa'), dark: palette('#101010') },
        cards: [],
      })
      const dark = (await open('/status/dark-only')).body
      assert.match(dark, /:root\{color-scheme:dark;--body-bg:#101010;/)
      assert.doesNotMatch(dark, /#fafafa|prefers-color-scheme:dark/)
      assert.match(dark, /<img src="https:\/\/cdn.example.com\/dark.png" alt="Dark logo">/)
      assert.match(dark, /<link rel="icon" href="https:\/\/cdn.example.com\/favicon.png">/)
      assert.doesNotMatch(dark, /Powered by svc/)
      await page({
        name: 'Light',
        url: 'light-only',
        defaultTheme: 'LIGHT',
        themeColors: { light: palette('#fafafa'), dark: palette('#101010') },
        cards: [],
      })
      const light = (await open('/status/light-only')).body
      assert.match(light, /:root\{color-scheme:light;--body-bg:#fafafa;/)
      assert.doesNotMatch(light, /#101010/)
      assert.match(light, /<link rel="icon" href="data:,">/)
    })

    test('private pages need an access token (query, cookie, bearer) or a member’s API key; else they are unknown', async () => {
      const created = await page({ name: 'Internal', url: 'internal', isPrivate: true, cards: [] })
      const token = json(
        await t.call({
          method: 'POST',
          url: `/v3/status-pages/${created.id}/access-tokens`,
          payload: { name: 'ops' },
        }),
      ).token
      const refused = await open('/status/internal', HTML)
      assert.equal(refused.statusCode, 404)
      assert.doesNotMatch(refused.body, /Internal/)
      for (const path of ['/summary.json', '/feed.rss', '/feed.atom']) {
        const res = await open(`/status/internal${path}`)
        assert.equal(res.statusCode, 404, path)
        assert.deepEqual(json(res), { statusCode: 404, error: 'Not Found', message: 'Status page not found' })
      }
      assert.equal((await open('/status/internal?token=svcsp_wrong')).statusCode, 404)
      const viaQuery = await open(`/status/internal?token=${token}`)
      assert.equal(viaQuery.statusCode, 200)
      assert.equal(viaQuery.headers['cache-control'], 'private, no-store')
      const cookie = String(viaQuery.headers['set-cookie'])
      assert.match(
        cookie,
        new RegExp(
          `^svc_status_${created.id}=${token}; Path=/status/internal; Max-Age=\\d+; HttpOnly; SameSite=Lax$`,
        ),
      )
      assert.equal(
        (await open('/status/internal/feed.rss', { cookie: cookie.split(';')[0] as string })).statusCode,
        200,
      )
      assert.equal(
        (await open('/status/internal/summary.json', { authorization: `Bearer ${token}` })).statusCode,
        200,
      )
      assert.equal(
        (await open('/status/internal', { authorization: `Bearer ${t.owner.key}` })).statusCode,
        200,
      )
      const reader = await t.addUser('READ_ONLY')
      assert.equal(
        (await open('/status/internal', { authorization: `Bearer ${reader.key}` })).statusCode,
        200,
      )
      // A live key of a non-member, and a key that is no key, learn no more than about an unknown page.
      const foreign = await open('/status/internal/summary.json', { authorization: `Bearer ${stranger.key}` })
      assert.equal(foreign.statusCode, 404)
      const unknown = await open('/status/internal/summary.json', {
        authorization: `Bearer svc_${'x'.repeat(43)}`,
      })
      assert.equal(unknown.statusCode, 404, unknown.body)
      assert.deepEqual(json(unknown), {
        statusCode: 404,
        error: 'Not Found',
        message: 'Status page not found',
      })
      const revoked = json(await t.call({ method: 'POST', url: '/v1/api-keys', payload: { name: 'gone' } }))
      assert.equal(
        (await open('/status/internal', { authorization: `Bearer ${revoked.key}` })).statusCode,
        200,
      )
      await t.call({ method: 'DELETE', url: `/v1/api-keys/${revoked.id}` })
      assert.equal(
        (await open('/status/internal', { authorization: `Bearer ${revoked.key}` })).statusCode,
        404,
        'a revoked API key is refused as unknown',
      )
      const tokens = json(
        await t.call({ method: 'GET', url: `/v3/status-pages/${created.id}/access-tokens` }),
      )
      await t.call({ method: 'DELETE', url: `/v3/status-pages/${created.id}/access-tokens/${tokens[0].id}` })
      assert.equal(
        (await open(`/status/internal?token=${token}`)).statusCode,
        404,
        'a revoked token is refused',
      )
    })

    test('a custom domain serves the page at its root, with its feeds and JSON', async () => {
      await page({ name: 'Custom', url: 'custom', customDomain: 'status.custom.dev', cards: [] })
      const home = await open('/', { host: 'status.custom.dev' })
      assert.equal(home.statusCode, 200)
      assert.match(home.body, /<h1>Custom<\/h1>/)
      assert.match(home.body, /href="\/feed.rss"/)
      assert.match(home.body, /action="\/subscribe"/)
      const data = json(await open('/summary.json', { host: 'STATUS.custom.dev:8443' }))
      assert.equal(data.page.url, 'http://status.custom.dev')
      const rss = await open('/feed.rss', { host: 'status.custom.dev', 'x-forwarded-proto': 'https' })
      assert.match(rss.body, /<link>https:\/\/status.custom.dev<\/link>/)
      assert.equal((await open('/summary.json', { host: 'unknown.example.com' })).statusCode, 404)
      // The root of a host of no page is svc's own: the dashboard (or the page saying it isn't built).
      const root = await open('/', { host: 'unknown.example.com' })
      assert.ok([200, 503].includes(root.statusCode), `dashboard root: ${root.statusCode}`)
      assert.doesNotMatch(root.body, /feed\.rss/)
      assert.equal(
        (await open('/v1/accounts/me', { host: 'status.custom.dev' })).statusCode,
        401,
        'the API is unchanged',
      )
      assert.equal(
        rewriteCustomDomainUrl({ url: '/subscribe/confirm?token=x' }),
        '/status/_domain/subscribe/confirm?token=x',
      )
      assert.equal(rewriteCustomDomainUrl({ url: '/v1/checks' }), '/v1/checks')
    })

    test('a browser gets an HTML page for a refused request on the public site; other clients the error shape', async () => {
      await page({ name: 'Refusals', url: 'refusals', cards: [] })
      const form = (payload: string, headers: Record<string, string> = {}) =>
        t.call({
          method: 'POST',
          url: '/status/refusals/subscribe',
          as: null,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...HTML, ...headers },
          payload,
        })
      const cases = [
        ['an empty address', await form('email=')],
        ['no address', await form('')],
        ['an unknown field', await form('email=a%40example.com&name=x')],
        ['an unsupported form encoding', await form('email=a@example.com', { 'content-type': 'text/plain' })],
        ['a repeated token', await open('/status/refusals?token=a&token=b', HTML)],
        ['a too long token', await open(`/status/refusals/unsubscribe?token=${'x'.repeat(300)}`, HTML)],
      ] as const
      for (const [what, res] of cases) {
        assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${what}: ${res.statusCode}`)
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', what)
        assert.match(res.body, /^<!doctype html>/, what)
        assert.match(String(res.headers['content-security-policy']), /default-src 'none'/, what)
        assert.doesNotMatch(res.body, /<script/i, what)
      }
      // A visitor reads what to do, not the validator's words (clients of the JSON form still get those).
      for (const [what, res] of [cases[0], cases[1]]) {
        assert.match(res.body, /<p>Enter the email address to send updates to\.<\/p>/, what)
        assert.doesNotMatch(res.body, /body\.email/, what)
      }
      const machine = await t.call({
        method: 'POST',
        url: '/status/refusals/subscribe',
        as: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=',
      })
      assert.equal(machine.statusCode, 400)
      assert.equal(json(machine).message, 'body.email must NOT have fewer than 1 characters')
    })

    test('a custom domain shows its own page only, never another page by its slug', async () => {
      await page({ name: 'Owned', url: 'owned', customDomain: 'status.owned.dev', cards: [] })
      await page({ name: 'Intruder', url: 'intruder', description: 'Log in at evil.example', cards: [] })
      for (const path of ['/status/intruder', '/status/intruder/summary.json', '/status/intruder/feed.rss']) {
        const res = await open(path, { host: 'status.owned.dev' })
        assert.equal(res.statusCode, 404, `${path} on the custom domain`)
        assert.equal(res.body.includes('Intruder'), false)
      }
      const subscribe = await t.call({
        method: 'POST',
        url: '/status/intruder/subscribe',
        as: null,
        headers: { host: 'status.owned.dev' },
        payload: { email: 'a@example.com' },
      })
      assert.equal(subscribe.statusCode, 404)
      assert.equal((await open('/status/intruder', { host: 'svc.test' })).statusCode, 200, 'svc’s own host')
      assert.equal((await open('/status/intruder')).statusCode, 200, 'a host that is no custom domain')
      const own = await open('/status/owned', { host: 'status.owned.dev' })
      assert.equal(own.statusCode, 200)
      assert.match(own.body, /<h1>Owned<\/h1>/)
    })

    // These move the clock by days: they come last.
    const viewOf = async (slug: string) =>
      buildPageView(
        t.ctx,
        await t.ctx.db
          .selectFrom('status_pages')
          .selectAll()
          .where('url', '=', slug)
          .executeTakeFirstOrThrow(),
      )
    const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

    test('failed runs during a maintenance window are not downtime: the day shows maintenance', async () => {
      const probe = await check('mw-history', '/mwh')
      const tagged = await t.call({
        method: 'PUT',
        url: `/v1/checks/${probe.id}`,
        payload: { tags: ['mwh'] },
      })
      assert.equal(tagged.statusCode, 200, tagged.body)
      const svc = await service('MWH service', [probe.id])
      await page({ name: 'MWH', url: 'mwh', cards: [{ name: 'c', services: [{ id: svc.id }] }] })
      await run(probe.id)
      const start = nowMs + 60_000
      const created = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'Upgrade',
          tags: ['mwh'],
          startsAt: new Date(start).toISOString(),
          endsAt: new Date(start + 3_600_000).toISOString(),
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      nowMs = start + 1000
      health.set('/mwh', 500)
      await run(probe.id)
      await run(probe.id)
      nowMs = start + 3_600_000 + 1000
      const service0 = (await viewOf('mwh')).cards[0]?.services[0]
      assert.deepEqual(
        service0?.days.at(-1),
        { date: dayOf(nowMs), uptime: 100, level: 'maintenance', declared: null },
        'the 2 failed runs during the window count neither up nor down',
      )
      assert.equal(service0?.uptime, 100)
      await run(probe.id)
      const after = (await viewOf('mwh')).cards[0]?.services[0]
      assert.deepEqual(after?.days.at(-1), { date: dayOf(nowMs), uptime: 50, level: 'major', declared: null })
      health.clear()
    })

    test('an open impact downgraded later keeps the worst status it declared on each day', async () => {
      const svc = await service('Downgraded')
      const created = await page({
        name: 'Downgrade',
        url: 'downgrade',
        cards: [{ name: 'c', services: [{ id: svc.id }] }],
      })
      const first = nowMs
      const incident = json(
        await t.call({
          method: 'POST',
          url: `/v3/status-pages/${created.id}/incidents`,
          payload: {
            name: 'Outage',
            componentImpacts: [{ componentId: svc.id, status: 'MAJOR_OUTAGE' }],
            incidentUpdates: [{ description: 'Down', status: 'INVESTIGATING' }],
          },
        }),
      )
      nowMs = first + 86_400_000
      const downgraded = await t.call({
        method: 'PUT',
        url: `/v3/status-pages/${created.id}/incidents/${incident.id}`,
        payload: {
          name: 'Outage',
          componentImpacts: [{ componentId: svc.id, status: 'DEGRADED_PERFORMANCE' }],
        },
      })
      assert.equal(downgraded.statusCode, 200, downgraded.body)
      nowMs = first + 2 * 86_400_000
      const days = (await viewOf('downgrade')).cards[0]?.services[0]?.days ?? []
      assert.deepEqual(
        days.slice(-4).map((d) => [d.date, d.declared, d.level]),
        [
          [dayOf(first - 86_400_000), null, 'none'],
          [dayOf(first), 'MAJOR_OUTAGE', 'major'],
          [dayOf(first + 86_400_000), 'MAJOR_OUTAGE', 'major'],
          [dayOf(first + 2 * 86_400_000), 'DEGRADED_PERFORMANCE', 'minor'],
        ],
      )
    })

    test('an incident resolved and reopened days later leaves the days in between clear', async () => {
      const svc = await service('Reopened')
      const created = await page({
        name: 'Reopened',
        url: 'reopened',
        cards: [{ name: 'c', services: [{ id: svc.id }] }],
      })
      const first = nowMs
      const incident = json(
        await t.call({
          method: 'POST',
          url: `/v3/status-pages/${created.id}/incidents`,
          payload: {
            name: 'Flaky',
            componentImpacts: [{ componentId: svc.id, status: 'MAJOR_OUTAGE' }],
            incidentUpdates: [{ description: 'Down', status: 'INVESTIGATING' }],
          },
        }),
      )
      const update = async (status: string) => {
        const res = await t.call({
          method: 'POST',
          url: `/v1/incidents/${incident.id}/updates`,
          payload: { description: status, status },
        })
        assert.equal(res.statusCode, 201, res.body)
      }
      nowMs = first + 3_600_000
      await update('RESOLVED')
      nowMs = first + 3 * 86_400_000
      await update('INVESTIGATING')
      const days = (await viewOf('reopened')).cards[0]?.services[0]?.days ?? []
      assert.deepEqual(
        days.slice(-4).map((d) => [d.date, d.declared]),
        [
          [dayOf(first), 'MAJOR_OUTAGE'],
          [dayOf(first + 86_400_000), null],
          [dayOf(first + 2 * 86_400_000), null],
          [dayOf(nowMs), 'MAJOR_OUTAGE'],
        ],
      )
    })

    test('a busy page’s older incidents still colour their days, beyond the incidents it lists', async () => {
      const svc = await service('Busy bars')
      const created = await page({
        name: 'Busy bars',
        url: 'busy-bars',
        cards: [{ name: 'c', services: [{ id: svc.id }] }],
      })
      const incident = (status: string) =>
        t.call({
          method: 'POST',
          url: `/v3/status-pages/${created.id}/incidents`,
          payload: {
            name: status,
            componentImpacts: [{ componentId: svc.id, status }],
            incidentUpdates: [{ description: 'Over', status: 'RESOLVED' }],
          },
        })
      const first = nowMs
      assert.equal((await incident('MAJOR_OUTAGE')).statusCode, 201)
      nowMs = first + 86_400_000
      for (let i = 0; i < 100; i++) assert.equal((await incident('DEGRADED_PERFORMANCE')).statusCode, 201)
      const view = await viewOf('busy-bars')
      assert.equal(view.past.length, 100, 'the page lists the latest 100')
      assert.deepEqual(
        view.cards[0]?.services[0]?.days.slice(-2).map((d) => [d.date, d.declared]),
        [
          [dayOf(first), 'MAJOR_OUTAGE'],
          [dayOf(nowMs), 'DEGRADED_PERFORMANCE'],
        ],
      )
    })

    test('the page and its feeds are titled by the page’s name, never "… status status"', async () => {
      await page({ name: 'Acme status', url: 'acme-titled', cards: [] })
      const [html, rss, atom] = await Promise.all(
        ['', '/feed.rss', '/feed.atom'].map((p) => open(`/status/acme-titled${p}`, HTML)),
      )
      assert.equal(html?.body.match(/<title>([^<]*)<\/title>/)?.[1], 'Acme status')
      assert.equal(rss?.body.match(/<channel><title>([^<]*)<\/title>/)?.[1], 'Acme status incident history')
      assert.equal(
        atom?.body.match(/<feed [^>]*><id>[^<]*<\/id><title>([^<]*)<\/title>/)?.[1],
        'Acme status incident history',
      )
      for (const res of [html, rss, atom]) assert.doesNotMatch(res?.body ?? '', /status status/i)
    })

    /**
     * Page `slug` shows service `name` (checks `old`, failing, and `kept`) and service `${name} too`
     * (`old` alone); each check has run once, a day ago. Answers them, that day's time, and the services'
     * uptime and last two days' bars as the page shows them, and those bars now.
     */
    async function servicesWithAFailedDay(slug: string, name: string) {
      const old = await check(`${name} old`, `/${slug}`)
      const kept = await check(`${name} kept`, `/${slug}-kept`)
      const svc = await service(name, [old.id, kept.id])
      const other = await service(`${name} too`, [old.id])
      await page({ name, url: slug, cards: [{ name: 'c', services: [{ id: svc.id }, { id: other.id }] }] })
      const first = nowMs
      health.set(`/${slug}`, 500)
      await run(old.id)
      await run(kept.id)
      nowMs = first + 86_400_000
      const bars = async () =>
        ((await viewOf(slug)).cards[0]?.services ?? []).map((s) => [
          s.uptime,
          s.days.slice(-2).map((d) => [d.date, d.uptime, d.level]),
        ])
      const before = await bars()
      assert.deepEqual(before, [
        [
          50,
          [
            [dayOf(first), 50, 'major'],
            [dayOf(nowMs), null, 'none'],
          ],
        ],
        [
          0,
          [
            [dayOf(first), 0, 'major'],
            [dayOf(nowMs), null, 'none'],
          ],
        ],
      ])
      return { old, kept, svc, other, first, bars, before }
    }

    test('taking a check off a service keeps what it showed in that service’s past bars', async () => {
      const {
        old,
        kept: staying,
        svc,
        other,
        first,
        bars,
        before,
      } = await servicesWithAFailedDay('taken-off', 'Taken off')
      const put = await t.call({
        method: 'PUT',
        url: `/v1/status-pages/services/${svc.id}`,
        payload: { name: 'Taken off', checkIds: [staying.id] },
      })
      assert.equal(put.statusCode, 200, put.body)
      assert.deepEqual(json(put).checkIds, [staying.id])
      assert.deepEqual(await bars(), before, 'the past bars are what the public saw')
      // From now on the check counts only where it still is.
      health.clear()
      await run(old.id)
      await run(staying.id)
      assert.deepEqual(await bars(), [
        [
          66.66,
          [
            [dayOf(first), 50, 'major'],
            [dayOf(nowMs), 100, 'ok'],
          ],
        ],
        [
          50,
          [
            [dayOf(first), 0, 'major'],
            [dayOf(nowMs), 100, 'ok'],
          ],
        ],
      ])
      // A PUT that keeps its checks keeps nothing twice.
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/status-pages/services/${other.id}`,
        payload: { name: 'Keeps it still', checkIds: [old.id] },
      })
      assert.equal(renamed.statusCode, 200, renamed.body)
      assert.deepEqual((await bars())[1], [
        50,
        [
          [dayOf(first), 0, 'major'],
          [dayOf(nowMs), 100, 'ok'],
        ],
      ])
    })

    test('deleting a check keeps what it showed in its services’ past bars, until retention drops it', async () => {
      const {
        old,
        kept: replacement,
        svc,
        other,
        first,
        bars,
        before,
      } = await servicesWithAFailedDay('replaced', 'Replaced')
      const deleted = await t.call({ method: 'DELETE', url: `/v1/checks/${old.id}` })
      assert.equal(deleted.statusCode, 204, deleted.body)
      assert.deepEqual(await bars(), before, 'the past bars are what the public saw')
      health.clear()
      await run(replacement.id)
      assert.deepEqual((await bars())[0], [
        66.66,
        [
          [dayOf(first), 50, 'major'],
          [dayOf(nowMs), 100, 'ok'],
        ],
      ])

      // Result retention drops the kept days with the results of that time; the service's deletion all.
      nowMs = first + 3 * 86_400_000
      await pruneResults(t.ctx, 1)
      const kept = await t.ctx.db
        .selectFrom('status_page_service_days')
        .select('service_id')
        .where('service_id', 'in', [svc.id, other.id])
        .execute()
      assert.deepEqual(kept, [])

      // An account's deletion takes what its services kept.
      const gone = await accounts.createAccount(t.ctx, { name: 'Gone' })
      const now = new Date(nowMs).toISOString()
      await t.ctx.db
        .insertInto('status_page_services')
        .values({
          id: 'gone-service',
          account_id: gone.id,
          name: 'g',
          description: null,
          created_at: now,
          updated_at: now,
        })
        .execute()
      await t.ctx.db
        .insertInto('status_page_service_days')
        .values({
          service_id: 'gone-service',
          check_id: 'gone-check',
          day: dayOf(nowMs),
          total: 1,
          failed: 1,
          maintenance: 0,
        })
        .execute()
      await t.ctx.db.deleteFrom('accounts').where('id', '=', gone.id).execute()
      assert.deepEqual(
        await t.ctx.db
          .selectFrom('status_page_service_days')
          .selectAll()
          .where('service_id', '=', 'gone-service')
          .execute(),
        [],
      )
    })

    test('a check put back on a service counts its days once there, taken off again or deleted', async () => {
      const back = await check('put back', '/put-back')
      const steady = await check('steady', '/steady')
      const svc = await service('Put back', [back.id, steady.id])
      await page({ name: 'Put back', url: 'put-back', cards: [{ name: 'c', services: [{ id: svc.id }] }] })
      const first = nowMs
      health.set('/put-back', 500)
      await run(back.id)
      await run(steady.id)
      nowMs = first + 86_400_000
      const bars = async () => {
        const [s] = (await viewOf('put-back')).cards[0]?.services ?? []
        return [s?.uptime, s?.days.slice(-2).map((d) => [d.date, d.uptime])]
      }
      const linked = (checkIds: string[]) =>
        t.call({
          method: 'PUT',
          url: `/v1/status-pages/services/${svc.id}`,
          payload: { name: 'Put back', checkIds },
        })
      const firstDay = [
        50,
        [
          [dayOf(first), 50],
          [dayOf(nowMs), null],
        ],
      ]
      assert.deepEqual(await bars(), firstDay)
      for (const checkIds of [[steady.id], [back.id, steady.id]]) {
        const put = await linked(checkIds)
        assert.equal(put.statusCode, 200, put.body)
        assert.deepEqual(await bars(), firstDay, `linked to ${checkIds.length} check(s)`)
      }
      // Runs while it is back count there as any linked check's do; taken off again, nothing counts twice.
      health.clear()
      await run(back.id)
      await run(steady.id)
      const both = [
        75,
        [
          [dayOf(first), 50],
          [dayOf(nowMs), 100],
        ],
      ]
      assert.deepEqual(await bars(), both)
      for (const checkIds of [[steady.id], [back.id, steady.id], [steady.id], [back.id, steady.id]]) {
        const put = await linked(checkIds)
        assert.equal(put.statusCode, 200, put.body)
        assert.deepEqual(await bars(), both, `linked to ${checkIds.length} check(s)`)
      }
      // Deleted while back: its days are kept once, not beside what an earlier taking off kept.
      const deleted = await t.call({ method: 'DELETE', url: `/v1/checks/${back.id}` })
      assert.equal(deleted.statusCode, 204, deleted.body)
      assert.deepEqual(await bars(), both)
    })

    test('simultaneous requests taking a check off a service keep its days once', async () => {
      // On PostgreSQL, both requests are held where they write the service's kept days (see inTurnWhileHeld).
      const together = (requests: (() => Promise<{ statusCode: number; body: string }>)[]) =>
        inTurnWhileHeld(t.ctx, holdingTable('status_page_service_days'), requests)
      const bars = async (slug: string) => {
        const [s] = (await viewOf(slug)).cards[0]?.services ?? []
        return [s?.uptime, s?.days.slice(-1).map((d) => [d.date, d.uptime])]
      }
      health.set('/off-twice', 500)
      health.set('/off-and-deleted', 500)
      const offTwice = await check('off twice', '/off-twice')
      const offAndDeleted = await check('off and deleted', '/off-and-deleted')
      const steady = await check('steady', '/steady')
      const twice = await service('Off twice', [offTwice.id, steady.id])
      const deleted = await service('Off and deleted', [offAndDeleted.id, steady.id])
      await page({
        name: 'Off twice',
        url: 'off-twice',
        cards: [{ name: 'c', services: [{ id: twice.id }] }],
      })
      await page({
        name: 'Off and deleted',
        url: 'off-and-deleted',
        cards: [{ name: 'c', services: [{ id: deleted.id }] }],
      })
      await run(offTwice.id)
      await run(offAndDeleted.id)
      await run(steady.id)
      const half = [50, [[dayOf(nowMs), 50]]]
      assert.deepEqual(await bars('off-twice'), half)
      assert.deepEqual(await bars('off-and-deleted'), half)

      const putOff = () =>
        t.call({
          method: 'PUT',
          url: `/v1/status-pages/services/${twice.id}`,
          payload: { name: 'Off twice', checkIds: [steady.id] },
        })
      const puts = await together([putOff, putOff])
      assert.deepEqual(
        puts.map((res) => res.statusCode),
        [200, 200],
        puts.map((res) => res.body).join('\n'),
      )
      assert.deepEqual(await bars('off-twice'), half)

      const both = await together([
        () =>
          t.call({
            method: 'PUT',
            url: `/v1/status-pages/services/${deleted.id}`,
            payload: { name: 'Off and deleted', checkIds: [steady.id] },
          }),
        () => t.call({ method: 'DELETE', url: `/v1/checks/${offAndDeleted.id}` }),
      ])
      assert.deepEqual(
        both.map((res) => res.statusCode),
        [200, 204],
        both.map((res) => res.body).join('\n'),
      )
      assert.deepEqual(await bars('off-and-deleted'), half)

      health.clear()
    })

    // Maintenance history: days of a fixed UTC day `d0` on (two days ahead of the tests before), and a
    // check tagged `tag` alone on a service of a page of its own.
    const DAY = 86_400_000
    const HOUR = 3_600_000
    const nextDays = () => {
      const d0 = nowMs - (nowMs % DAY) + 2 * DAY
      return [d0, d0 + DAY] as const
    }
    const taggedProbe = async (tag: string) => {
      const probe = await check(`probe ${tag}`, `/${tag}`)
      const tagged = await t.call({ method: 'PUT', url: `/v1/checks/${probe.id}`, payload: { tags: [tag] } })
      assert.equal(tagged.statusCode, 200, tagged.body)
      const svc = await service(`Service ${tag}`, [probe.id])
      await page({ name: `Page ${tag}`, url: tag, cards: [{ name: 'c', services: [{ id: svc.id }] }] })
      const runAt = async (ms: number, status: number) => {
        nowMs = ms
        health.set(`/${tag}`, status)
        const res = await run(probe.id)
        assert.equal(res.statusCode < 300, true, res.body)
      }
      const dayBar = async (ms: number) => {
        const bar = (await viewOf(tag)).cards[0]?.services[0]?.days.find((d) => d.date === dayOf(ms))
        return bar && [bar.uptime, bar.level]
      }
      return { probe, runAt, dayBar }
    }
    const dailyWindow = (tags: string[], startsAtMs: number) => ({
      name: `Nightly ${tags.join(' ')}`,
      tags,
      startsAt: new Date(startsAtMs).toISOString(),
      endsAt: new Date(startsAtMs + HOUR).toISOString(),
      repeatUnit: 'DAY',
    })
    const createWindow = async (payload: object) => {
      const res = await t.call({ method: 'POST', url: '/v1/maintenance-windows', payload })
      assert.equal(res.statusCode, 201, res.body)
      return json(res)
    }
    const putWindow = async (id: number, payload: object) => {
      const res = await t.call({ method: 'PUT', url: `/v1/maintenance-windows/${id}`, payload })
      assert.equal(res.statusCode, 200, res.body)
    }

    test('deleting a maintenance window keeps the past days it covered as maintenance', async () => {
      const [d0, d1] = nextDays()
      const { runAt, dayBar } = await taggedProbe('mw-deleted')
      const window = await createWindow(dailyWindow(['mw-deleted'], d0 + 10 * HOUR))
      await runAt(d0 + 10 * HOUR + 1000, 500)
      await runAt(d0 + 12 * HOUR, 200)
      nowMs = d1 + HOUR
      assert.deepEqual(await dayBar(d0), [100, 'maintenance'])

      const deleted = await t.call({ method: 'DELETE', url: `/v1/maintenance-windows/${window.id}` })
      assert.equal(deleted.statusCode, 204, deleted.body)
      assert.deepEqual(await dayBar(d0), [100, 'maintenance'], 'the past day is what the public saw')
      await runAt(d1 + 10 * HOUR + 1000, 500)
      assert.deepEqual(await dayBar(d1), [0, 'major'], 'no maintenance after the deletion')
      health.clear()
    })

    test('a window’s schedule changed: past days keep the old schedule, later runs follow the new one', async () => {
      const [d0, d1] = nextDays()
      const { runAt, dayBar } = await taggedProbe('mw-moved')
      const window = await createWindow(dailyWindow(['mw-moved'], d0 + 10 * HOUR))
      await runAt(d0 + 10 * HOUR + 1000, 500)
      await runAt(d0 + 12 * HOUR, 200)
      nowMs = d1 + 9 * HOUR
      assert.deepEqual(await dayBar(d0), [100, 'maintenance'])

      // Moved from 10:00 to 13:00 every day, from d1 on.
      await putWindow(window.id, dailyWindow(['mw-moved'], d1 + 13 * HOUR))
      assert.deepEqual(await dayBar(d0), [100, 'maintenance'], 'the past day keeps the schedule it had')
      await runAt(d1 + 10 * HOUR + 1000, 500)
      await runAt(d1 + 13 * HOUR + 1000, 500)
      await runAt(d1 + 15 * HOUR, 200)
      assert.deepEqual(
        await dayBar(d1),
        [50, 'major'],
        'the 10:00 failure is downtime, the 13:00 one maintenance',
      )
      assert.deepEqual(await dayBar(d0), [100, 'maintenance'])
      health.clear()
    })

    test('a window’s tags changed: past days keep the checks it covered then', async () => {
      const [d0, d1] = nextDays()
      const leaving = await taggedProbe('mw-tag-old')
      const joining = await taggedProbe('mw-tag-new')
      const window = await createWindow(dailyWindow(['mw-tag-old'], d0 + 10 * HOUR))
      await leaving.runAt(d0 + 10 * HOUR + 1000, 500)
      await joining.runAt(d0 + 10 * HOUR + 2000, 500)
      await leaving.runAt(d0 + 12 * HOUR, 200)
      await joining.runAt(d0 + 12 * HOUR + 1000, 200)
      nowMs = d1 + 9 * HOUR
      assert.deepEqual(await leaving.dayBar(d0), [100, 'maintenance'])
      assert.deepEqual(await joining.dayBar(d0), [50, 'major'])

      await putWindow(window.id, dailyWindow(['mw-tag-new'], d0 + 10 * HOUR))
      assert.deepEqual(
        await leaving.dayBar(d0),
        [100, 'maintenance'],
        'still maintenance for the check it covered',
      )
      assert.deepEqual(await joining.dayBar(d0), [50, 'major'], 'still downtime for the check it did not')
      await leaving.runAt(d1 + 10 * HOUR + 1000, 500)
      await joining.runAt(d1 + 10 * HOUR + 2000, 500)
      assert.deepEqual(await leaving.dayBar(d1), [0, 'major'])
      assert.deepEqual(await joining.dayBar(d1), [null, 'maintenance'], 'its one run was in maintenance')
      health.clear()
    })

    test('a window created now does not turn past failures into maintenance, even those of its current occurrence', async () => {
      const [d0, d1] = nextDays()
      const { runAt, dayBar } = await taggedProbe('mw-late')
      await runAt(d0 + 10 * HOUR + 1000, 500)
      await runAt(d0 + 12 * HOUR, 200)
      await runAt(d1 + 10 * HOUR + 1000, 500)
      nowMs = d1 + 10 * HOUR + 30 * 60_000
      // Every day from 10:00, d0 included, created at 10:30 on d1.
      await createWindow(dailyWindow(['mw-late'], d0 + 10 * HOUR))
      const status = await summary('mw-late')
      assert.equal(JSON.stringify(status).includes('UNDER_MAINTENANCE'), true, 'it is in maintenance now')
      await runAt(d1 + 10 * HOUR + 31 * 60_000, 500)
      assert.deepEqual(await dayBar(d0), [50, 'major'], 'the past day is what the public saw')
      assert.deepEqual(
        await dayBar(d1),
        [0, 'major'],
        'the failure before the window was created stays downtime',
      )
      await runAt(d1 + 12 * HOUR, 200)
      assert.deepEqual(await dayBar(d1), [50, 'major'], 'the failure after it is maintenance')
      health.clear()
    })

    test('renaming a window, or stretching its running occurrence, changes no past and keeps nothing apart', async () => {
      const [d0] = nextDays()
      const { runAt, dayBar } = await taggedProbe('mw-stretched')
      const window = await createWindow({
        ...dailyWindow(['mw-stretched'], d0 + 10 * HOUR),
        repeatUnit: null,
      })
      await runAt(d0 + 10 * HOUR + 1000, 500)
      nowMs = d0 + 10 * HOUR + 30 * 60_000
      await putWindow(window.id, {
        ...dailyWindow(['mw-stretched'], d0 + 10 * HOUR),
        name: 'Taking longer',
        repeatUnit: null,
        endsAt: new Date(d0 + 12 * HOUR).toISOString(),
      })
      await runAt(d0 + 11 * HOUR + 30 * 60_000, 500)
      await runAt(d0 + 12 * HOUR, 200)
      assert.deepEqual(await dayBar(d0), [100, 'maintenance'], 'both failures are maintenance')
      const kept = await t.ctx.db
        .selectFrom('maintenance_periods')
        .select('tags')
        .where('tags', 'like', '%mw-stretched%')
        .execute()
      assert.deepEqual(kept, [])
      health.clear()
    })

    test('result retention drops the maintenance kept of windows deleted or changed', async () => {
      const [d0, d1] = nextDays()
      const { runAt, dayBar } = await taggedProbe('mw-pruned')
      const window = await createWindow(dailyWindow(['mw-pruned'], d0 + 10 * HOUR))
      await runAt(d0 + 10 * HOUR + 1000, 500)
      nowMs = d1 + 10 * HOUR + 30 * 60_000
      const deleted = await t.call({ method: 'DELETE', url: `/v1/maintenance-windows/${window.id}` })
      assert.equal(deleted.statusCode, 204, deleted.body)
      const kept = () =>
        t.ctx.db
          .selectFrom('maintenance_periods')
          .select(['starts_at', 'ends_at'])
          .where('tags', '=', '["mw-pruned"]')
          .orderBy('starts_at')
          .execute()
      assert.deepEqual(
        (await kept()).map((p) => [p.starts_at, p.ends_at]),
        [
          [new Date(d0 + 10 * HOUR).toISOString(), new Date(d0 + 11 * HOUR).toISOString()],
          [new Date(d1 + 10 * HOUR).toISOString(), new Date(nowMs).toISOString()],
        ],
        'the occurrences begun, the running one cut at the deletion',
      )
      assert.deepEqual(await dayBar(d0), [null, 'maintenance'])

      nowMs = d1 + 2 * DAY
      await pruneResults(t.ctx, 1)
      assert.deepEqual(await kept(), [])
    })

    // A check's tags (its own and its group's) count for maintenance from when it had them: changing
    // them, or its group, leaves past days as they were.
    const putCheck = async (id: string, payload: object) => {
      const res = await t.call({ method: 'PUT', url: `/v1/checks/${id}`, payload })
      assert.equal(res.statusCode, 200, res.body)
    }
    const group = async (name: string, tags: string[]) => {
      const res = await t.call({ method: 'POST', url: '/v1/check-groups', payload: { name, tags } })
      assert.equal(res.statusCode, 201, res.body)
      return json(res)
    }
    const putGroup = async (id: number, payload: object) => {
      const res = await t.call({ method: 'PUT', url: `/v1/check-groups/${id}`, payload })
      assert.equal(res.statusCode, 200, res.body)
    }
    const keptTags = (checkId: string) =>
      t.ctx.db
        .selectFrom('check_tag_history')
        .select(['tags', 'ends_at'])
        .where('check_id', '=', checkId)
        .orderBy('ends_at')
        .execute()

    test('a check losing a tag keeps its past maintenance; one gaining a tag keeps its past downtime', async () => {
      const [d0, d1] = nextDays()
      const losing = await taggedProbe('mw-lost')
      const gaining = await taggedProbe('mw-gaining')
      await createWindow(dailyWindow(['mw-lost', 'mw-gained'], d0 + 10 * HOUR))
      await losing.runAt(d0 + 10 * HOUR + 1000, 500)
      await gaining.runAt(d0 + 10 * HOUR + 2000, 500)
      await losing.runAt(d0 + 12 * HOUR, 200)
      await gaining.runAt(d0 + 12 * HOUR + 1000, 200)
      nowMs = d1 + 9 * HOUR
      assert.deepEqual(await losing.dayBar(d0), [100, 'maintenance'])
      assert.deepEqual(await gaining.dayBar(d0), [50, 'major'])

      await putCheck(losing.probe.id, { tags: [] })
      await putCheck(gaining.probe.id, { tags: ['mw-gaining', 'mw-gained'] })
      assert.deepEqual(
        await losing.dayBar(d0),
        [100, 'maintenance'],
        'still maintenance: it had the tag then',
      )
      assert.deepEqual(await gaining.dayBar(d0), [50, 'major'], 'still downtime: it had no such tag then')
      await losing.runAt(d1 + 10 * HOUR + 1000, 500)
      await gaining.runAt(d1 + 10 * HOUR + 2000, 500)
      assert.deepEqual(await losing.dayBar(d1), [0, 'major'], 'the new tags count from the change on')
      assert.deepEqual(await gaining.dayBar(d1), [null, 'maintenance'])

      const deleted = await t.call({ method: 'DELETE', url: `/v1/checks/${losing.probe.id}` })
      assert.equal(deleted.statusCode, 204, deleted.body)
      assert.deepEqual(await losing.dayBar(d0), [100, 'maintenance'], 'and what a deleted check kept')
      assert.deepEqual(await keptTags(losing.probe.id), [], 'its tags go with it')
      health.clear()
    })

    test('leaving a group, or a group’s tags changed, leaves past days as they were', async () => {
      const [d0, d1] = nextDays()
      const covered = await group('MW covered', ['mw-group'])
      const uncovered = await group('MW uncovered', [])
      const leaving = await taggedProbe('mw-group-leaving')
      const staying = await taggedProbe('mw-group-staying')
      const joining = await taggedProbe('mw-group-joining')
      await putCheck(leaving.probe.id, { groupId: covered.id })
      await putCheck(staying.probe.id, { groupId: covered.id })
      await putCheck(joining.probe.id, { groupId: uncovered.id })
      await createWindow(dailyWindow(['mw-group'], d0 + 10 * HOUR))
      const probes = [leaving, staying, joining]
      for (const [i, probe] of probes.entries()) await probe.runAt(d0 + 10 * HOUR + i * 1000, 500)
      for (const [i, probe] of probes.entries()) await probe.runAt(d0 + 12 * HOUR + i * 1000, 200)
      nowMs = d1 + 9 * HOUR
      const bars = async (day: number) => Promise.all(probes.map((probe) => probe.dayBar(day)))
      const before = [
        [100, 'maintenance'],
        [100, 'maintenance'],
        [50, 'major'],
      ]
      assert.deepEqual(await bars(d0), before)

      await putCheck(leaving.probe.id, { groupId: null })
      await putGroup(covered.id, { name: 'MW covered', tags: [] })
      await putGroup(uncovered.id, { name: 'MW uncovered', tags: ['mw-group'] })
      assert.deepEqual(await bars(d0), before, 'the past days keep the tags the checks had then')
      for (const [i, probe] of probes.entries()) await probe.runAt(d1 + 10 * HOUR + i * 1000, 500)
      assert.deepEqual(
        await bars(d1),
        [
          [0, 'major'],
          [0, 'major'],
          [null, 'maintenance'],
        ],
        'the new tags count from the changes on',
      )
      health.clear()
    })

    test('a tag gained or lost during a window: in maintenance at once, earlier runs keep what they were', async () => {
      const [d0] = nextDays()
      const gaining = await taggedProbe('mw-now-gaining')
      const losing = await taggedProbe('mw-now-lost')
      await createWindow(dailyWindow(['mw-now', 'mw-now-lost'], d0 + 10 * HOUR))
      const underMaintenance = async (slug: string) =>
        JSON.stringify(await summary(slug)).includes('UNDER_MAINTENANCE')
      await gaining.runAt(d0 + 10 * HOUR + 1000, 500)
      await losing.runAt(d0 + 10 * HOUR + 2000, 500)
      assert.deepEqual(
        [await underMaintenance('mw-now-gaining'), await underMaintenance('mw-now-lost')],
        [false, true],
      )

      nowMs = d0 + 10 * HOUR + 10 * 60_000
      await putCheck(gaining.probe.id, { tags: ['mw-now-gaining', 'mw-now'] })
      await putCheck(losing.probe.id, { tags: [] })
      assert.deepEqual(
        [await underMaintenance('mw-now-gaining'), await underMaintenance('mw-now-lost')],
        [true, false],
        'the new tags count at once',
      )
      await gaining.runAt(d0 + 10 * HOUR + 11 * 60_000, 500)
      await losing.runAt(d0 + 10 * HOUR + 11 * 60_000 + 1000, 500)
      await gaining.runAt(d0 + 12 * HOUR, 200)
      await losing.runAt(d0 + 12 * HOUR + 1000, 200)
      // Each: one failure in maintenance, one downtime, one pass.
      assert.deepEqual(await gaining.dayBar(d0), [50, 'major'], 'the failure before the tag is downtime')
      assert.deepEqual(await losing.dayBar(d0), [50, 'major'], 'the failure before losing it is maintenance')
      health.clear()
    })

    test('simultaneous saves of a check keep its tags once; a group saved while its check is deleted', async () => {
      // On PostgreSQL, the requests are held where they write the kept tags (see inTurnWhileHeld).
      const together = (requests: (() => Promise<{ statusCode: number; body: string }>)[]) =>
        inTurnWhileHeld(t.ctx, holdingTable('check_tag_history'), requests)
      nowMs += HOUR
      const twice = await taggedProbe('mw-saved-twice')
      later(1000)
      const put = () => t.call({ method: 'PUT', url: `/v1/checks/${twice.probe.id}`, payload: { tags: [] } })
      const puts = await together([put, put])
      assert.deepEqual(
        puts.map((res) => res.statusCode),
        [200, 200],
        puts.map((res) => res.body).join('\n'),
      )
      assert.deepEqual(
        (await keptTags(twice.probe.id)).map((row) => row.tags),
        ['[]', '["mw-saved-twice"]'],
        'no tags until tagged, then its tag until untagged, once',
      )

      const holder = await group('MW deleted meanwhile', [])
      const doomed = await taggedProbe('mw-deleted-meanwhile')
      await putCheck(doomed.probe.id, { groupId: holder.id })
      const both = await together([
        () =>
          t.call({
            method: 'PUT',
            url: `/v1/check-groups/${holder.id}`,
            payload: { name: 'MW deleted meanwhile', tags: ['mw-meanwhile'] },
          }),
        () => t.call({ method: 'DELETE', url: `/v1/checks/${doomed.probe.id}` }),
      ])
      assert.deepEqual(
        both.map((res) => res.statusCode),
        [200, 204],
        both.map((res) => res.body).join('\n'),
      )
      assert.deepEqual(await keptTags(doomed.probe.id), [])
    })

    test('result retention drops the tags kept of checks', async () => {
      const [d0] = nextDays()
      const { probe } = await taggedProbe('mw-tags-pruned')
      nowMs = d0
      await putCheck(probe.id, { tags: [] })
      assert.equal((await keptTags(probe.id)).length, 2)
      nowMs = d0 + 2 * DAY
      await pruneResults(t.ctx, 1)
      assert.deepEqual(await keptTags(probe.id), [])
    })
  })
}
