import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { startHttp2Server } from '../testing/http2-server.ts'
import type { RunnerContext } from '../types.ts'
import { type HttpJob, runHttpCheck } from './run-http-check.ts'

const ctx: RunnerContext = { now: () => new Date() }

/** Headers a save refuses (400); a check stored before that rule may still carry them. */
const REFUSED = [
  { key: 'Keep-Alive', value: 'timeout=5' },
  { key: 'Upgrade', value: 'websocket' },
  { key: 'Transfer-Encoding', value: 'chunked' },
  { key: 'Content-Length', value: '0' },
  { key: 'Expect', value: '100-continue' },
  { key: 'Proxy-Connection', value: 'keep-alive' },
  { key: 'HTTP2-Settings', value: 'AAMAAABkAARAAAAAAAIAAAAA' },
  { key: 'TE', value: 'gzip' },
  { key: 'Connection', value: 'close, X-Foo' },
]
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

describe('request headers a save refuses, in a check stored before the rule', () => {
  const received: { headers: IncomingHttpHeaders; body: string }[] = []
  const http1 = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      received.push({ headers: request.headers, body })
      response.end('thanks')
    })
  })
  let http1Url = ''
  let http2: Awaited<ReturnType<typeof startHttp2Server>>
  before(async () => {
    await new Promise<void>((done) => http1.listen(0, '127.0.0.1', done))
    http1Url = `http://127.0.0.1:${(http1.address() as AddressInfo).port}`
    http2 = await startHttp2Server()
  })
  after(async () => {
    http1.close()
    await http2.close()
  })

  function assertLeftOut(headers: IncomingHttpHeaders | Record<string, string>) {
    assert.equal(headers['x-team'], 'ops')
    for (const name of LEFT_OUT) assert.equal(headers[name], undefined, name)
  }

  test('are left out: the run passes against HTTP/1 and HTTP/2 targets, and its request shows what went', async () => {
    const headers = [{ key: 'X-Team', value: 'ops' }, ...REFUSED]
    received.length = 0
    const overHttp1 = await runHttpCheck(post(`${http1Url}/orders`, headers), ctx)
    assert.equal(overHttp1.error, null)
    assert.equal(received.length, 1)
    assertLeftOut(received[0]?.headers ?? {})
    assert.equal(received[0]?.headers['content-length'], '11')
    assert.equal(received[0]?.body, '{"order":1}')
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
    received.length = 0
    const run = await runHttpCheck(
      post(`${http1Url}/orders`, [
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
    assert.equal(received.length, 0)
  })
})
