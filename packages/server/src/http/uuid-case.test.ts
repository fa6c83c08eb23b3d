import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'

const SCRIPT = "const { test } = require('@playwright/test')\ntest('home', async ({ page }) => {})"

for (const engine of testEngines()) {
  describe(`UUIDs in paths on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
      const res = await t.call({ method, url, ...(payload ? { payload } : {}) })
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
      return res.body ? json(res) : null
    }

    // A UUID is the same whatever the case of its hex digits (RFC 9562); the spec's paths take UUIDs.
    test('the spec’s endpoints find a resource named by its id in upper case', async () => {
      const up = (id: string) => id.toUpperCase()
      const service = await ok('POST', '/v1/status-pages/services', { name: 'API' })
      const page = await ok('POST', '/v3/status-pages', {
        name: 'Acme',
        url: 'acme-uuid-case',
        cards: [{ name: 'All', services: [{ id: service.id }] }],
      })
      const incident = await ok('POST', `/v3/status-pages/${page.id}/incidents`, {
        name: 'Outage',
        incidentUpdates: [{ description: 'Looking', status: 'INVESTIGATING' }],
      })
      const renamed = await ok('PUT', `/v3/status-pages/${up(page.id)}/incidents/${up(incident.id)}`, {
        name: 'Outage of the API',
      })
      assert.equal(renamed.id, incident.id)
      assert.equal(renamed.name, 'Outage of the API')
      const update = await ok('POST', `/v1/incidents/${up(incident.id)}/updates`, {
        description: 'Found it',
        status: 'IDENTIFIED',
      })
      await ok('DELETE', `/v1/incidents/${up(incident.id)}/updates/${up(update.id)}`)
      assert.equal((await ok('GET', `/v1/status-pages/${up(page.id)}`)).id, page.id)

      const check = await ok('POST', '/v1/checks/browser', { name: 'Home', script: SCRIPT, activated: false })
      assert.equal((await ok('GET', `/v1/analytics/browser-checks/${up(check.id)}`)).checkId, check.id)
      await ok('DELETE', `/v1/checks/${up(check.id)}`)
      assert.equal((await t.call({ method: 'GET', url: `/v1/checks/${check.id}` })).statusCode, 404)

      const location = await ok('POST', '/v1/private-locations', { name: 'Office', slugName: 'office' })
      const key = await ok('POST', `/v1/private-locations/${up(location.id)}/keys`)
      assert.match(key.rawKey, /^svc_pl_/)
    })
  })
}
