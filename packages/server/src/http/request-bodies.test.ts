import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { InjectOptions } from 'fastify'
import {
  type ApiOperation,
  apiOperations,
  jsonBodySchema,
  validPathValue,
} from '../testing/api-operations.ts'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../testing/test-app.ts'

/**
 * Routes of API keys and the admin token: open routes and agents take bodies of their own, and signing
 * in, out and setting a password act on a password or a session (sign-out without one is 401 first).
 */
const keyed = (op: ApiOperation) =>
  !/^\/(status|ping|agent)\//.test(op.path) && !op.path.startsWith('/v1/auth/') && !isTriggerUrl(op.path)
/** Trigger URLs take what a CI tool or a webhook posts to them, as pings do: they ignore the body. */
const isTriggerUrl = (path: string) => /^\/v1\/triggers\/[^/]+\/[^/]+\/run$/.test(path)

for (const engine of testEngines()) {
  describe(`request bodies on ${engine.engine}`, () => {
    let t: TestApp
    const operations: ApiOperation[] = []
    before(async () => {
      t = await createTestApp(engine)
      operations.push(...(await apiOperations(t)))
    })
    after(() => t.close())

    const send = (op: ApiOperation, options: Omit<InjectOptions, 'method' | 'url'>) => {
      let url = op.path
      for (const param of op.parameters.filter((p) => p.in === 'path')) {
        url = url.replace(`{${param.name}}`, validPathValue(param.schema))
      }
      const request = { ...options, method: op.method as InjectOptions['method'], url }
      if (!op.admin) return t.call(request)
      return t.app.inject({
        ...request,
        headers: { ...options.headers, authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      })
    }

    test('every keyed route that takes no body refuses one, naming its fields, before it acts', async () => {
      const bodiless = operations.filter(
        (op) => keyed(op) && !op.requestBody && !['GET', 'HEAD'].includes(op.method),
      )
      assert.ok(bodiless.length >= 20, `${bodiless.length} operations take no body`)
      for (const op of bodiless) {
        const where = `${op.method} ${op.path}`
        const res = await send(op, { payload: { unexpected: true, reason: 'x' } })
        assert.equal(res.statusCode, 400, `${where}: ${res.body}`)
        assert.deepEqual(
          json(res),
          {
            statusCode: 400,
            error: 'Bad Request',
            message: 'body.unexpected is not allowed: this route takes no body',
            attributes: {
              errors: [
                { path: 'body.unexpected', message: 'is not allowed' },
                { path: 'body.reason', message: 'is not allowed' },
              ],
            },
          },
          where,
        )
      }
    })

    test('what clients send on a body-less route that means no body still works', async () => {
      const variable = (key: string) =>
        t.call({ method: 'POST', url: '/v1/variables', payload: { key, value: 'v' } })
      const forms: [string, Omit<InjectOptions, 'method' | 'url'>][] = [
        ['nothing', {}],
        ['an empty JSON body', { headers: { 'content-type': 'application/json' }, payload: '' }],
        [
          'a JSON body of only whitespace',
          { headers: { 'content-type': 'application/json' }, payload: '  \n\t\r\n' },
        ],
        ['{}', { payload: {} }],
        ['null', { headers: { 'content-type': 'application/json' }, payload: 'null' }],
        ['an empty text body', { headers: { 'content-type': 'text/plain' }, payload: '' }],
      ]
      for (const [index, [label, options]] of forms.entries()) {
        const key = `NO_BODY_${index}`
        assert.equal((await variable(key)).statusCode, 201)
        const res = await t.call({ method: 'DELETE', url: `/v1/variables/${key}`, ...options })
        assert.equal(res.statusCode, 204, `${label}: ${res.body}`)
        assert.equal((await t.call({ method: 'GET', url: `/v1/variables/${key}` })).statusCode, 404, label)
      }

      // A route that needs a body answers whitespace as it answers an empty body: its 400 naming `body`.
      const needing = async (payload: string) =>
        t.call({
          method: 'POST',
          url: '/v1/variables',
          headers: { 'content-type': 'application/json' },
          payload,
        })
      const empty = await needing('')
      assert.equal(empty.statusCode, 400, empty.body)
      assert.match(json(empty).message, /^body/)
      const blank = await needing(' \n ')
      assert.equal(blank.statusCode, 400, blank.body)
      assert.deepEqual(json(blank), json(empty))

      assert.equal((await variable('KEPT')).statusCode, 201)
      const refusals: [string, Omit<InjectOptions, 'method' | 'url'>][] = [
        ['a text body', { headers: { 'content-type': 'text/plain' }, payload: 'please' }],
        ['an array', { payload: [] as unknown as object }],
        ['a number', { headers: { 'content-type': 'application/json' }, payload: '0' }],
        ['a string', { headers: { 'content-type': 'application/json' }, payload: '"x"' }],
      ]
      for (const [label, options] of refusals) {
        const res = await t.call({ method: 'DELETE', url: '/v1/variables/KEPT', ...options })
        assert.equal(res.statusCode, 400, `${label}: ${res.body}`)
        assert.deepEqual(
          json(res),
          {
            statusCode: 400,
            error: 'Bad Request',
            message: 'body must be empty: this route takes no body',
            attributes: { errors: [{ path: 'body', message: 'must be empty: this route takes no body' }] },
          },
          label,
        )
      }
      const kept = await t.call({ method: 'GET', url: '/v1/variables/KEPT' })
      assert.equal(kept.statusCode, 200, 'a refused DELETE deletes nothing')
      assert.equal(json(kept).key, 'KEPT')

      // Open routes keep taking what their clients send (a cron job's output on a ping).
      const ping = await t.call({
        method: 'POST',
        url: '/ping/unknown-token',
        as: null,
        headers: { 'content-type': 'text/plain' },
        payload: 'backup done',
      })
      assert.equal(ping.statusCode, 404, ping.body)
      assert.equal(json(ping).message.includes('body'), false)
    })

    test('the document marks a body required exactly when the server refuses a request without one', async () => {
      // Uploads take bytes, not JSON: a JSON body is a 415 there (stored-files.test.ts).
      const withBody = operations.filter((op) => keyed(op) && jsonBodySchema(op))
      assert.ok(withBody.length >= 40, `${withBody.length} operations take a body`)
      const optional: string[] = []
      for (const op of withBody) {
        const where = `${op.method} ${op.path}`
        const res = await send(op, {})
        const refused =
          res.statusCode === 400 &&
          json(res).attributes?.errors?.some((e: { path: string }) => e.path === 'body')
        assert.equal(op.requestBody?.required, refused, `${where}: ${res.statusCode} ${res.body}`)
        if (!refused) optional.push(where)
      }
      // An analysis may come with context; a session's cancel may name the runs it stops.
      assert.deepEqual(optional, [
        'POST /v1/root-cause-analyses/error-groups/{errorGroupId}',
        'POST /v1/test-sessions/{testSessionId}/cancel',
        'POST /v1/check-sessions/{checkSessionId}/cancel',
      ])
    })

    test('ids in bodies name their resources in either case, as ids in paths do', async () => {
      const ok = async (method: 'POST' | 'PUT', url: string, payload: object, status = 201) => {
        const res = await t.call({ method, url, payload })
        assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`)
        return json(res)
      }
      const up = (id: string) => id.toUpperCase()
      const check = await ok('POST', '/v1/checks/url', {
        name: 'site',
        activated: false,
        request: { url: 'https://site.test' },
      })
      const service = await ok(
        'POST',
        '/v1/status-pages/services',
        { name: 'API', checkIds: [up(check.id)] },
        200,
      )
      assert.deepEqual(service.checkIds, [check.id])
      const page = await ok('POST', '/v3/status-pages', {
        name: 'Acme',
        url: 'acme-body-uuids',
        cards: [{ name: 'All', services: [{ id: up(service.id) }] }],
      })
      assert.equal(page.cards[0].services[0].id, service.id)
      const incident = await ok('POST', `/v3/status-pages/${page.id}/incidents`, {
        name: 'Outage',
        incidentUpdates: [{ description: 'Looking', status: 'INVESTIGATING' }],
        componentImpacts: [{ componentId: up(service.id), status: 'MAJOR_OUTAGE' }],
      })
      assert.equal(incident.componentImpacts[0].componentId, service.id)

      const triggering = await ok('POST', '/v1/checks/url', {
        name: 'site with incidents',
        activated: false,
        request: { url: 'https://site.test' },
        triggerIncident: {
          serviceId: up(service.id),
          severity: 'MAJOR',
          name: 'Site down',
          description: 'The site is down',
          notifySubscribers: false,
        },
      })
      assert.equal(triggering.triggerIncident.serviceId, service.id)

      const channel = await ok('POST', '/v1/alert-channels', {
        type: 'EMAIL',
        config: { address: 'ops@example.com' },
      })
      const subscribed = await ok(
        'PUT',
        `/v1/alert-channels/${channel.id}/subscriptions`,
        { checkId: up(check.id), activated: true },
        200,
      )
      assert.equal(subscribed.checkId, check.id)

      const user = json(
        await t.app.inject({
          method: 'POST',
          url: '/admin/v1/users',
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          payload: { email: 'upper@example.com', name: 'Upper' },
        }),
      )
      const membership = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/memberships',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { userId: up(user.id), accountId: up(t.owner.accountId), role: 'READ_ONLY' },
      })
      assert.equal(membership.statusCode, 201, membership.body)
      assert.deepEqual([json(membership).userId, json(membership).accountId], [user.id, t.owner.accountId])

      // Strings that only look like ids are kept as sent.
      const variable = await ok('POST', '/v1/variables', { key: 'UPPER_ID', value: up(check.id) })
      assert.equal(variable.value, up(check.id))
    })
  })
}
