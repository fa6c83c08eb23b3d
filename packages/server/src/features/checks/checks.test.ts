import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { LightMyRequestResponse } from 'fastify'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

const SCRIPT = "const { test, expect } = require('@playwright/test')\ntest('home', async ({ page }) => {})"

const MINIMAL_BODIES: Record<string, object> = {
  api: { name: 'API', request: { url: 'https://api.example.com/health', method: 'GET' } },
  url: { name: 'URL', request: { url: 'https://example.com' } },
  tcp: { name: 'TCP', request: { hostname: 'db.example.com', port: 5432 } },
  dns: { name: 'DNS', request: { query: 'example.com', recordType: 'A' } },
  icmp: { name: 'ICMP', request: { hostname: 'example.com' } },
  heartbeat: {
    name: 'Nightly job',
    heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
  },
  browser: { name: 'Browser', script: SCRIPT },
  multistep: { name: 'Multi', script: SCRIPT },
  automation: {
    name: 'Suite',
    dependencies: [
      { path: 'playwright.config.ts', content: 'export default {}' },
      { path: 'tests/a.spec.ts', content: SCRIPT },
    ],
  },
}

for (const engine of testEngines()) {
  describe(`checks API on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const create = (type: string, payload: object) =>
      t.call({ method: 'POST', url: `/v1/checks/${type}`, payload })

    test('POST /v1/checks/browser applies every spec default and answers the spec fields', async () => {
      const res = await create('browser', { name: 'Home page', script: SCRIPT })
      assert.equal(res.statusCode, 201)
      const check = json(res)
      assert.match(check.id, /^[0-9a-f-]{36}$/)
      assert.equal(check.checkType, 'BROWSER')
      assert.equal(check.name, 'Home page')
      assert.equal(check.script, SCRIPT)
      const defaults = {
        activated: true,
        muted: false,
        doubleCheck: true,
        shouldFail: false,
        useGlobalAlertSettings: true,
        runParallel: false,
        frequency: 10,
        locations: ['local'],
        privateLocations: [],
        tags: [],
        environmentVariables: [],
        alertChannelSubscriptions: [],
        groupId: null,
        groupOrder: null,
        retryStrategy: null,
        triggerIncident: null,
        runtimeId: null,
      }
      for (const [field, value] of Object.entries(defaults)) assert.deepEqual(check[field], value, field)
      assert.deepEqual(check.alertChannels, { email: [], webhook: [], slack: [], sms: [] })
      assert.equal(check.alertSettings.escalationType, 'RUN_BASED')
      assert.deepEqual(check.alertSettings.runBasedEscalation, { failedRunThreshold: 1 })
      assert.match(check.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      assert.match(check.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      assert.deepEqual(json(await t.call({ method: 'GET', url: `/v1/checks/${check.id}` })), check)
    })

    test('enforces the spec bounds with 400s naming the field', async () => {
      const cases: [object, string][] = [
        [{ frequency: 3 }, 'body.frequency'],
        [{ groupOrder: -1 }, 'body.groupOrder'],
        [{ runtimeId: '1999.01' }, 'body.runtimeId'],
        [{ unknownField: 1 }, 'body.unknownField'],
        [{ activated: 'yes' }, 'body.activated'],
        [{ locations: ['mars-1'] }, 'body.locations'],
        [{ locations: [] }, 'body.locations'],
        [{ groupId: 12345 }, 'body.groupId'],
        [{ groupId: 2147483648 }, 'body.groupId'],
        [{ groupOrder: 2147483648 }, 'body.groupOrder'],
        [{ tags: ['ok', 'nul\u0000'] }, 'body.tags.1'],
        [
          {
            triggerIncident: {
              serviceId: '6f1c0e2a-0000-4000-8000-000000000000',
              severity: 'CRITICAL',
              name: 'Checkout down',
              description: 'Investigating',
              notifySubscribers: false,
            },
          },
          'body.triggerIncident.serviceId',
        ],
        [
          { alertChannelSubscriptions: [{ alertChannelId: 2147483648, activated: true }] },
          'body.alertChannelSubscriptions.0.alertChannelId',
        ],
        [
          { alertChannelSubscriptions: [{ alertChannelId: 1, activated: true }] },
          'body.alertChannelSubscriptions',
        ],
        [
          { environmentVariables: Array.from({ length: 51 }, (_, i) => ({ key: `K${i}`, value: 'v' })) },
          'body.environmentVariables',
        ],
        [
          {
            environmentVariables: [
              { key: 'A', value: '1' },
              { key: 'A', value: '2' },
            ],
          },
          'body.environmentVariables',
        ],
      ]
      for (const [extra, path] of cases) {
        const res = await create('browser', { name: 'x', script: SCRIPT, ...extra })
        assert.equal(res.statusCode, 400, JSON.stringify(extra))
        assert.equal(json(res).attributes.errors[0].path, path, JSON.stringify(extra))
      }
      const fifty = Array.from({ length: 50 }, (_, i) => ({ key: `K${i}`, value: 'v' }))
      assert.equal(
        (await create('browser', { name: 'x', script: SCRIPT, environmentVariables: fifty })).statusCode,
        201,
      )
      assert.equal((await create('browser', { name: 'x' })).statusCode, 400)
      const service = json(
        await t.call({ method: 'POST', url: '/v1/status-pages/services', payload: { name: 'Checkout' } }),
      )
      const triggerIncident = {
        serviceId: service.id,
        severity: 'MAJOR',
        name: 'Checkout down',
        description: 'Investigating',
        notifySubscribers: false,
      }
      const withTrigger = await create('browser', { name: 'x', script: SCRIPT, triggerIncident })
      assert.equal(withTrigger.statusCode, 201, withTrigger.body)
      assert.deepEqual(json(withTrigger).triggerIncident, triggerIncident)
    })

    test('locked check variables are masked in responses and sealed in the store; masked values round-trip', async () => {
      const res = await create('browser', {
        name: 'With secrets',
        script: SCRIPT,
        environmentVariables: [
          { key: 'USER', value: 'ada' },
          { key: 'PASSWORD', value: 'hunter2', locked: true },
        ],
      })
      const check = json(res)
      assert.deepEqual(check.environmentVariables, [
        { key: 'USER', value: 'ada', locked: false, secret: false },
        { key: 'PASSWORD', value: '***masked***', locked: true, secret: false },
      ])
      const row = await t.store.db
        .selectFrom('checks')
        .select('definition')
        .where('id', '=', check.id)
        .executeTakeFirstOrThrow()
      assert.equal(row.definition.includes('hunter2'), false)

      const {
        id,
        checkType,
        alertChannels,
        warnings,
        projectBindings,
        created_at,
        updated_at,
        ...definition
      } = check
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/checks/browser/${id}`,
        payload: { ...definition, name: 'Renamed' },
      })
      assert.equal(renamed.statusCode, 200, renamed.body)
      const stored = await t.store.db
        .selectFrom('checks')
        .select('definition')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      const sealed = JSON.parse(stored.definition).environmentVariables[1].sealedValue
      assert.equal(t.ctx.secretBox.decrypt(sealed), 'hunter2')
    })

    test('a secret check variable stays secret: ***masked*** sent back as non-secret is 400, never its value', async () => {
      const check = json(
        await create('browser', {
          name: 'Secret',
          script: SCRIPT,
          environmentVariables: [{ key: 'TOKEN', value: 'sekrit-1', secret: true }],
        }),
      )
      const attempts = [
        { method: 'PUT', url: `/v1/checks/${check.id}`, variable: { key: 'TOKEN', value: '***masked***' } },
        {
          method: 'PUT',
          url: `/v1/checks/browser/${check.id}`,
          variable: { key: 'TOKEN', value: '***masked***', secret: false },
        },
        // A new value doesn't reveal the old one, but a secret stays a secret all the same.
        { method: 'PUT', url: `/v1/checks/${check.id}`, variable: { key: 'TOKEN', value: 'plain' } },
      ] as const
      for (const { method, url, variable } of attempts) {
        const res = await t.call({
          method,
          url,
          payload: { name: 'Secret', script: SCRIPT, environmentVariables: [variable] },
        })
        assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(variable)}: ${res.body}`)
        assert.equal(json(res).attributes.errors[0].path, 'body.environmentVariables.0.secret')
        assert.equal(res.body.includes('sekrit-1'), false)
      }
      const after = json(await t.call({ method: 'GET', url: `/v1/checks/${check.id}` }))
      assert.deepEqual(after.environmentVariables, [
        { key: 'TOKEN', value: '***masked***', locked: false, secret: true },
      ])
      // Kept as a secret, or dropped from the list, is fine.
      const kept = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { environmentVariables: [{ key: 'TOKEN', value: '***masked***', secret: true }] },
      })
      assert.equal(kept.statusCode, 200, kept.body)
      const dropped = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { environmentVariables: [] },
      })
      assert.deepEqual(json(dropped).environmentVariables, [])
    })

    test('creates every check type, with the heartbeat ping URL', async () => {
      for (const [type, body] of Object.entries(MINIMAL_BODIES)) {
        const res = await create(type, body)
        assert.equal(res.statusCode, 201, `${type}: ${res.body}`)
      }
      const api = json(await create('api', MINIMAL_BODIES.api!))
      assert.equal(api.checkType, 'API')
      assert.deepEqual(
        { ...api.request },
        {
          method: 'GET',
          url: 'https://api.example.com/health',
          headers: [],
          queryParameters: [],
          body: '',
          bodyType: 'NONE',
          followRedirects: true,
          skipSSL: false,
          ipFamily: 'IPv4',
          assertions: [],
        },
      )
      assert.equal(api.degradedResponseTime, 10000)
      assert.equal(api.maxResponseTime, 20000)
      const heartbeat = json(await create('heartbeat', MINIMAL_BODIES.heartbeat!))
      assert.equal(heartbeat.checkType, 'HEARTBEAT')
      assert.match(heartbeat.pingUrl, /^http:\/\/svc\.test\/ping\/[A-Za-z0-9_-]{24}$/)
      assert.equal(heartbeat.pingUrl, `http://svc.test/ping/${heartbeat.pingToken}`)
      assert.deepEqual(heartbeat.locations, [])
      const icmp = json(await create('icmp', MINIMAL_BODIES.icmp!))
      assert.deepEqual(
        [icmp.request.pingCount, icmp.degradedPacketLossThreshold, icmp.maxPacketLossThreshold],
        [10, 10, 20],
      )
      const regexCases: [object, string][] = [
        [
          { source: 'TEXT_BODY', comparison: 'MATCHES_REGEX', target: '(' },
          'body.request.assertions.0.target',
        ],
        [
          { source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'ok', regex: 'version: ([0-9' },
          'body.request.assertions.0.regex',
        ],
      ]
      for (const [assertion, path] of regexCases) {
        const res = await create('api', {
          name: 'x',
          request: { url: 'https://a.test', assertions: [assertion] },
        })
        assert.equal(res.statusCode, 400, res.body)
        assert.equal(json(res).attributes.errors[0].path, path)
        assert.match(json(res).message, /must be a valid regular expression/)
      }
      const goodRegexes = await create('api', {
        name: 'x',
        request: {
          url: 'https://a.test',
          assertions: [
            { source: 'TEXT_BODY', comparison: 'MATCHES_REGEX', target: '^ok \\d+$' },
            { source: 'TEXT_BODY', comparison: 'EQUALS', target: '3', regex: 'count: (\\d+)' },
            { source: 'TEXT_BODY', comparison: 'MATCHES_REGEX', target: '{{PATTERN}}(' },
            { source: 'TEXT_BODY', comparison: 'CONTAINS', target: '(' },
          ],
        },
      })
      assert.equal(goodRegexes.statusCode, 201, goodRegexes.body)
      const lossInverted = await create('icmp', {
        ...MINIMAL_BODIES.icmp,
        degradedPacketLossThreshold: 50,
        maxPacketLossThreshold: 20,
      })
      assert.equal(lossInverted.statusCode, 400, lossInverted.body)
      assert.equal(json(lossInverted).attributes.errors[0].path, 'body.degradedPacketLossThreshold')
      const lossEqual = await create('icmp', {
        ...MINIMAL_BODIES.icmp,
        degradedPacketLossThreshold: 30,
        maxPacketLossThreshold: 30,
      })
      assert.equal(lossEqual.statusCode, 201, lossEqual.body)
      const v4OverV6 = await create('icmp', {
        name: 'x',
        request: { hostname: '127.0.0.1', ipFamily: 'IPv6' },
      })
      assert.equal(v4OverV6.statusCode, 400, v4OverV6.body)
      assert.deepEqual(json(v4OverV6).attributes.errors, [
        { path: 'body.request.ipFamily', message: 'is IPv6 but hostname 127.0.0.1 is an IPv4 address' },
      ])
      const v6Default = await create('icmp', { name: 'x', request: { hostname: '::1' } })
      assert.equal(v6Default.statusCode, 201, 'an IPv6 address is pinged over IPv6 whatever the default says')
      const dns = json(await create('dns', MINIMAL_BODIES.dns!))
      assert.deepEqual([dns.request.port, dns.request.protocol], [53, 'UDP'])

      for (const [type, url] of [
        ['url', 'http:// bad url'],
        ['api', 'https://exa mple.com/'],
        ['api', 'https://example.com:99999/'],
      ]) {
        const bad = await create(type as string, { name: 'x', request: { url } })
        assert.equal(bad.statusCode, 400, `${type} ${url}: ${bad.body}`)
        assert.equal(json(bad).attributes.errors[0].path, 'body.request.url')
      }
      for (const nameServer of [
        '1.1.1.1',
        '1.1.1.1:53',
        '[::1]:5353',
        '[::1]',
        '::1',
        'ns1.example.com:5353',
        'dns.test.',
        '{{NS}}:{{NS_PORT}}',
      ]) {
        const res = await create('dns', {
          name: 'x',
          request: { query: 'example.com', recordType: 'A', nameServer },
        })
        assert.equal(res.statusCode, 201, `${nameServer}: ${res.body}`)
        assert.equal(json(res).request.nameServer, nameServer)
      }
      for (const nameServer of [
        'not a host',
        '1.1.1.1:99999',
        '1.1.1.1:0',
        '::1]:53',
        '[::1',
        '[1.1.1.1]:53',
        'a:b:c',
        'host:',
      ]) {
        const res = await create('dns', {
          name: 'x',
          request: { query: 'example.com', recordType: 'A', nameServer },
        })
        assert.equal(res.statusCode, 400, `${nameServer}: ${res.body}`)
        assert.equal(json(res).attributes.errors[0].path, 'body.request.nameServer')
      }
      const templated = await create('api', { name: 'x', request: { url: 'https://{{HOST}}:{{PORT}}/x' } })
      assert.equal(templated.statusCode, 201, 'a URL with variables is judged once they are filled in')

      const wrongSource = await create('tcp', {
        name: 'x',
        request: {
          hostname: 'h',
          port: 1,
          assertions: [{ source: 'JSON_BODY', comparison: 'EQUALS', target: '1' }],
        },
      })
      assert.equal(wrongSource.statusCode, 400)
      assert.equal(json(wrongSource).attributes.errors[0].path, 'body.request.assertions.0.source')
      const tooShort = await create('heartbeat', {
        name: 'x',
        heartbeat: { period: 10, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' },
      })
      assert.equal(json(tooShort).attributes.errors[0].path, 'body.heartbeat.period')
    })

    test('a script check that could never run is a 400 naming the field, on create and update', async () => {
      const refused = (res: LightMyRequestResponse, path: string, message: RegExp) => {
        assert.equal(res.statusCode, 400, res.body)
        const body = json(res)
        assert.equal(body.error, 'Bad Request')
        assert.equal(body.attributes.errors[0].path, path, res.body)
        assert.match(body.message, message)
        assert.equal(body.message.startsWith(`${path} `), true, body.message)
      }
      const config = { path: 'playwright.config.ts', content: 'export default {}' }
      const spec = { path: 'tests/a.spec.ts', content: SCRIPT }
      // Neither script nor files, or files without the config: every run would fail.
      await refused(
        await create('automation', { name: 'Suite' }),
        'body.dependencies',
        /playwright\.config\.ts/,
      )
      await refused(
        await create('automation', { name: 'Suite', script: '', dependencies: [] }),
        'body.dependencies',
        /playwright\.config\.ts/,
      )
      await refused(
        await create('automation', { name: 'Suite', dependencies: [spec] }),
        'body.playwrightConfigPath',
        /playwright\.config\.ts is not among them/,
      )
      await refused(
        await create('automation', { name: 'Suite', script: SCRIPT }),
        'body.playwrightConfigPath',
        /playwright\.config\.ts is not among them/,
      )
      await refused(
        await create('automation', {
          name: 'Suite',
          dependencies: [config, spec],
          playwrightConfigPath: 'e2e.config.ts',
        }),
        'body.playwrightConfigPath',
        /e2e\.config\.ts is not among them/,
      )
      await refused(
        await create('automation', {
          name: 'Suite',
          dependencies: [config, { path: '../escape.ts', content: '' }],
        }),
        'body.dependencies.1.path',
        /stays inside/,
      )
      // A grep Playwright can't read as a regular expression would fail every run.
      await refused(
        await create('automation', { name: 'Suite', dependencies: [config, spec], grep: '(unclosed' }),
        'body.grep',
        /^body\.grep must be a regular expression: Invalid regular expression: \/\(unclosed\/gi: Unterminated group$/,
      )
      // An empty or blank script is refused for browser and multi-step checks.
      for (const type of ['browser', 'multistep']) {
        await refused(await create(type, { name: 'x', script: '' }), 'body.script', /./)
        await refused(await create(type, { name: 'x', script: ' \n\t' }), 'body.script', /must not be blank/)
      }
      const ok = json(await create('automation', { name: 'Suite', dependencies: [config, spec] }))
      assert.equal(ok.checkType, 'AUTOMATION')
      assert.equal(ok.playwrightConfigPath, 'playwright.config.ts')
      const custom = await create('automation', {
        name: 'Suite',
        dependencies: [{ ...config, path: 'e2e.config.ts' }, spec],
        playwrightConfigPath: './e2e.config.ts',
      })
      assert.equal(custom.statusCode, 201, custom.body)

      // Typed and untyped updates merge onto the check, and are judged by the same rule.
      await refused(
        await t.call({
          method: 'PUT',
          url: `/v1/checks/automation/${ok.id}`,
          payload: { name: 'Suite', dependencies: [] },
        }),
        'body.dependencies',
        /playwright\.config\.ts/,
      )
      await refused(
        await t.call({ method: 'PUT', url: `/v1/checks/${ok.id}`, payload: { dependencies: [spec] } }),
        'body.playwrightConfigPath',
        /playwright\.config\.ts is not among them/,
      )
      await refused(
        await t.call({
          method: 'PUT',
          url: `/v1/checks/${ok.id}`,
          payload: { playwrightConfigPath: 'other.ts' },
        }),
        'body.playwrightConfigPath',
        /other\.ts is not among them/,
      )
      const stored = json(await t.call({ method: 'GET', url: `/v1/checks/${ok.id}` }))
      assert.deepEqual(stored.dependencies, [config, spec])
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/checks/${ok.id}`,
        payload: { name: 'Renamed' },
      })
      assert.equal(json(renamed).name, 'Renamed')
      const browser = json(await create('browser', { name: 'b', script: SCRIPT }))
      await refused(
        await t.call({ method: 'PUT', url: `/v1/checks/${browser.id}`, payload: { script: '  ' } }),
        'body.script',
        /must not be blank/,
      )
      await refused(
        await t.call({
          method: 'PUT',
          url: `/v1/checks/browser/${browser.id}`,
          payload: { name: 'b', script: '' },
        }),
        'body.script',
        /./,
      )
      assert.equal(json(await t.call({ method: 'GET', url: `/v1/checks/${browser.id}` })).script, SCRIPT)
    })

    test('heartbeat checks take locations and privateLocations, ignore them and say so in warnings', async () => {
      const place = await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'Basement', slugName: 'basement' },
      })
      assert.equal(place.statusCode, 201, place.body)
      const notice = (field: string, values: string) =>
        `Heartbeat checks don't run from locations (they are judged from their pings): ${field} ${values} ignored`
      const res = await create('heartbeat', {
        ...MINIMAL_BODIES.heartbeat,
        locations: ['local', 'eu-west-1', 'mars-1'],
        privateLocations: ['basement', 'nowhere'],
      })
      assert.equal(res.statusCode, 201, res.body)
      const check = json(res)
      assert.deepEqual([check.locations, check.privateLocations], [[], []])
      assert.deepEqual(check.warnings, [
        notice('locations', 'local, eu-west-1, mars-1'),
        notice('privateLocations', 'basement, nowhere'),
      ])
      // Nothing is stored: later reads have nothing to warn about.
      const read = json(await t.call({ method: 'GET', url: `/v1/checks/${check.id}` }))
      assert.deepEqual([read.locations, read.privateLocations, read.warnings], [[], [], []])

      const replaced = json(
        await t.call({
          method: 'PUT',
          url: `/v1/checks/heartbeat/${check.id}`,
          payload: { ...MINIMAL_BODIES.heartbeat, locations: ['local'] },
        }),
      )
      assert.deepEqual([replaced.locations, replaced.warnings], [[], [notice('locations', 'local')]])
      const merged = json(
        await t.call({
          method: 'PUT',
          url: `/v1/checks/${check.id}`,
          payload: { privateLocations: ['basement'] },
        }),
      )
      assert.deepEqual(
        [merged.privateLocations, merged.warnings],
        [[], [notice('privateLocations', 'basement')]],
      )
      const renamed = json(
        await t.call({ method: 'PUT', url: `/v1/checks/${check.id}`, payload: { name: 'Nightly' } }),
      )
      assert.deepEqual([renamed.name, renamed.locations, renamed.warnings], ['Nightly', [], []])
      const plain = json(await create('heartbeat', { ...MINIMAL_BODIES.heartbeat, locations: [] }))
      assert.deepEqual([plain.locations, plain.warnings], [[], []])
      // Other types still refuse what they can't run from.
      const url = await create('url', { ...MINIMAL_BODIES.url, locations: ['mars-1'] })
      assert.equal(json(url).attributes.errors[0].path, 'body.locations')
    })

    test('response-time limits: 30 s unless the account extends them to 45 s', async () => {
      const body = { ...MINIMAL_BODIES.api, maxResponseTime: 40_000 }
      assert.equal(json(await create('api', body)).attributes.errors[0].path, 'body.maxResponseTime')
      await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { extendedUptimeResponseTime: true } },
      })
      assert.equal((await create('api', body)).statusCode, 201)
      assert.equal((await create('api', { ...body, maxResponseTime: 45_001 })).statusCode, 400)
      for (const type of ['url', 'tcp']) {
        assert.equal(
          (await create(type, { ...MINIMAL_BODIES[type], maxResponseTime: 45_000 })).statusCode,
          201,
        )
      }
      // The spec extends TCP, API and URL checks only: a DNS check stays at 30 s.
      assert.equal((await create('dns', { ...MINIMAL_BODIES.dns, maxResponseTime: 30_000 })).statusCode, 201)
      const dns = await create('dns', { ...MINIMAL_BODIES.dns, maxResponseTime: 30_001 })
      assert.equal(dns.statusCode, 400, dns.body)
      assert.equal(json(dns).attributes.errors[0].path, 'body.maxResponseTime')
      const inverted = await create('api', {
        ...MINIMAL_BODIES.api,
        degradedResponseTime: 5000,
        maxResponseTime: 4000,
      })
      assert.equal(json(inverted).attributes.errors[0].path, 'body.degradedResponseTime')
    })

    test('a check named where another type is expected is a 400 saying which type it is, in plain English', async () => {
      const bodyOf = (type: string) => MINIMAL_BODIES[type] as object
      const api = json(await create('api', bodyOf('api'))).id as string
      const icmp = json(await create('icmp', bodyOf('icmp'))).id as string
      const url = json(await create('url', bodyOf('url'))).id as string
      const messageOf = async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) => {
        const answer = await t.call({ method, url: path, ...(payload ? { payload } : {}) })
        assert.equal(answer.statusCode, 400, answer.body)
        return json(answer).message as string
      }
      assert.equal(
        await messageOf('PUT', `/v1/checks/url/${api}`, bodyOf('url')),
        `Check ${api} is an API check, not URL`,
      )
      assert.equal(
        await messageOf('PUT', `/v1/checks/api/${icmp}`, bodyOf('api')),
        `Check ${icmp} is an ICMP check, not API`,
      )
      assert.equal(
        await messageOf('PUT', `/v1/checks/api/${url}`, bodyOf('api')),
        `Check ${url} is a URL check, not API`,
      )
      assert.equal(
        await messageOf('POST', `/v1/checks/${api}/cancel`),
        'Only AUTOMATION checks (Playwright check suites) can be cancelled; this is an API check',
      )
      assert.equal(
        await messageOf('GET', `/v1/analytics/url-monitors/${api}`),
        'params.id is an API check, not one of url-monitors (URL)',
      )
    })

    test('a URL monitor takes request.method GET (the hosted CLI sends it) and refuses any other', async () => {
      const withGet = await create('url', {
        name: 'Get',
        request: { url: 'https://shop.test', method: 'GET' },
      })
      assert.equal(withGet.statusCode, 201, withGet.body)
      assert.equal(json(withGet).request.url, 'https://shop.test')
      const lower = await create('url', { name: 'get', request: { url: 'https://shop.test', method: 'get' } })
      assert.equal(lower.statusCode, 201, lower.body)
      const post = await create('url', {
        name: 'Post',
        request: { url: 'https://shop.test', method: 'POST' },
      })
      assert.equal(post.statusCode, 400)
      assert.equal(json(post).attributes.errors[0].path, 'body.request.method')
      assert.match(json(post).message, /only sends GET.*API check/)
    })

    test('update, list with filters, delete', async () => {
      const a = json(
        await create('url', {
          name: 'Shop front',
          request: { url: 'https://shop.test' },
          tags: ['shop', 'prod'],
        }),
      )
      const b = json(
        await create('url', {
          name: 'Blog',
          request: { url: 'https://blog.test' },
          tags: ['prod'],
          activated: false,
        }),
      )

      const merged = await t.call({
        method: 'PUT',
        url: `/v1/checks/${a.id}`,
        payload: { frequency: 5, muted: true },
      })
      assert.equal(merged.statusCode, 200)
      assert.deepEqual(
        [json(merged).frequency, json(merged).muted, json(merged).name],
        [5, true, 'Shop front'],
      )
      const badMerge = await t.call({ method: 'PUT', url: `/v1/checks/${a.id}`, payload: { frequency: 7 } })
      assert.equal(json(badMerge).attributes.errors[0].path, 'body.frequency')
      const wrongType = await t.call({
        method: 'PUT',
        url: `/v1/checks/api/${a.id}`,
        payload: MINIMAL_BODIES.api,
      })
      assert.equal(wrongType.statusCode, 400)
      // A typed PUT is partial too (the hosted update schemas require nothing): the rest is kept.
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/checks/url/${a.id}`,
        payload: { name: 'Shop' },
      })
      assert.equal(renamed.statusCode, 200, renamed.body)
      const kept = json(renamed)
      assert.deepEqual(
        [kept.name, kept.frequency, kept.muted, kept.tags, kept.request.url],
        ['Shop', 5, true, ['shop', 'prod'], 'https://shop.test'],
      )
      const untagged = await t.call({ method: 'PUT', url: `/v1/checks/url/${a.id}`, payload: { tags: [] } })
      assert.deepEqual([json(untagged).name, json(untagged).tags], ['Shop', []])
      const badTyped = await t.call({
        method: 'PUT',
        url: `/v1/checks/url/${a.id}`,
        payload: { frequency: 7 },
      })
      assert.equal(json(badTyped).attributes.errors[0].path, 'body.frequency')
      const sameType = await t.call({
        method: 'PUT',
        url: `/v1/checks/${a.id}`,
        payload: { checkType: 'URL', muted: false },
      })
      assert.deepEqual([sameType.statusCode, json(sameType).muted], [200, false])
      const otherType = await t.call({
        method: 'PUT',
        url: `/v1/checks/${a.id}`,
        payload: { checkType: 'API' },
      })
      assert.equal(otherType.statusCode, 400)
      assert.equal(json(otherType).attributes.errors[0].path, 'body.checkType')

      const names = async (query: string) =>
        json(await t.call({ method: 'GET', url: `/v1/checks?limit=100&${query}` })).map(
          (c: { name: string }) => c.name,
        )
      assert.deepEqual(await names('tag=prod'), ['Blog'])
      assert.deepEqual(await names('activated=false'), ['Blog'])
      assert.deepEqual(await names('name=SHO'), ['Shop'])
      assert.ok((await names('checkType=URL')).includes('Shop'))
      const page = await t.call({ method: 'GET', url: '/v1/checks?checkType=URL&limit=1' })
      assert.match(String(page.headers['content-range']), /^items 0-0\/\d+$/)
      const pastOffsets = await t.call({ method: 'GET', url: '/v1/checks?page=99999999999999999999' })
      assert.equal(pastOffsets.statusCode, 400, pastOffsets.body)
      assert.equal(json(pastOffsets).attributes.errors[0].path, 'querystring.page')
      // PostgreSQL text holds no U+0000: a 400 naming where it is, on either store.
      const nulName = await create('url', { name: 'a\u0000b', request: { url: 'https://shop.test' } })
      assert.equal(json(nulName).attributes.errors[0].path, 'body.name')
      const nulQuery = await t.call({ method: 'GET', url: '/v1/checks?name=a%00b' })
      assert.equal(json(nulQuery).attributes.errors[0].path, 'querystring.name')
      const nulParam = await t.call({ method: 'GET', url: '/v1/variables/KEY%00' })
      assert.equal(json(nulParam).attributes.errors[0].path, 'params.key')
      const binary = await create('tcp', {
        name: 'binary protocol',
        request: { hostname: 'db.test', port: 5432, data: '\u0000\u0001hello' },
      })
      assert.equal(binary.statusCode, 201, binary.body)
      assert.equal(json(binary).request.data, '\u0000\u0001hello')
      const bigGroupId = await t.call({ method: 'GET', url: '/v1/checks?groupId=2147483648' })
      assert.equal(json(bigGroupId).attributes.errors[0].path, 'querystring.groupId')
      const farPage = await t.call({ method: 'GET', url: '/v1/checks?page=10000000&limit=100' })
      assert.deepEqual([farPage.statusCode, json(farPage)], [200, []])

      assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${b.id}` })).statusCode, 204)
      assert.equal((await t.call({ method: 'GET', url: `/v1/checks/${b.id}` })).statusCode, 404)
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${b.id}` })).statusCode, 404)
      assert.equal((await t.call({ method: 'GET', url: '/v1/checks/not-a-uuid' })).statusCode, 400)

      const reader = await t.addUser('READ_ONLY')
      assert.equal((await t.call({ method: 'GET', url: `/v1/checks/${a.id}`, as: reader })).statusCode, 200)
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/checks/${a.id}`, as: reader })).statusCode,
        403,
      )
    })
  })
}
