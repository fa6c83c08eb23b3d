import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { startHeaderRecorder, startHttp2Server } from '@svc/runner/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

const HTTP2_REFUSES = 'svc speaks HTTP/2 to servers that offer it, and HTTP/2 refuses'

/** Every header svc's HTTP client can't send as written: [key, value, the 400's field, its message]. */
const REFUSED: [string, string, 'key' | 'value', string][] = [
  ...['Content-Length', 'transfer-encoding', 'Expect', 'Keep-Alive', 'UPGRADE'].map(
    (key): [string, string, 'key', string] => [
      key,
      '5',
      'key',
      `${key} can't be set: svc frames each request itself`,
    ],
  ),
  ...['Proxy-Connection', 'HTTP2-Settings'].map((key): [string, string, 'key', string] => [
    key,
    'keep-alive',
    'key',
    `${key} can't be set: ${HTTP2_REFUSES} connection-specific headers: every request to one would fail`,
  ]),
  ...['gzip', 'trailers, deflate', '{{TE}}'].map((value): [string, string, 'value', string] => [
    'TE',
    value,
    'value',
    `TE may only be trailers: ${HTTP2_REFUSES} any other TE: every request to one would fail`,
  ]),
  ...['Upgrade', 'close, X-Foo'].map((value): [string, string, 'value', string] => [
    'Connection',
    value,
    'value',
    "Connection may only be close or keep-alive: svc's HTTP client manages connections itself, sends one " +
      'of these two and drops any other connection option, so this value would not be sent as written',
  ]),
  [
    'X Team',
    'ops',
    'key',
    "X Team can't be set: a header name is an HTTP token (letters, digits and !#$%&'*+-.^_`|~)",
  ],
]

for (const engine of testEngines()) {
  describe(`API check request headers on ${engine.engine}`, () => {
    let t: TestApp
    let http1: Awaited<ReturnType<typeof startHeaderRecorder>>
    let http2: Awaited<ReturnType<typeof startHttp2Server>>
    before(async () => {
      http1 = await startHeaderRecorder()
      http2 = await startHttp2Server()
      t = await createTestApp(engine)
    })
    after(async () => {
      await t.close()
      await http1.close()
      await http2.close()
    })

    const apiCheck = (headers: { key: string; value: string }[], url = 'https://api.example.com/health') => ({
      name: 'Orders API',
      activated: false,
      request: { url, method: 'POST', headers },
    })

    test('a header that could never be sent as written is a 400 naming it, on create, replace and merge', async () => {
      const created = await t.call({ method: 'POST', url: '/v1/checks/api', payload: apiCheck([]) })
      assert.equal(created.statusCode, 201, created.body)
      const id = json(created).id as string
      for (const [key, value, field, message] of REFUSED) {
        const headers = [
          { key: 'X-Team', value: 'ops' },
          { key, value },
        ]
        const calls = [
          { method: 'POST' as const, url: '/v1/checks/api', payload: apiCheck(headers) },
          { method: 'PUT' as const, url: `/v1/checks/api/${id}`, payload: apiCheck(headers) },
          {
            method: 'PUT' as const,
            url: `/v1/checks/${id}`,
            payload: { request: apiCheck(headers).request },
          },
        ]
        for (const call of calls) {
          const res = await t.call(call)
          assert.equal(res.statusCode, 400, `${call.method} ${call.url} ${key}: ${value}: ${res.body}`)
          assert.deepEqual(json(res).attributes.errors, [
            { path: `body.request.headers.1.${field}`, message },
          ])
        }
      }
      const stored = json(await t.call({ method: 'GET', url: `/v1/checks/${id}` }))
      assert.deepEqual(stored.request.headers, [], 'no refused save changed the check')
    })

    test('a value with a control character is a 400 naming the header, on create, replace and merge', async () => {
      const created = await t.call({ method: 'POST', url: '/v1/checks/api', payload: apiCheck([]) })
      assert.equal(created.statusCode, 201, created.body)
      const id = json(created).id as string
      for (const value of ['Bearer t0ken\n', 'a\r\nX-Injected: 1', 'a\u0007b', '{{TOKEN}}\u007f']) {
        const headers = [
          { key: 'X-Team', value: 'ops' },
          { key: 'Authorization', value },
        ]
        for (const call of [
          { method: 'POST' as const, url: '/v1/checks/api', payload: apiCheck(headers) },
          { method: 'PUT' as const, url: `/v1/checks/api/${id}`, payload: apiCheck(headers) },
          {
            method: 'PUT' as const,
            url: `/v1/checks/${id}`,
            payload: { request: apiCheck(headers).request },
          },
        ]) {
          const res = await t.call(call)
          assert.equal(
            res.statusCode,
            400,
            `${call.method} ${call.url} ${JSON.stringify(value)}: ${res.body}`,
          )
          assert.deepEqual(json(res).attributes.errors, [
            {
              path: 'body.request.headers.1.value',
              message:
                "Authorization can't be sent: its value holds a control character (such as a line break or " +
                "NUL), which HTTP can't carry in a header (a tab can)",
            },
          ])
        }
      }
      const stored = json(await t.call({ method: 'GET', url: `/v1/checks/${id}` }))
      assert.deepEqual(stored.request.headers, [], 'no refused save changed the check')
    })

    test('values beyond Latin-1, as written or from variables, go as UTF-8 bytes; a control character from a variable fails the run naming the header', async () => {
      for (const [key, value] of [
        ['PRICE_LABEL', '5 €'],
        ['MULTILINE_TOKEN', 't0ken\r\nX-Injected: 1'],
      ]) {
        const res = await t.call({ method: 'POST', url: '/v1/variables', payload: { key, value } })
        assert.equal(res.statusCode, 201, res.body)
      }
      // Node hands header bytes over as Latin-1 text.
      const utf8 = (text: unknown) => Buffer.from(String(text), 'latin1').toString('utf8')
      for (const url of [`${http1.url}/orders`, `${http2.url}/orders`]) {
        const headers = [
          { key: 'X-Check', value: 'Café ✓' },
          { key: 'X-Price', value: '{{PRICE_LABEL}}' },
          { key: 'X-Tab', value: 'a\tb' },
        ]
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/api',
          payload: apiCheck(headers, url),
        })
        assert.equal(created.statusCode, 201, created.body)
        http1.received.length = 0
        http2.received.length = 0
        const run = await t.call({ method: 'POST', url: `/v1/checks/${json(created).id}/trigger` })
        assert.equal(run.statusCode, 200, run.body)
        assert.equal(json(run).hasFailures, false, `${url}: ${run.body}`)
        const got = (url.startsWith('https') ? http2 : http1).received.map((r) => r.headers)
        assert.equal(got.length, 1, url)
        assert.equal(utf8(got[0]?.['x-check']), 'Café ✓')
        assert.equal(utf8(got[0]?.['x-price']), '5 €')
        assert.equal(got[0]?.['x-tab'], 'a\tb')
        const shown = json(run).apiCheckResult.request.headers as Record<string, string>
        assert.deepEqual([shown['x-check'], shown['x-price']], ['Café ✓', '5 €'])

        const multiline = await t.call({
          method: 'POST',
          url: '/v1/checks/api',
          payload: apiCheck([{ key: 'Authorization', value: 'Bearer {{MULTILINE_TOKEN}}' }], url),
        })
        assert.equal(multiline.statusCode, 201, multiline.body)
        http1.received.length = 0
        http2.received.length = 0
        const failed = json(await t.call({ method: 'POST', url: `/v1/checks/${json(multiline).id}/trigger` }))
        assert.equal(failed.hasFailures, true)
        assert.equal(
          failed.error?.message,
          "Request header Authorization can't be sent: its value holds a control character (such as a line " +
            "break or NUL), which HTTP can't carry in a header (a tab can)",
        )
        assert.equal(http1.received.length + http2.received.length, 0, 'nothing is sent')
      }
    })

    test('Host, Connection close or keep-alive, TE trailers and a name from a variable save', async () => {
      const headers = [
        { key: 'Host', value: 'orders.example.com' },
        { key: 'Connection', value: ' Close ' },
        { key: 'connection', value: 'keep-alive' },
        { key: 'TE', value: 'Trailers' },
        // Judged when the run fills it in: the runner fails a name that is no token, naming it.
        { key: '{{HEADER_NAME}}', value: 'v' },
      ]
      const res = await t.call({ method: 'POST', url: '/v1/checks/api', payload: apiCheck(headers) })
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(
        json(res).request.headers.map((h: { key: string; value: string }) => [h.key, h.value]),
        headers.map((h) => [h.key, h.value]),
      )
    })

    test('a check stored with them before the rule runs without them against HTTP/1 and HTTP/2 targets', async () => {
      const legacy = REFUSED.filter(([key]) => key !== 'X Team').map(([key, value]) => ({
        key,
        value: key === 'Content-Length' ? '0' : value,
      }))
      for (const url of [`${http1.url}/orders`, `${http2.url}/orders`]) {
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/api',
          payload: { ...apiCheck([{ key: 'X-Team', value: 'ops' }], url), activated: true },
        })
        assert.equal(created.statusCode, 201, created.body)
        const id = json(created).id as string
        // As an older version stored it: no save-time rule looked at its headers.
        const row = await t.store.db
          .selectFrom('checks')
          .select('definition')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
        const definition = JSON.parse(row.definition)
        definition.request.headers.push(...legacy.map((h) => ({ ...h, locked: false })))
        await t.store.db
          .updateTable('checks')
          .set({ definition: JSON.stringify(definition) })
          .where('id', '=', id)
          .execute()

        http1.received.length = 0
        http2.received.length = 0
        const run = await t.call({ method: 'POST', url: `/v1/checks/${id}/trigger` })
        assert.equal(run.statusCode, 200, run.body)
        const result = json(run)
        assert.equal(result.hasFailures, false, `${url}: ${run.body}`)
        const got = (url.startsWith('https') ? http2 : http1).received.map((r) => r.headers)
        assert.equal(got.length, 1, url)
        const sent = result.apiCheckResult.request.headers as Record<string, string>
        for (const headers of [got[0] ?? {}, sent]) {
          assert.equal(headers['x-team'], 'ops')
          for (const name of ['transfer-encoding', 'expect', 'keep-alive', 'upgrade', 'proxy-connection'])
            assert.equal(headers[name], undefined, `${url} ${name}`)
          assert.equal(headers['http2-settings'], undefined, url)
          assert.equal(headers.te, undefined, url)
        }
        assert.equal(sent['content-length'], undefined)
      }
    })
  })
}
