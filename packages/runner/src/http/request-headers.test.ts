import assert from 'node:assert/strict'
import type { IncomingHttpHeaders } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { startHeaderRecorder } from '../testing/header-recorder.ts'
import { startHttp2Server } from '../testing/http2-server.ts'
import { HEADERS_REFUSED_AT_SAVE } from '../testing/refused-headers.ts'
import type { RunnerContext } from '../types.ts'
import { type HttpJob, runHttpCheck } from './run-http-check.ts'

const ctx: RunnerContext = { now: () => new Date() }

const LEFT_OUT = [
  'keep-alive',
  'upgrade',
  'transfer-encoding',
  'expect',
  'proxy-connection',
  'http2-settings',
  'te',
]

function post(url: string, headers: { key: string; value: string }[]): HttpJob {
  return {
    checkType: 'API',
    request: { method: 'POST', url, headers, body: '{"order":1}', bodyType: 'JSON' },
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
    shouldFail: false,
  }
}

let http1: Awaited<ReturnType<typeof startHeaderRecorder>>
let http2: Awaited<ReturnType<typeof startHttp2Server>>
before(async () => {
  http1 = await startHeaderRecorder()
  http2 = await startHttp2Server()
})
after(async () => {
  await http1.close()
  await http2.close()
})

describe('request headers a save refuses, in a check stored before the rule', () => {
  function assertLeftOut(headers: IncomingHttpHeaders | Record<string, string>) {
    assert.equal(headers['x-team'], 'ops')
    for (const name of LEFT_OUT) assert.equal(headers[name], undefined, name)
  }

  test('are left out: the run passes against HTTP/1 and HTTP/2 targets, and its request shows what went', async () => {
    const headers = [{ key: 'X-Team', value: 'ops' }, ...HEADERS_REFUSED_AT_SAVE]
    http1.received.length = 0
    http2.received.length = 0
    const overHttp1 = await runHttpCheck(post(`${http1.url}/orders`, headers), ctx)
    assert.equal(overHttp1.error, null)
    assert.equal(http1.received.length, 1)
    assertLeftOut(http1.received[0]?.headers ?? {})
    assert.equal(http1.received[0]?.headers['content-length'], '11')
    assert.equal(http1.received[0]?.body, '{"order":1}')
    assertLeftOut(overHttp1.checkResult.request.headers)

    const overHttp2 = await runHttpCheck(post(`${http2.url}/orders`, headers), ctx)
    assert.equal(overHttp2.error, null)
    assert.equal(http2.received.length, 1)
    assertLeftOut(http2.received[0]?.headers ?? {})
    assert.equal(http2.received[0]?.body, '{"order":1}')
    assertLeftOut(overHttp2.checkResult.request.headers)
  })

  test('TE: trailers goes in the one form HTTP/2 takes, however it was written', async () => {
    http2.received.length = 0
    const run = await runHttpCheck(post(`${http2.url}/orders`, [{ key: 'TE', value: ' Trailers ' }]), ctx)
    assert.equal(run.error, null)
    assert.equal(http2.received[0]?.headers.te, 'trailers')
  })

  test('a header name that is no HTTP token fails the run naming it; nothing is sent', async () => {
    http1.received.length = 0
    const run = await runHttpCheck(
      post(`${http1.url}/orders`, [
        { key: 'X-Team', value: 'ops' },
        { key: 'Authorization:', value: 'Bearer t0ken' },
      ]),
      ctx,
    )
    assert.equal(run.hasFailures, true)
    assert.deepEqual(run.error, {
      type: 'NETWORK_ERROR',
      message:
        "Request header Authorization: can't be set: a header name is an HTTP token (letters, digits and " +
        "!#$%&'*+-.^_`|~)",
    })
    assert.equal(http1.received.length, 0)
  })
})

describe('header values HTTP carries only as bytes', () => {
  /** Node hands header bytes over as Latin-1 text. */
  const utf8 = (text: unknown) => Buffer.from(String(text), 'latin1').toString('utf8')

  test('values go as their UTF-8 bytes (Latin-1 text too) to HTTP/1 and HTTP/2 targets; the result shows them as given', async () => {
    const headers = [
      { key: 'X-Price', value: '5 €' },
      { key: 'X-Check', value: 'Café ✓' },
      { key: 'X-City', value: 'Zürich' },
    ]
    http1.received.length = 0
    http2.received.length = 0
    for (const url of [`${http1.url}/orders`, `${http2.url}/orders`]) {
      const run = await runHttpCheck(post(url, headers), ctx)
      assert.equal(run.error, null, url)
      assert.equal(run.checkResult.request.headers['x-price'], '5 €')
      assert.equal(run.checkResult.request.headers['x-check'], 'Café ✓')
      assert.equal(run.checkResult.request.headers['x-city'], 'Zürich')
    }
    for (const got of [http1.received[0]?.headers, http2.received[0]?.headers]) {
      assert.equal(utf8(got?.['x-price']), '5 €')
      assert.equal(utf8(got?.['x-check']), 'Café ✓')
      // Latin-1 text alone too: the same bytes whatever else the value holds.
      assert.equal(utf8(got?.['x-city']), 'Zürich')
    }
  })

  test('a control character (from a variable, or stored before the rule) fails the run naming the header; nothing is sent', async () => {
    for (const value of ['Bearer t0ken\n', 'a\r\nX-Injected: 1', 'a\u0000b', 'a\u0007b']) {
      http1.received.length = 0
      const run = await runHttpCheck(
        post(`${http1.url}/orders`, [
          { key: 'X-Team', value: 'ops' },
          { key: 'Authorization', value },
        ]),
        ctx,
      )
      assert.equal(run.hasFailures, true)
      assert.deepEqual(run.error, {
        type: 'NETWORK_ERROR',
        message:
          "Request header Authorization can't be sent: its value holds a control character (such as a " +
          "line break or NUL), which HTTP can't carry in a header (a tab can)",
      })
      assert.equal(http1.received.length, 0)
    }
    const tabbed = await runHttpCheck(post(`${http1.url}/orders`, [{ key: 'X-Note', value: 'a\tb' }]), ctx)
    assert.equal(tabbed.error, null)
    assert.equal(http1.received[0]?.headers['x-note'], 'a\tb')
  })
})
