import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { ANALYTICS_KINDS, CHECK_PATHS } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'

const [sqlite] = testEngines()

/** A dry run (or a project already gone) answers its diff at once (200); otherwise a deployment starts (202). */
const TWO_SUCCESS_RESPONSES = new Set([
  'post /v1/projects/deploy',
  'delete /v1/projects/{logicalId}',
  // 202 while the analysis is pending, 200 once it finished (as the hosted API answers).
  'get /v1/root-cause-analyses/{id}',
])

const PUBLIC_OPERATIONS = [
  'get /next/accounts',
  'get /next/accounts/{accountId}',
  'get /next/users/me',
  'get /next/projects',
  'get /next/projects/{logicalId}',
  'post /next/projects',
  'post /next/checkly-storage/upload-code-bundle',
  'post /next/checkly-storage/upload',
  'post /next/checkly-storage/download',
  'post /v1/projects/deploy',
  'get /v1/projects',
  'get /v1/projects/{logicalId}',
  'delete /v1/projects/{logicalId}',
  'get /v1/projects/{logicalId}/deployments/{deploymentId}',
  'get /v1/projects/{logicalId}/deployments/{deploymentId}/completion',
  'get /v1/projects/{logicalId}/deployments/{deploymentId}/events',
  'post /v1/projects/{logicalId}/deployments/{deploymentId}/cancel',
  'post /v1/test-sessions/run',
  'post /v1/test-sessions/trigger',
  'post /next/test-sessions/trigger',
  'get /next/test-sessions/{testSessionId}/link',
  'get /next/test-sessions/{testSessionId}/results/{testSessionResultId}/links',
  'get /v1/test-sessions',
  'get /v1/test-sessions/{testSessionId}',
  'get /v1/test-sessions/{testSessionId}/completion',
  'get /v1/test-sessions/{testSessionId}/events',
  'post /v1/test-sessions/{testSessionId}/cancel',
  'get /v1/test-sessions/{testSessionId}/results/{testSessionResultId}',
  'get /v1/test-sessions/{testSessionId}/results/{testSessionResultId}/assets',
  'get /v1/test-sessions/{testSessionId}/results/{testSessionResultId}/artifacts/{*}',
  'post /v1/check-sessions/trigger',
  'get /v1/check-sessions/{checkSessionId}',
  'get /v1/check-sessions/{checkSessionId}/completion',
  'post /v1/check-sessions/{checkSessionId}/cancel',
  'post /v2/check-sessions/trigger',
  'get /v2/check-sessions/{checkSessionId}',
  'get /v2/check-sessions/{checkSessionId}/completion',
  'get /v1/dashboards',
  'post /v1/dashboards',
  'get /v1/dashboards/{dashboardId}',
  'put /v1/dashboards/{dashboardId}',
  'delete /v1/dashboards/{dashboardId}',
  'get /v1/incidents',
  'post /v1/incidents',
  'get /v1/incidents/{id}',
  'put /v1/incidents/{id}',
  'delete /v1/incidents/{id}',
  'post /v1/triggers/checks/{checkId}',
  'get /v1/triggers/checks/{checkId}',
  'delete /v1/triggers/checks/{checkId}',
  'post /v1/triggers/check-groups/{groupId}',
  'get /v1/triggers/check-groups/{groupId}',
  'delete /v1/triggers/check-groups/{groupId}',
  'get /v1/dashboard/overview',
  'get /v1/accounts',
  'get /v1/accounts/me',
  'patch /v1/accounts/me',
  'get /v1/accounts/me/members',
  'post /v1/accounts/me/members',
  'patch /v1/accounts/me/members/{userId}',
  'delete /v1/accounts/me/members/{userId}',
  'get /v1/api-keys',
  'post /v1/api-keys',
  'delete /v1/api-keys/{id}',
  'get /v1/variables',
  'post /v1/variables',
  'get /v1/variables/{key}',
  'put /v1/variables/{key}',
  'delete /v1/variables/{key}',
  'get /v1/checks',
  'post /v1/checks',
  'get /v1/checks/{id}',
  'get /v2/checks',
  'get /v2/checks/{id}',
  'get /v3/checks',
  'get /v3/checks/{id}',
  'put /v1/checks/{id}',
  'delete /v1/checks/{id}',
  'get /v1/check-groups',
  'post /v1/check-groups',
  'delete /v1/private-locations/{id}',
  'delete /v1/private-locations/{id}/keys/{keyId}',
  'get /v1/private-locations',
  'get /v1/private-locations/{id}',
  'get /v1/static-ips.txt',
  'get /v1/static-ipv6s.txt',
  'get /v1/static-ips',
  'get /v1/static-ipv6s',
  'get /v1/static-ips-by-region',
  'get /v1/static-ipv6s-by-region',
  'post /v1/private-locations',
  'post /v1/private-locations/{id}/keys',
  'put /v1/private-locations/{id}',
  'post /v1/check-groups/{id}/trigger',
  'get /v1/check-groups/{id}',
  'put /v1/check-groups/{id}',
  'delete /v1/check-groups/{id}',
  'get /v1/check-groups/{id}/checks',
  'get /v1/check-groups/{groupId}/checks/{checkId}',
  'post /v2/check-groups',
  'put /v2/check-groups/{id}',
  'get /v2/check-groups/{id}/checks',
  'get /v2/check-groups/{groupId}/checks/{checkId}',
  'get /v1/locations',
  'get /v1/runtimes',
  'get /v1/runtimes/{id}',
  'post /v1/checks/{id}/cancel',
  'post /v1/checks/{id}/trigger',
  'get /v1/check-statuses',
  'get /v1/check-statuses/{checkId}',
  'get /v1/check-results/{checkId}',
  'get /v2/check-results/{checkId}',
  'get /v1/check-results/{checkId}/{resultId}',
  'get /v1/check-results/{checkId}/{resultId}/artifacts/{*}',
  'get /v1/alert-channels',
  'post /v1/alert-channels',
  'get /v1/alert-channels/{id}',
  'put /v1/alert-channels/{id}',
  'delete /v1/alert-channels/{id}',
  'put /v1/alert-channels/{id}/subscriptions',
  'post /v1/alert-channels/{id}/test',
  'get /v1/alert-notifications',
  'get /v1/alert-notifications/{id}',
  'get /v1/maintenance-windows',
  'post /v1/maintenance-windows',
  'get /v1/maintenance-windows/{id}',
  'put /v1/maintenance-windows/{id}',
  'delete /v1/maintenance-windows/{id}',
  'get /v1/maintenance-windows/{id}/maintenances',
  'get /v1/maintenance-windows/{id}/maintenances/{maintenanceId}',
  'patch /v1/maintenance-windows/{id}/maintenances/{maintenanceId}',
  'delete /v1/maintenance-windows/{id}/maintenances/{maintenanceId}',
  'post /v1/maintenance-windows/{id}/maintenances/{maintenanceId}/updates',
  'put /v1/maintenance-windows/{id}/maintenances/{maintenanceId}/updates/{updateId}',
  'delete /v1/maintenance-windows/{id}/maintenances/{maintenanceId}/updates/{updateId}',
  'get /v1/status-pages/services',
  'post /v1/status-pages/services',
  'get /v1/status-pages/services/{id}',
  'put /v1/status-pages/services/{id}',
  'delete /v1/status-pages/services/{id}',
  'get /v3/status-pages',
  'post /v3/status-pages',
  'get /v3/status-pages/{statusPageId}',
  'put /v3/status-pages/{statusPageId}',
  'delete /v3/status-pages/{statusPageId}',
  'get /v1/status-pages/{statusPageId}',
  'get /v3/status-pages/{statusPageId}/access-tokens',
  'post /v3/status-pages/{statusPageId}/access-tokens',
  'delete /v3/status-pages/{statusPageId}/access-tokens/{tokenId}',
  'get /v3/status-pages/{statusPageId}/incidents',
  'post /v3/status-pages/{statusPageId}/incidents',
  'get /v3/status-pages/{statusPageId}/incidents/{incidentId}',
  'put /v3/status-pages/{statusPageId}/incidents/{incidentId}',
  'delete /v3/status-pages/{statusPageId}/incidents/{incidentId}',
  'post /v1/incidents/{incidentId}/updates',
  'put /v1/incidents/{incidentId}/updates/{id}',
  'delete /v1/incidents/{incidentId}/updates/{id}',
  'get /v3/status-pages/{statusPageId}/subscribers',
  'delete /v3/status-pages/{statusPageId}/subscribers/{subscriberId}',
  'get /v1/status-pages',
  'post /v1/status-pages',
  'put /v1/status-pages/{statusPageId}',
  'delete /v1/status-pages/{statusPageId}',
  'get /v1/status-pages/incidents',
  'post /v1/status-pages/incidents',
  'get /v1/status-pages/incidents/{incidentId}',
  'put /v1/status-pages/incidents/{incidentId}',
  'delete /v1/status-pages/incidents/{incidentId}',
  'get /v1/status-pages/incidents/{incidentId}/incident-updates',
  'post /v1/status-pages/incidents/{incidentId}/incident-updates',
  'get /v1/status-pages/incidents/{incidentId}/incident-updates/{incidentUpdateId}',
  'put /v1/status-pages/incidents/{incidentId}/incident-updates/{incidentUpdateId}',
  'delete /v1/status-pages/incidents/{incidentId}/incident-updates/{incidentUpdateId}',
  'get /v1/status-pages/{statusPageId}/subscriptions',
  'post /v1/status-pages/{statusPageId}/subscriptions/bulk',
  'delete /v1/status-pages/{statusPageId}/subscriptions/{subscriptionId}',
  ...Object.keys(CHECK_PATHS).flatMap((type) => [`post /v1/checks/${type}`, `put /v1/checks/${type}/{id}`]),
  ...ANALYTICS_KINDS.map((kind) => `get /v1/analytics/${kind.segment}/{id}`),
  'post /v1/analytics/checks',
  'get /v1/check-results/{checkId}/{resultId}/assets',
  'get /v1/analytics/metrics',
  'get /v1/error-groups/checks/{checkId}',
  'get /v1/error-groups',
  'patch /v1/error-groups/{id}',
  'get /v1/error-groups/{id}',
  'post /v1/root-cause-analyses/error-groups/{errorGroupId}',
  'get /v1/root-cause-analyses/{id}',
  'get /v1/snippets',
  'post /v1/snippets',
  'get /v1/snippets/{id}',
  'put /v1/snippets/{id}',
  'delete /v1/snippets/{id}',
  'get /v1/client-certificates',
  'get /v1/accounts/me/entitlements',
  'get /v1/accounts/{accountId}',
  'get /v1/accounts/{accountId}/entitlements',
  'get /v1/accounts/{accountId}/members',
  'patch /v1/accounts/{accountId}/members/{userId}',
  'delete /v1/accounts/{accountId}/members/{userId}',
  'post /v1/client-certificates',
  'get /v1/client-certificates/{id}',
  'delete /v1/client-certificates/{id}',
  'get /v1/reporting',
  'get /v1/check-alerts',
  'get /v1/check-alerts/{checkId}',
  'get /v1/checks/heartbeats/{checkId}/events',
  'get /v1/checks/heartbeats/{checkId}/events/{id}',
  'get /v1/checks/heartbeats/{checkId}/availability',
]

/** The agent protocol: private-location keys, the agent's id header, no account. */
const AGENT_OPERATIONS = [
  'delete /agent/v1/heartbeat',
  'get /agent/v1/jobs',
  'post /agent/v1/errors',
  'post /agent/v1/heartbeat',
  'post /agent/v1/results',
  'post /agent/v1/results/batch',
  'put /agent/v1/checks/{checkId}/results/{resultId}/artifacts/{*}',
]

/** Documented operations that need no API key (API.md "Open routes"). */
const OPEN_OPERATIONS = [
  ...['/ping/{token}', '/ping/{token}/fail'].flatMap((path) =>
    ['get', 'post', 'head'].map((method) => `${method} ${path}`),
  ),
  'get /status/{slug}',
  'get /dashboards/{customUrl}',
  'get /status/{slug}/summary.json',
  'get /status/{slug}/feed.rss',
  'get /status/{slug}/feed.atom',
  'post /status/{slug}/subscribe',
  'get /status/{slug}/subscribe/confirm',
  'get /status/{slug}/unsubscribe',
  'post /status/{slug}/unsubscribe',
  'get /status/_subscription/confirm',
  'post /v1/auth/sign-in',
  'get /v1/auth/session',
  'post /v1/auth/sign-out',
  'post /v1/auth/password',
  'get /status/_subscription/unsubscribe',
  'post /status/_subscription/unsubscribe',
  'get /v1/badges/checks/{checkId}',
  'get /v1/badges/groups/{groupId}',
  ...['/v1/triggers/checks/{checkId}/run', '/v1/triggers/check-groups/{groupId}/run'].flatMap((path) =>
    ['get', 'post'].map((method) => `${method} ${path}`),
  ),
]

/** Operations whose body is validated by the service: merged onto stored state, or checked by the type it names. */
const LOOSE_BODIES = new Set([
  'post /v1/checks',
  'put /v1/checks/{id}',
  'post /v1/test-sessions/run',
  // Bytes (application/octet-stream), not JSON.
  'post /next/checkly-storage/upload-code-bundle',
  'post /next/checkly-storage/upload',
])

describe('OpenAPI documents', () => {
  let t: TestApp
  let doc: any
  before(async () => {
    t = await createTestApp(sqlite!)
    const res = await t.call({ method: 'GET', url: '/openapi.json', as: null })
    assert.equal(res.statusCode, 200)
    doc = json(res)
  })
  after(() => t.close())

  test('is OpenAPI 3.0.0, version v1, served at the base URL, bearer auth applied globally', () => {
    assert.equal(doc.openapi, '3.0.0')
    assert.equal(doc.info.version, 'v1')
    assert.equal(doc.servers[0].url, 'http://svc.test')
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: 'Authorization: Bearer <API_KEY>',
    })
    assert.deepEqual(doc.security, [{ bearerAuth: [] }, { sessionCookie: [] }])
    assert.deepEqual(doc.components.securitySchemes.sessionCookie.in, 'cookie')
    assert.deepEqual(doc.components.securitySchemes.sessionCookie.name, 'svc_session')
  })

  test('answers carry the fields the spec marks required', () => {
    const answer = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema
    const requires = (schema: any, fields: string[], label: string) => {
      for (const field of fields) assert.ok(schema.required?.includes(field), `${label}: ${field}`)
    }
    const incident = answer('/v3/status-pages/{statusPageId}/incidents/{incidentId}', 'put', '200')
    requires(
      incident,
      ['id', 'statusPageId', 'name', 'lastUpdateStatus', 'created_at', 'incidentUpdates'],
      'incident',
    )
    requires(incident.properties.componentImpacts.items, ['componentId', 'status', 'startedAt'], 'impact')
    requires(
      incident.properties.incidentUpdates.items,
      ['id', 'description', 'status', 'created_at'],
      'update',
    )
    requires(
      answer('/v1/private-locations/{id}/keys', 'post', '201'),
      ['id', 'rawKey', 'maskedKey', 'created_at'],
      'private location key',
    )
    requires(
      answer('/v1/root-cause-analyses/error-groups/{errorGroupId}', 'post', '202'),
      ['id', 'status'],
      'analysis',
    )
    requires(answer('/v1/accounts', 'get', '200').items, ['id'], 'account')
    requires(answer('/v1/checks/browser', 'post', '201'), ['id', 'name', 'script'], 'browser check')
  })

  test('static address lists are text files; their 429 is JSON in the error shape', () => {
    for (const path of ['/v1/static-ips.txt', '/v1/static-ipv6s.txt']) {
      const { responses } = doc.paths[path].get
      assert.deepEqual(Object.keys(responses['200'].content), ['text/plain'], path)
      assert.deepEqual(Object.keys(responses['429'].content), ['application/json'], path)
    }
  })

  test('a route limit is stated once, also on GET routes (Fastify adds a HEAD route sharing the schema)', () => {
    for (const path of ['/v1/static-ipv6s.txt', '/v1/analytics/url-monitors/{id}']) {
      const description = String(doc.paths[path].get.description)
      assert.equal(description.match(/Rate limit:/g)?.length, 1, `${path}: ${description}`)
    }
  })

  test('passes a real OpenAPI validator (public and admin documents)', async () => {
    await SwaggerParser.validate(structuredClone(doc))
    const admin = json(await t.call({ method: 'GET', url: '/admin/openapi.json', as: null }))
    await SwaggerParser.validate(structuredClone(admin))
    assert.ok(admin.paths['/admin/v1/api-keys'].get)
    assert.ok(admin.paths['/admin/v1/api-keys/{id}'].delete)
  })

  test('documents every public operation with parameters, bodies, responses and errors', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method} ${path}`),
    )
    assert.deepEqual(
      operations.sort(),
      [...PUBLIC_OPERATIONS, ...OPEN_OPERATIONS, ...AGENT_OPERATIONS].sort(),
    )
    for (const operation of AGENT_OPERATIONS) {
      const [method, path] = operation.split(' ') as [string, string]
      const op = doc.paths[path][method]
      assert.deepEqual(op.tags, ['agent'])
      assert.ok(
        op.parameters.some((p: { name: string }) => p.name === 'x-svc-agent-id'),
        operation,
      )
      assert.deepEqual(op.responses['401'].content['application/json'].schema.required, [
        'statusCode',
        'error',
        'message',
      ])
      // Only error reports are limited (per location); agents poll and post results continuously.
      const limited = operation === 'post /agent/v1/errors'
      assert.equal(Boolean(op.responses['429']), limited, `${operation} documents 429 only if limited`)
      if (limited)
        assert.match(op.description, /Rate limit: 60 requests per 60 seconds per private location\./)
    }
    for (const operation of OPEN_OPERATIONS) {
      const [method, path] = operation.split(' ') as [string, string]
      assert.deepEqual(doc.paths[path][method].security, [], `${operation} needs no key`)
    }
    for (const operation of PUBLIC_OPERATIONS) {
      const [method, path] = operation.split(' ') as [string, string]
      const op = doc.paths[path][method]
      assert.ok(op.summary, `${operation} has a summary`)
      assert.ok(op.tags?.length, `${operation} is tagged`)
      const success = Object.keys(op.responses).filter((code) => code.startsWith('2'))
      assert.equal(
        success.length,
        TWO_SUCCESS_RESPONSES.has(operation) ? 2 : 1,
        `${operation}'s success responses`,
      )
      for (const code of ['401', '403', '404', '429']) {
        const schema = op.responses[code]?.content?.['application/json']?.schema
        assert.deepEqual(
          schema?.required,
          ['statusCode', 'error', 'message'],
          `${operation} documents ${code}`,
        )
      }
      const accountHeader = op.parameters.find((p: { in: string; name: string }) => p.in === 'header')
      assert.equal(accountHeader?.name, 'x-svc-account', `${operation} documents the account header`)
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        const param = op.parameters.find(
          (p: { in: string; name: string }) => p.in === 'path' && `{${p.name}}` === name,
        )
        assert.ok(param?.required, `${operation} documents path parameter ${name}`)
      }
      if (
        (method === 'post' || method === 'put' || method === 'patch') &&
        op.requestBody &&
        !LOOSE_BODIES.has(operation)
      ) {
        const body = op.requestBody?.content?.['application/json']?.schema
        assert.equal(body?.additionalProperties, false, `${operation} documents a strict request body`)
        assert.ok(op.responses['400'], `${operation} documents 400`)
      }
    }
    const createVariable = doc.paths['/v1/variables'].post
    assert.deepEqual(createVariable.requestBody.content['application/json'].schema.required, ['key', 'value'])
    assert.ok(createVariable.responses['201'].content['application/json'].schema.properties.usage)
    assert.ok(createVariable.responses['409'])
    const list = doc.paths['/v1/variables'].get.parameters.map((p: { name: string }) => p.name)
    assert.deepEqual(list.sort(), ['key', 'limit', 'locked', 'page', 'x-svc-account'])
  })

  test('admin routes stay out of the public document; open routes need no key', async () => {
    assert.equal(
      Object.keys(doc.paths).some((path) => path.startsWith('/admin')),
      false,
    )
    const legacy = await t.call({ method: 'GET', url: '/swagger.json', as: null })
    assert.equal(legacy.statusCode, 308)
    assert.equal(legacy.headers.location, '/openapi.json')
    assert.equal(legacy.headers.deprecation, 'true')
    const docs = await t.call({ method: 'GET', url: '/docs/', as: null })
    assert.equal(docs.statusCode, 200)
    assert.match(String(docs.headers['content-type']), /text\/html/)
    assert.match(docs.body, /swagger/i)
  })
})

describe('OpenAPI check operations', () => {
  test('the browser check create operation documents the spec fields and defaults', async () => {
    const t = await createTestApp(sqlite!)
    try {
      const doc = json(await t.call({ method: 'GET', url: '/openapi.json', as: null }))
      const op = doc.paths['/v1/checks/browser'].post
      const body = op.requestBody.content['application/json'].schema
      assert.deepEqual(body.required.sort(), ['name', 'script'])
      assert.equal(body.properties.frequency.default, 10)
      assert.deepEqual(body.properties.frequency.enum, [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440])
      assert.equal(body.properties.environmentVariables.maxItems, 50)
      assert.equal(body.properties.groupOrder.minimum, 0)
      assert.equal(
        op.parameters.find((p: { name: string }) => p.name === 'autoAssignAlerts').schema.default,
        true,
      )
      const created = op.responses['201'].content['application/json'].schema
      for (const field of ['id', 'checkType', 'alertChannels', 'created_at', 'updated_at']) {
        assert.ok(created.properties[field], field)
      }
    } finally {
      await t.close()
    }
  })
})
