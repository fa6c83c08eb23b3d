import assert from 'node:assert/strict'
import { createServer, request as httpRequest, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { selfSignedCertificate } from '../testing/certificate.ts'
import { listenOnLoopback } from '../testing/loopback.ts'
import { proxyFor } from './proxy.ts'
import { type HttpJob, runHttpCheck } from './run-http-check.ts'

test('proxyFor: HTTPS_PROXY falls back to HTTP_PROXY; NO_PROXY hosts, suffixes, ports and * bypass', () => {
  const http = 'http://proxy:3128'
  const pick = (url: string, noProxy = '', httpsProxy = '') =>
    proxyFor(new URL(url), { httpProxy: http, httpsProxy, noProxy })?.host ?? null
  assert.equal(pick('http://a.example/'), 'proxy:3128')
  assert.equal(pick('https://a.example/'), 'proxy:3128')
  assert.equal(pick('https://a.example/', '', 'http://secure:8080'), 'secure:8080')
  assert.equal(
    pick('http://a.example/', 'xample'),
    'proxy:3128',
    'a name matches itself and its subdomains only',
  )
  for (const noProxy of ['a.example', '.example', '*.example', 'other, example', 'a.example:80', '*'])
    assert.equal(pick('http://a.example/', noProxy), null, noProxy)
  assert.equal(pick('http://a.example:8080/', 'a.example:80'), 'proxy:3128')
  assert.equal(pick('http://127.0.0.1:9/', '127.0.0.1'), null)
  assert.equal(pick('http://[::1]:9/', '::1'), null)
  assert.equal(proxyFor(new URL('http://a.example/'), undefined), null)
  assert.equal(proxyFor(new URL('http://a.example/'), { httpsProxy: 'http://secure:1' }), null)
})

function job(url: string, request: Partial<HttpJob['request']> = {}): HttpJob {
  return {
    checkType: 'API',
    request: { method: 'GET', url, ...request },
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
    shouldFail: false,
  }
}

describe('URL and API checks through a forward proxy', () => {
  const seen: { kind: 'absolute' | 'connect'; target: string; auth: string | undefined }[] = []
  let refuseTunnels = false
  const handler = (
    request: import('node:http').IncomingMessage,
    response: import('node:http').ServerResponse,
  ) => response.end(`hello ${request.headers.host}`)
  const http = createServer(handler)
  let https: Server
  const proxy = createServer((request, response) => {
    seen.push({ kind: 'absolute', target: request.url ?? '', auth: request.headers['proxy-authorization'] })
    const target = new URL(request.url ?? '')
    const headers = { ...request.headers }
    delete headers['proxy-authorization']
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      },
    )
    request.pipe(upstream)
  })
  proxy.on('connect', (request, socket, head) => {
    seen.push({ kind: 'connect', target: request.url ?? '', auth: request.headers['proxy-authorization'] })
    if (refuseTunnels) {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n')
      return
    }
    const [host, port] = (request.url ?? '').split(':')
    const upstream = connect(Number(port), host === 'localhost' ? '127.0.0.1' : (host ?? ''), () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  let base = ''
  let httpsBase = ''
  let proxyUrl = ''
  const ctx = (noProxy = '', credentials = '') => ({
    now: () => new Date(),
    proxy: { httpProxy: proxyUrl.replace('http://', `http://${credentials}`), noProxy },
  })
  before(async () => {
    const listen = async (server: Server) => {
      return (await listenOnLoopback(server)).port
    }
    https = createHttpsServer(selfSignedCertificate(), handler)
    base = `http://127.0.0.1:${await listen(http)}`
    httpsBase = `https://localhost:${await listen(https)}`
    proxyUrl = `http://127.0.0.1:${await listen(proxy)}`
  })
  after(() => {
    for (const server of [http, https, proxy]) {
      server.closeAllConnections()
      server.close()
    }
  })

  test('an http:// target is asked of the proxy in absolute form, with the proxy’s credentials', async () => {
    seen.length = 0
    const result = await runHttpCheck(job(`${base}/x?y=1`), ctx('', 'ada:pa%24s@'))
    assert.equal(result.hasFailures, false, JSON.stringify(result.error))
    assert.equal(result.checkResult.response?.body, `hello ${new URL(base).host}`)
    assert.equal(result.checkResult.request.url, `${base}/x?y=1`)
    assert.deepEqual(seen, [
      {
        kind: 'absolute',
        target: `${base}/x?y=1`,
        auth: `Basic ${Buffer.from('ada:pa$s').toString('base64')}`,
      },
    ])
    assert.equal(result.checkResult.request.headers['proxy-authorization'], undefined, 'not in the result')
  })

  test('an https:// target gets TLS inside a CONNECT tunnel; its certificate is read', async () => {
    seen.length = 0
    const strict = await runHttpCheck(job(`${httpsBase}/`), ctx())
    assert.equal(strict.error?.type, 'NETWORK_ERROR', 'the self-signed certificate is still checked')
    const result = await runHttpCheck(job(`${httpsBase}/`, { skipSSL: true }), ctx())
    assert.equal(result.hasFailures, false, JSON.stringify(result.error))
    assert.equal(result.checkResult.response?.body, `hello ${new URL(httpsBase).host}`)
    assert.equal(result.checkResult.tls?.subject, 'localhost')
    assert.deepEqual(
      seen.map((s) => [s.kind, s.target]),
      [
        ['connect', new URL(httpsBase).host],
        ['connect', new URL(httpsBase).host],
      ],
    )
  })

  test('NO_PROXY targets go direct; a refused tunnel is a network error', async () => {
    seen.length = 0
    const direct = await runHttpCheck(job(`${base}/`), ctx('127.0.0.1'))
    assert.equal(direct.hasFailures, false)
    assert.deepEqual(seen, [])
    refuseTunnels = true
    try {
      const refused = await runHttpCheck(job(`${httpsBase}/`, { skipSSL: true }), ctx())
      assert.equal(refused.error?.type, 'NETWORK_ERROR')
      assert.match(refused.error?.message ?? '', /The proxy refused the tunnel to localhost:\d+ \(HTTP 403\)/)
    } finally {
      refuseTunnels = false
    }
  })
})
