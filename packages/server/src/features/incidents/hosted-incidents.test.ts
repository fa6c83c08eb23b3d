import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { InjectOptions } from 'fastify'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`hosted-form status-page incidents on ${engine.engine}`, () => {
    let t: TestApp
    let pageId = ''
    let laterPageId = ''
    let api = ''
    let web = ''
    let lonely = ''
    const call = (method: InjectOptions['method'], url: string, payload?: object) =>
      t.call({ method, url, payload })
    const ok = async (method: InjectOptions['method'], url: string, payload?: object) => {
      const res = await call(method, url, payload)
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
      return res.statusCode === 204 ? undefined : json(res)
    }
    before(async () => {
      t = await createTestApp(engine)
      const service = async (name: string) => (await ok('POST', '/v1/status-pages/services', { name })).id
      api = await service('API')
      web = await service('Web')
      lonely = await service('Shown nowhere')
      const page = (url: string, ids: string[]) =>
        ok('POST', '/v3/status-pages', {
          name: url,
          url,
          cards: [{ name: 'All', services: ids.map((id) => ({ id })) }],
        })
      pageId = (await page('hosted-first', [api, web])).id
      laterPageId = (await page('hosted-later', [api])).id
    })
    after(() => t.close())

    test('an incident made by its services alone is the same incident under the v3 routes', async () => {
      const made = await call('POST', '/v1/status-pages/incidents', {
        name: 'API down',
        severity: 'MAJOR',
        services: [{ id: api, name: 'API', accountId: 'ignored' }],
        incidentUpdates: [{ description: 'Looking into it' }],
      })
      assert.equal(made.statusCode, 201, made.body)
      const incident = json(made)
      // The oldest page showing every listed service takes it.
      assert.equal(incident.statusPageId, pageId)
      assert.equal(incident.severity, 'MAJOR')
      assert.deepEqual(
        incident.services.map((s: any) => [s.id, s.name]),
        [[api, 'API']],
      )
      assert.deepEqual(
        incident.componentImpacts.map((i: any) => [i.componentId, i.status]),
        [[api, 'PARTIAL_OUTAGE']],
      )
      assert.equal(incident.lastUpdateStatus, 'INVESTIGATING')
      const v3 = await ok('GET', `/v3/status-pages/${pageId}/incidents/${incident.id}`)
      assert.equal(v3.name, 'API down')
      assert.deepEqual(
        v3.incidentUpdates.map((u: any) => u.description),
        ['Looking into it'],
      )

      // Not taken for /v1/status-pages/{statusPageId}: the list of every page's incidents.
      const listed = await ok('GET', '/v1/status-pages/incidents?limit=100')
      assert.ok(listed.entries.some((e: any) => e.id === incident.id))
      assert.equal(listed.length, listed.entries.length)
      assert.equal(listed.nextId, null)

      await ok('DELETE', `/v1/status-pages/incidents/${incident.id}`)
      assert.equal((await call('GET', `/v3/status-pages/${pageId}/incidents/${incident.id}`)).statusCode, 404)
      assert.equal((await call('GET', `/v1/status-pages/incidents/${incident.id}`)).statusCode, 404)
    })

    test('statusPageId picks the page; services no page shows together are a 400', async () => {
      const chosen = await ok('POST', '/v1/status-pages/incidents', {
        name: 'Later page',
        severity: 'CRITICAL',
        statusPageId: laterPageId,
        services: [{ id: api }],
        incidentUpdates: [{ description: 'Down', status: 'IDENTIFIED' }],
      })
      assert.equal(chosen.statusPageId, laterPageId)
      assert.equal(chosen.componentImpacts[0].status, 'MAJOR_OUTAGE')
      assert.equal(chosen.lastUpdateStatus, 'IDENTIFIED')
      const nowhere = await call('POST', '/v1/status-pages/incidents', {
        name: 'Nowhere',
        severity: 'MINOR',
        services: [{ id: api }, { id: lonely }],
        incidentUpdates: [{ description: 'Down' }],
      })
      assert.equal(nowhere.statusCode, 400)
      assert.match(json(nowhere).message, /no status page of the account shows every one of these services/)
      const noUpdates = await call('POST', '/v1/status-pages/incidents', {
        name: 'Silent',
        severity: 'MINOR',
        services: [{ id: api }],
        incidentUpdates: [],
      })
      assert.equal(noUpdates.statusCode, 400)
    })

    test('an incident made without severity reads as MINOR in the hosted form', async () => {
      const v3 = await ok('POST', `/v3/status-pages/${pageId}/incidents`, {
        name: 'No severity',
        componentImpacts: [{ componentId: web, status: 'UNDER_MAINTENANCE' }],
        incidentUpdates: [{ description: 'Upgrading', status: 'MONITORING' }],
      })
      const hosted = await ok('GET', `/v1/status-pages/incidents/${v3.id}`)
      assert.equal(hosted.severity, 'MINOR')
      assert.deepEqual(
        hosted.services.map((s: any) => s.id),
        [web],
      )
      // The v3 form still says it has none.
      assert.equal((await ok('GET', `/v3/status-pages/${pageId}/incidents/${v3.id}`)).severity, null)
    })

    test('a PUT keeps the status of services impacted already, and frees the ones left out', async () => {
      const incident = await ok('POST', `/v3/status-pages/${pageId}/incidents`, {
        name: 'Web slow',
        componentImpacts: [{ componentId: web, status: 'DEGRADED_PERFORMANCE' }],
        incidentUpdates: [{ description: 'Slow', status: 'INVESTIGATING' }],
      })
      const moved = await ok('PUT', `/v1/status-pages/incidents/${incident.id}`, {
        id: incident.id,
        name: 'Web slow, API down',
        severity: 'CRITICAL',
        services: [{ id: web }, { id: api }],
      })
      assert.equal(moved.name, 'Web slow, API down')
      assert.deepEqual(
        moved.componentImpacts.map((i: any) => [i.componentId, i.status]).sort(),
        [
          [api, 'MAJOR_OUTAGE'],
          [web, 'DEGRADED_PERFORMANCE'],
        ].sort(),
      )
      const narrowed = await ok('PUT', `/v1/status-pages/incidents/${incident.id}`, {
        name: 'API down',
        severity: 'CRITICAL',
        services: [{ id: api }],
      })
      const webImpact = narrowed.componentImpacts.find((i: any) => i.componentId === web)
      assert.equal(webImpact.status, 'OPERATIONAL')
      assert.notEqual(webImpact.endedAt, null)
      const notShown = await call('PUT', `/v1/status-pages/incidents/${incident.id}`, {
        name: 'x',
        severity: 'MINOR',
        services: [{ id: lonely }],
      })
      assert.equal(notShown.statusCode, 400)
    })

    test('incident updates: posted without a status they keep the current one; edited, read and deleted', async () => {
      const incident = await ok('POST', '/v1/status-pages/incidents', {
        name: 'Updates',
        severity: 'MEDIUM',
        services: [{ id: web }],
        incidentUpdates: [{ description: 'Found it', status: 'IDENTIFIED' }],
      })
      const base = `/v1/status-pages/incidents/${incident.id}/incident-updates`
      const posted = await call('POST', base, { description: 'Fix rolling out' })
      assert.equal(posted.statusCode, 200, posted.body)
      const update = json(posted)
      assert.equal(update.status, 'IDENTIFIED')
      const resolved = await ok('POST', base, { description: 'Fixed', status: 'RESOLVED' })
      assert.equal(
        (await ok('GET', `/v1/status-pages/incidents/${incident.id}`)).lastUpdateStatus,
        'RESOLVED',
      )
      assert.deepEqual(
        (await ok('GET', base)).map((u: any) => u.description),
        ['Found it', 'Fix rolling out', 'Fixed'],
      )
      const edited = await ok('PUT', `${base}/${update.id}`, { description: 'Fix rolled out', id: 'ignored' })
      assert.equal(edited.description, 'Fix rolled out')
      assert.equal(edited.status, 'IDENTIFIED')
      assert.equal((await ok('GET', `${base}/${update.id}`)).description, 'Fix rolled out')
      await ok('DELETE', `${base}/${resolved.id}`)
      assert.equal((await call('GET', `${base}/${resolved.id}`)).statusCode, 404)
      // The same updates through the seed spec's routes.
      const v3 = await ok('GET', `/v3/status-pages/${pageId}/incidents/${incident.id}`)
      assert.equal(v3.lastUpdateStatus, 'IDENTIFIED')
      assert.deepEqual(
        v3.incidentUpdates.map((u: any) => u.description),
        ['Found it', 'Fix rolled out'],
      )
      assert.equal((await call('GET', `${base}/nope`)).statusCode, 404)
    })

    test('the incident list pages by cursor', async () => {
      const first = await ok('GET', '/v1/status-pages/incidents?limit=1')
      assert.equal(first.entries.length, 1)
      assert.equal(typeof first.nextId, 'string')
      const second = await ok('GET', `/v1/status-pages/incidents?limit=1&nextId=${first.nextId}`)
      assert.equal(second.entries.length, 1)
      assert.notEqual(second.entries[0].id, first.entries[0].id)
      assert.equal((await call('GET', '/v1/status-pages/incidents?nextId=bogus')).statusCode, 400)
    })
  })
}
