import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { formatDate } from '../status-site/render.ts'
import { CHECKS_PART_TTL_MS } from './checks-part-cache.ts'

const ok = [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }]

for (const engine of testEngines()) {
  describe(`dashboards' public pages over HTTP on ${engine.engine}`, () => {
    let t: TestApp
    let target: Server
    let svc: string
    /** Moves the app's clock ahead of the real one, past the checks part's reuse. */
    let aheadMs = 0
    let targetBase: string
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(Date.now() + aheadMs) } })
      target = createServer((req, res) => {
        res.statusCode = req.url === '/ok' ? 200 : 500
        res.end('{}')
      })
      target.listen(0, '127.0.0.1')
      await once(target, 'listening')
      targetBase = `http://127.0.0.1:${(target.address() as AddressInfo).port}`
      // Three checks that ran once each: two tagged prod (one failing), one untagged.
      for (const [name, path, tags] of [
        ['Checkout API', '/ok', ['prod']],
        ['Login API', '/fail', ['prod', 'auth']],
        ['Staging API', '/ok', ['staging']],
      ] as const) {
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/api',
          payload: { name, activated: false, tags, request: { url: targetBase + path, assertions: ok } },
        })
        assert.equal(created.statusCode, 201, created.body)
        const run = await t.call({ method: 'POST', url: `/v1/checks/${json(created).id}/trigger` })
        assert.equal(run.statusCode, 200, run.body)
      }
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      svc = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      target?.close()
      await t?.close()
    })

    const board = async (payload: object) => {
      const res = await t.call({ method: 'POST', url: '/v1/dashboards', payload })
      assert.equal(res.statusCode, 201, res.body)
      return json(res)
    }
    const page = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(svc + path, { headers: { accept: 'text/html', ...headers } })
      return { status: res.status, headers: res.headers, html: await res.text() }
    }
    const checkNames = (html: string) =>
      [...html.matchAll(/<li class="check (\w+)"[^>]*><h2>([^<]+)<\/h2>/g)].map((m) => `${m[2]}: ${m[1]}`)

    test('shows the checks its tags select with their status, without an API key', async () => {
      await board({ header: 'Production', description: 'Our APIs', customUrl: 'production', tags: ['prod'] })
      const { status, headers, html } = await page('/dashboards/production')
      assert.equal(status, 200)
      assert.equal(headers.get('content-type'), 'text/html; charset=utf-8')
      assert.match(headers.get('content-security-policy') ?? '', /^default-src 'none'; style-src 'sha256-/)
      assert.match(html, /<h1>Production<\/h1><\/header><p>Our APIs<\/p>/)
      assert.deepEqual(checkNames(html), ['Checkout API: passing', 'Login API: failing'])
      assert.match(html, /<span class="state">1<\/span> failing/)
      assert.match(html, /100% success \(24 h\)/)
      assert.match(html, /<span class="tag">auth<\/span>/)
      assert.match(html, /<meta http-equiv="refresh" content="60;url=\/dashboards\/production">/)
    })

    test('every tag with useTagsAndOperator, failing first with sortByStatus, paged by checksPerPage', async () => {
      await board({
        header: 'Auth',
        customUrl: 'auth-only',
        tags: ['prod', 'auth'],
        useTagsAndOperator: true,
      })
      assert.deepEqual(checkNames((await page('/dashboards/auth-only')).html), ['Login API: failing'])

      await board({
        header: 'All',
        customUrl: 'everything',
        sortByStatus: true,
        checksPerPage: 2,
        paginationRate: 30,
        hideTags: true,
      })
      const first = await page('/dashboards/everything')
      assert.deepEqual(checkNames(first.html), ['Login API: failing', 'Checkout API: passing'])
      assert.match(first.html, /content="30;url=\/dashboards\/everything\?page=2"/)
      assert.match(first.html, /page 1 of 2/)
      assert.doesNotMatch(first.html, /class="tag"/)
      const second = await page('/dashboards/everything?page=2')
      assert.deepEqual(checkNames(second.html), ['Staging API: passing'])
      assert.match(second.html, /content="30;url=\/dashboards\/everything"/)
      assert.equal((await page('/dashboards/everything?page=abc')).status, 400)
    })

    test('a private dashboard is a 404 without an API key of the account, the page with one', async () => {
      await board({ header: 'Secret', customUrl: 'secret', isPrivate: true })
      const hidden = await page('/dashboards/secret')
      assert.equal(hidden.status, 404)
      assert.doesNotMatch(hidden.html, /Secret/)
      assert.deepEqual(
        [(await page('/dashboards/no-such-board')).status, hidden.html],
        [404, (await page('/dashboards/no-such-board')).html],
      )
      const shown = await page('/dashboards/secret', { authorization: `Bearer ${t.owner.key}` })
      assert.equal(shown.status, 200)
      assert.match(shown.html, /<h1>Secret<\/h1>/)
      assert.equal(shown.headers.get('cache-control'), 'private, no-store')
    })

    test('its custom domain serves it at the root; incidents show when enabled; custom CSS stays CSS', async () => {
      const created = await board({
        header: 'On our domain',
        customDomain: 'status.acme.example',
        enableIncidents: true,
        customCSS: 'body{color:red}</style><script>alert(1)</script>',
      })
      const incident = await t.call({
        method: 'POST',
        url: '/v1/incidents',
        payload: {
          name: 'Checkout is slow',
          impact: 'MINOR',
          dashboardId: created.id,
          incidentUpdates: [{ status: 'INVESTIGATING', description: 'Looking <into> it.' }],
        },
      })
      assert.equal(incident.statusCode, 200, incident.body)
      // fetch() sets Host itself: a plain request names the custom domain.
      const { status, html } = await new Promise<{ status: number; html: string }>((resolve, reject) => {
        const headers = { host: 'status.acme.example', accept: 'text/html' }
        // Not validated there: a page that isn't a number is the first.
        request(`${svc}/?page=abc`, { headers }, (res) => {
          let body = ''
          res.on('data', (chunk) => {
            body += chunk
          })
          res.on('end', () => resolve({ status: res.statusCode ?? 0, html: body }))
        })
          .on('error', reject)
          .end()
      })
      assert.equal(status, 200)
      assert.match(html, /<h1>On our domain<\/h1>/)
      assert.match(html, /<h2>Ongoing incidents<\/h2><article class="incident"><h3>Checkout is slow<\/h3>/)
      assert.match(html, /Looking &lt;into&gt; it\./)
      assert.match(html, /body\{color:red\}\\3c \/style>\\3c script>/)
      assert.doesNotMatch(html, /<script>/)
      assert.match(html, /content="60;url=\/"/)
      // Another dashboard by its customUrl is not shown under this domain.
      const elsewhere = await new Promise<number>((resolve, reject) => {
        const headers = { host: 'status.acme.example', accept: 'text/html' }
        request(`${svc}/dashboards/production`, { headers }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
          .on('error', reject)
          .end()
      })
      assert.equal(elsewhere, 404)
    })
    test('an incident ended reads "stopped <time>"; one whose end is still ahead is ongoing, "ends <time>"', async () => {
      const created = await board({
        header: 'Ends',
        customUrl: 'ends',
        tags: ['none'],
        enableIncidents: true,
      })
      const hour = 3_600_000
      // The app's clock, on whole seconds.
      const at = (offset: number) =>
        new Date(Math.floor((Date.now() + aheadMs + offset) / 1000) * 1000).toISOString()
      const times = { started: at(-2 * hour), old: at(-hour), planned: at(hour) }
      for (const [name, stoppedAt] of [
        ['Old outage', times.old],
        ['Planned work', times.planned],
      ] as const) {
        const res = await t.call({
          method: 'POST',
          url: '/v1/incidents',
          payload: {
            name,
            impact: 'MAINTENANCE',
            dashboardId: created.id,
            startedAt: times.started,
            stoppedAt,
            incidentUpdates: [{ status: 'MAINTENANCE', description: `${name}.` }],
          },
        })
        assert.equal(res.statusCode, 200, res.body)
      }
      const { html } = await page('/dashboards/ends')
      // Per section, each incident's name and its line of facts as text.
      const sections = [...html.matchAll(/<section><h2>([^<]+)<\/h2>(.*?)<\/section>/g)].map((section) => [
        section[1],
        [...(section[2] ?? '').matchAll(/<h3>([^<]+)<\/h3><p class="muted">(.*?)<\/p>/g)].map((article) => [
          article[1],
          (article[2] ?? '').replace(/<[^>]+>/g, ''),
        ]),
      ])
      const started = `Maintenance · started ${formatDate(times.started)}`
      assert.deepEqual(sections, [
        ['Ongoing incidents', [['Planned work', `${started} · ends ${formatDate(times.planned)}`]]],
        ['Recent incidents', [['Old outage', `${started} · stopped ${formatDate(times.old)}`]]],
      ])
    })

    test('reuses its checks for a while; an edit of the dashboard or an incident shows at once', async () => {
      const created = await board({
        header: 'Late',
        customUrl: 'late',
        tags: ['late'],
        enableIncidents: true,
      })
      const addCheck = async (name: string) => {
        const res = await t.call({
          method: 'POST',
          url: '/v1/checks/api',
          payload: {
            name,
            activated: false,
            tags: ['late'],
            request: { url: `${targetBase}/ok`, assertions: ok },
          },
        })
        assert.equal(res.statusCode, 201, res.body)
      }
      assert.deepEqual(checkNames((await page('/dashboards/late')).html), [])
      await addCheck('First late check')
      assert.deepEqual(checkNames((await page('/dashboards/late')).html), [], 'reused within its TTL')

      const edited = await t.call({
        method: 'PUT',
        url: `/v1/dashboards/${created.dashboardId}`,
        payload: { header: 'Late, edited' },
      })
      assert.equal(edited.statusCode, 200, edited.body)
      const afterEdit = (await page('/dashboards/late')).html
      assert.match(afterEdit, /<h1>Late, edited<\/h1>/)
      assert.deepEqual(checkNames(afterEdit), ['First late check: none'])

      await addCheck('Second late check')
      const incident = await t.call({
        method: 'POST',
        url: '/v1/incidents',
        payload: {
          name: 'Late everywhere',
          impact: 'MINOR',
          dashboardId: created.id,
          incidentUpdates: [{ status: 'INVESTIGATING', description: 'Looking.' }],
        },
      })
      assert.equal(incident.statusCode, 200, incident.body)
      const withIncident = (await page('/dashboards/late')).html
      assert.match(withIncident, /<h3>Late everywhere<\/h3>/)
      assert.deepEqual(checkNames(withIncident), ['First late check: none'])

      aheadMs += CHECKS_PART_TTL_MS
      assert.deepEqual(checkNames((await page('/dashboards/late')).html), [
        'First late check: none',
        'Second late check: none',
      ])
    })
  })
}
