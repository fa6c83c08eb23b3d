import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { getCACertificates, setDefaultCACertificates, type TLSSocket } from 'node:tls'
import { selfSignedCertificate } from '../testing/certificate.ts'
import { listenOnLoopback } from '../testing/loopback.ts'
import type { RunnerContext } from '../types.ts'
import { type HttpJob, runHttpCheck } from './run-http-check.ts'

const ctx: RunnerContext = { now: () => new Date() }

function handler(request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://x')
  if (url.pathname === '/json') {
    response.setHeader('content-type', 'application/json')
    response.setHeader('x-served-by', 'test')
    return response.end(JSON.stringify({ status: 'ok', items: [1, 2, 3], query: url.searchParams.get('q') }))
  }
  if (url.pathname === '/page') {
    response.setHeader('content-type', 'text/html')
    return response.end(`<html>${'x'.repeat(70 * 1024)}<p>Checkout ready</p></html>`)
  }
  if (url.pathname === '/catalog') {
    response.setHeader('content-type', 'application/json')
    const items = Array.from({ length: 20_000 }, (_, id) => ({ id, name: `item ${id}` }))
    return response.end(JSON.stringify({ items }))
  }
  if (url.pathname === '/huge') {
    // 21 MiB in 1 MiB chunks, no Content-Length: only reading it tells it is too large.
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    let sent = 0
    const more = () => {
      while (sent < 21 && !response.destroyed) {
        sent++
        if (!response.write(chunk)) return void response.once('drain', more)
      }
      response.end()
    }
    return more()
  }
  if (url.pathname === '/cut') {
    // Promises 100 bytes, sends 10, hangs up.
    response.setHeader('content-length', '100')
    response.write('0123456789')
    return setTimeout(() => request.socket.destroy(), 20)
  }
  if (url.pathname === '/fail') {
    response.statusCode = 500
    return response.end('boom')
  }
  if (url.pathname === '/slow') {
    return setTimeout(() => response.end('late'), Number(url.searchParams.get('ms') ?? 300))
  }
  if (url.pathname === '/redirect') {
    response.statusCode = 302
    response.setHeader('location', '/json')
    return response.end()
  }
  if (url.pathname === '/loop') {
    response.statusCode = 302
    response.setHeader('location', '/loop')
    return response.end()
  }
  if (url.pathname === '/see-other' || url.pathname === '/found') {
    response.statusCode = url.pathname === '/see-other' ? 303 : 302
    response.setHeader('location', '/echo')
    return response.end()
  }
  if (url.pathname === '/elsewhere') {
    // The same server under another host name: another origin to the client.
    response.statusCode = 302
    response.setHeader('location', `http://localhost:${request.socket.localPort}/echo`)
    return response.end()
  }
  if (url.pathname === '/echo') {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      response.setHeader('content-type', 'application/json')
      response.end(
        JSON.stringify({ method: request.method, url: request.url, body, headers: request.headers }),
      )
    })
    return
  }
  response.statusCode = 404
  response.end()
}

async function listen(server: Server): Promise<number> {
  return (await listenOnLoopback(server)).port
}

function job(url: string, extra: Partial<HttpJob> = {}, request: Partial<HttpJob['request']> = {}): HttpJob {
  return {
    checkType: 'API',
    request: { method: 'GET', url, ...request },
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
    shouldFail: false,
    ...extra,
  }
}

describe('URL and API checks against local HTTP and HTTPS servers', () => {
  const http = createServer(handler)
  let base = ''
  let httpsBase = ''
  let https: Server
  before(async () => {
    base = `http://127.0.0.1:${await listen(http)}`
    https = createHttpsServer(selfSignedCertificate(), handler)
    httpsBase = `https://localhost:${await listen(https)}`
  })
  after(() => {
    http.close()
    https.close()
  })

  test('a passing API check with assertions, measured phases and the response', async () => {
    const result = await runHttpCheck(
      job(
        `${base}/json`,
        {},
        {
          queryParameters: [{ key: 'q', value: 'a b' }],
          assertions: [
            { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
            { source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'ok' },
            { source: 'JSON_BODY', property: '$.query', comparison: 'EQUALS', target: 'a b' },
            { source: 'HEADERS', property: 'X-Served-By', comparison: 'EQUALS', target: 'test' },
            { source: 'TEXT_BODY', comparison: 'CONTAINS', target: '"items"' },
            { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '20000' },
          ],
        },
      ),
      ctx,
    )
    assert.equal(result.hasFailures, false, JSON.stringify(result.error))
    assert.equal(result.error, null)
    assert.equal(result.checkResult.response?.status, 200)
    assert.equal(result.checkResult.response?.statusText, 'OK')
    assert.deepEqual(
      result.checkResult.assertions.map((a) => a.passed),
      [true, true, true, true, true, true],
    )
    const phases = result.checkResult.timingPhases
    assert.ok(phases.total > 0)
    assert.ok(phases.tcp > 0, 'a fresh connection is measured')
    assert.equal(phases.tls, 0)
    for (const phase of [phases.dns, phases.tcp, phases.firstByte, phases.download])
      assert.ok(phase <= phases.total)
    // responseTime is the total rounded to whole ms, phases.total to 0.01 ms: 53.497 gives 53 and 53.5.
    assert.ok(
      Math.abs(result.responseTime - phases.total) <= 0.5,
      `${result.responseTime} vs ${phases.total}`,
    )
  })

  test('a failing assertion and a 5xx fail with ASSERTION; shouldFail inverts the verdict', async () => {
    const assertion = await runHttpCheck(
      job(
        `${base}/json`,
        {},
        { assertions: [{ source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'down' }] },
      ),
      ctx,
    )
    assert.equal(assertion.hasFailures, true)
    assert.equal(assertion.hasErrors, false)
    assert.equal(assertion.error?.type, 'ASSERTION')
    assert.match(assertion.error?.message ?? '', /JSON_BODY \$\.status EQUALS "down", got "ok"/)

    const url = await runHttpCheck({ ...job(`${base}/fail`), checkType: 'URL' }, ctx)
    assert.equal(url.hasFailures, true)
    assert.equal(url.checkResult.response?.status, 500)
    const inverted = await runHttpCheck({ ...job(`${base}/fail`), checkType: 'URL', shouldFail: true }, ctx)
    assert.equal(inverted.hasFailures, false)
  })

  test('degraded, over the max response time, and timed out', async () => {
    const degraded = await runHttpCheck(job(`${base}/slow?ms=150`, { degradedResponseTime: 50 }), ctx)
    assert.deepEqual([degraded.hasFailures, degraded.isDegraded], [false, true])
    const timeout = await runHttpCheck(
      job(`${base}/slow?ms=2000`, { degradedResponseTime: 100, maxResponseTime: 300 }),
      ctx,
    )
    assert.equal(timeout.hasFailures, true)
    assert.equal(timeout.error?.type, 'TIMEOUT')
    assert.equal(timeout.overMaxResponseTime, true)
  })

  test('a run that fails keeps the phases measured before the failure', async () => {
    const timeout = await runHttpCheck(
      job(`${base}/slow?ms=2000`, { degradedResponseTime: 100, maxResponseTime: 300 }),
      ctx,
    )
    assert.equal(timeout.error?.type, 'TIMEOUT')
    const phases = timeout.checkResult.timingPhases
    assert.ok(phases.tcp > 0, 'connected: the server, not the network, was slow')
    assert.deepEqual([phases.firstByte, phases.download], [0, 0])
    assert.ok(phases.total >= 300)
    const broken = await runHttpCheck(job(`${httpsBase}/json`), ctx)
    assert.equal(broken.error?.type, 'NETWORK_ERROR')
    assert.ok(broken.checkResult.timingPhases.tcp > 0, 'connected, then TLS failed')
  })

  test('redirects are followed (or not), and loops stop', async () => {
    const followed = await runHttpCheck(job(`${base}/redirect`), ctx)
    assert.equal(followed.checkResult.response?.status, 200)
    const kept = await runHttpCheck(job(`${base}/redirect`, {}, { followRedirects: false }), ctx)
    assert.equal(kept.checkResult.response?.status, 302)
    const loop = await runHttpCheck(job(`${base}/loop`), ctx)
    assert.equal(loop.error?.type, 'NETWORK_ERROR')
    assert.match(loop.error?.message ?? '', /More than 10 redirects/)
  })

  test('a 303, or a 301/302 answering a POST, is followed with a GET without the body', async () => {
    const post = { method: 'POST', body: '{"a":1}', bodyType: 'JSON' } as const
    const seeOther = await runHttpCheck(job(`${base}/see-other`, {}, { ...post, method: 'PUT' }), ctx)
    const afterSeeOther = JSON.parse(seeOther.checkResult.response?.body ?? '{}')
    assert.deepEqual([afterSeeOther.method, afterSeeOther.body], ['GET', ''])
    assert.equal(afterSeeOther.headers['content-type'], undefined)
    const found = await runHttpCheck(job(`${base}/found`, {}, post), ctx)
    assert.deepEqual(
      [JSON.parse(found.checkResult.response?.body ?? '{}').method, found.checkResult.request.method],
      ['GET', 'POST'],
    )
    // A 302 answering a PUT keeps the method and body (only POST is rewritten, as fetch and curl do).
    const put = await runHttpCheck(job(`${base}/found`, {}, { ...post, method: 'PUT' }), ctx)
    const afterPut = JSON.parse(put.checkResult.response?.body ?? '{}')
    assert.deepEqual([afterPut.method, afterPut.body], ['PUT', '{"a":1}'])
  })

  test('credentials are not sent on to another host a redirect names; other headers are', async () => {
    const request = {
      basicAuth: { username: 'ada', password: 'pw' },
      headers: [
        { key: 'Cookie', value: 'session=s1' },
        { key: 'X-Trace', value: 't1' },
      ],
    }
    const elsewhere = await runHttpCheck(job(`${base}/elsewhere`, {}, request), ctx)
    const headers = JSON.parse(elsewhere.checkResult.response?.body ?? '{}').headers
    assert.equal(headers.host, `localhost:${new URL(base).port}`)
    assert.deepEqual(
      [headers.authorization, headers.cookie, headers['x-trace']],
      [undefined, undefined, 't1'],
    )
    const same = await runHttpCheck(job(`${base}/found`, {}, request), ctx)
    const sameHeaders = JSON.parse(same.checkResult.response?.body ?? '{}').headers
    assert.equal(sameHeaders.authorization, `Basic ${Buffer.from('ada:pw').toString('base64')}`)
    assert.equal(sameHeaders.cookie, 'session=s1')
  })

  test('HEADERS HAS_KEY and NOT_HAS_KEY name headers in any case', async () => {
    const result = await runHttpCheck(
      job(
        `${base}/json`,
        {},
        {
          assertions: [
            { source: 'HEADERS', comparison: 'HAS_KEY', target: 'X-Served-By' },
            { source: 'HEADERS', comparison: 'NOT_HAS_KEY', target: 'X-Served-By' },
            { source: 'HEADERS', comparison: 'NOT_HAS_KEY', target: 'X-Powered-By' },
          ],
        },
      ),
      ctx,
    )
    assert.deepEqual(
      result.checkResult.assertions.map((a) => [a.target, a.passed]),
      [
        ['X-Served-By', true],
        ['X-Served-By', false],
        ['X-Powered-By', true],
      ],
    )
  })

  test('JSON_BODY assertions on a body that is not JSON fail and say so, whatever the comparison', async () => {
    const result = await runHttpCheck(
      job(
        `${base}/fail`,
        {},
        {
          assertions: [
            { source: 'JSON_BODY', property: '$.error', comparison: 'IS_NULL' },
            { source: 'JSON_BODY', property: '$.status', comparison: 'NOT_EQUALS', target: 'down' },
          ],
        },
      ),
      ctx,
    )
    assert.deepEqual(
      result.checkResult.assertions.map((a) => [a.passed, a.error]),
      [
        [false, 'The response body is not JSON'],
        [false, 'The response body is not JSON'],
      ],
    )
    assert.deepEqual(result.error, {
      type: 'ASSERTION',
      message: 'Assertion on JSON_BODY $.error could not be evaluated: The response body is not JSON',
    })
  })

  test('TEXT_BODY assertions read the whole body; the outcome keeps its first 64 KiB', async () => {
    const result = await runHttpCheck(
      job(
        `${base}/page`,
        {},
        {
          assertions: [
            { source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'Checkout ready' },
            { source: 'TEXT_BODY', comparison: 'NOT_CONTAINS', target: 'Checkout ready' },
          ],
        },
      ),
      ctx,
    )
    assert.deepEqual(
      result.checkResult.assertions.map((a) => a.passed),
      [true, false],
    )
    assert.equal(result.checkResult.response?.body.length, 64 * 1024)
    assert.equal(result.checkResult.assertions[0]?.actual, `${result.checkResult.response?.body}…`)
  })

  test('a result and its error message stay small when an assertion reads a large part of the body', async () => {
    const result = await runHttpCheck(
      job(
        `${base}/catalog`,
        {},
        {
          assertions: [
            { source: 'JSON_BODY', property: '$', comparison: 'NOT_EMPTY' },
            { source: 'JSON_BODY', property: '$.items[*].id', comparison: 'HAS_VALUE', target: '-1' },
          ],
        },
      ),
      ctx,
    )
    assert.deepEqual(
      result.checkResult.assertions.map((a) => a.passed),
      [true, false],
    )
    // The body is ~600 KB: each outcome keeps the first 64 KiB of its JSON text.
    assert.deepEqual(
      result.checkResult.assertions.map((a) => (a.actual as string).length),
      [64 * 1024 + 1, 64 * 1024 + 1],
    )
    const message = result.error?.message ?? ''
    assert.ok(
      message.startsWith('Assertion failed: JSON_BODY $.items[*].id HAS_VALUE "-1", got "[0,1,2,'),
      message,
    )
    assert.ok(message.length <= 300 && message.endsWith('…'), `${message.length} characters`)
  })

  test('a body over 20 MB fails the run; one cut short is a network error', async () => {
    const huge = await runHttpCheck(job(`${base}/huge`), ctx)
    assert.deepEqual(huge.error, {
      type: 'NETWORK_ERROR',
      message: 'BODY_TOO_LARGE: Response body over 20 MB',
    })
    assert.equal(huge.checkResult.response, null)
    const cut = await runHttpCheck(job(`${base}/cut`), ctx)
    assert.deepEqual(cut.error, { type: 'NETWORK_ERROR', message: 'Connection reset: other side closed' })
    assert.ok(cut.checkResult.timingPhases.firstByte > 0, 'the headers came')
  })

  test('bodies, headers and basic auth are sent', async () => {
    const result = await runHttpCheck(
      job(
        `${base}/echo`,
        {},
        {
          method: 'POST',
          body: '{"a":1}',
          bodyType: 'JSON',
          headers: [{ key: 'X-Trace', value: 't1' }],
          basicAuth: { username: 'ada', password: 'pw' },
        },
      ),
      ctx,
    )
    const echoed = JSON.parse(result.checkResult.response?.body ?? '{}')
    assert.equal(echoed.method, 'POST')
    assert.equal(echoed.body, '{"a":1}')
    assert.equal(echoed.headers['content-type'], 'application/json')
    assert.equal(echoed.headers['x-trace'], 't1')
    assert.equal(echoed.headers.authorization, `Basic ${Buffer.from('ada:pw').toString('base64')}`)
  })

  test('query parameters are added to a URL that has a query, which is sent as written', async () => {
    const result = await runHttpCheck(
      job(`${base}/echo?x=a%20b&flag&s=1+2`, {}, { queryParameters: [{ key: 'q', value: 'c d' }] }),
      ctx,
    )
    assert.equal(JSON.parse(result.checkResult.response?.body ?? '{}').url, '/echo?x=a%20b&flag&s=1+2&q=c+d')
    assert.equal(result.checkResult.request.url, `${base}/echo?x=a%20b&flag&s=1+2&q=c+d`)
    const plain = await runHttpCheck(
      job(`${base}/echo`, {}, { queryParameters: [{ key: 'q', value: '&' }] }),
      ctx,
    )
    assert.equal(JSON.parse(plain.checkResult.response?.body ?? '{}').url, '/echo?q=%26')
    const untouched = await runHttpCheck(job(`${base}/echo?x=a%20b&flag`), ctx)
    assert.equal(JSON.parse(untouched.checkResult.response?.body ?? '{}').url, '/echo?x=a%20b&flag')
  })

  test('basicAuth with an empty username and password sends no authorization header', async () => {
    const result = await runHttpCheck(
      job(`${base}/echo`, {}, { basicAuth: { username: '', password: '' } }),
      ctx,
    )
    assert.equal(JSON.parse(result.checkResult.response?.body ?? '{}').headers.authorization, undefined)
    assert.equal(result.checkResult.request.headers.authorization, undefined)
  })

  test('TLS: a self-signed certificate is a NETWORK_ERROR unless skipSSL; its expiry is read', async () => {
    const strict = await runHttpCheck(job(`${httpsBase}/json`), ctx)
    assert.equal(strict.error?.type, 'NETWORK_ERROR')
    assert.match(strict.error?.message ?? '', /TLS error|self.signed/i)
    const skipped = await runHttpCheck(job(`${httpsBase}/json`, {}, { skipSSL: true }), ctx)
    assert.equal(skipped.hasFailures, false, JSON.stringify(skipped.error))
    assert.ok(skipped.checkResult.timingPhases.tls > 0)
    assert.equal(skipped.checkResult.tls?.subject, 'localhost')
    assert.ok([29, 30].includes(skipped.checkResult.tls?.daysRemaining ?? -1))
  })

  test('every HTTPS run makes a full TLS handshake: no session is resumed from an earlier check', async () => {
    const resumed: boolean[] = []
    const onSecure = (socket: TLSSocket) => resumed.push(socket.isSessionReused())
    https.on('secureConnection', onSecure)
    try {
      for (let run = 0; run < 3; run++) {
        const result = await runHttpCheck(job(`${httpsBase}/json`, {}, { skipSSL: true }), ctx)
        assert.equal(result.hasFailures, false, JSON.stringify(result.error))
      }
    } finally {
      https.off('secureConnection', onSecure)
    }
    assert.deepEqual(resumed, [false, false, false])
  })

  test('a URL that does not parse (a space, a variable value) is a failed result, not a thrown error', async () => {
    const result = await runHttpCheck(job('http://exa mple.com/health'), ctx)
    assert.deepEqual(result.error, {
      type: 'NETWORK_ERROR',
      message: 'Invalid URL: http://exa mple.com/health',
    })
    assert.deepEqual([result.hasFailures, result.checkResult.response], [true, null])
    assert.deepEqual(result.checkResult.request, {
      method: 'GET',
      url: 'http://exa mple.com/health',
      headers: {},
    })
  })

  test('refused connections and DNS failures are NETWORK_ERRORs', async () => {
    const closed = createServer()
    const port = await listen(closed)
    closed.close()
    const refused = await runHttpCheck(job(`http://127.0.0.1:${port}/`), ctx)
    assert.equal(refused.error?.type, 'NETWORK_ERROR')
    assert.match(refused.error?.message ?? '', /Connection refused/)
    assert.equal(refused.hasErrors, true)

    const failingLookup: RunnerContext = {
      now: () => new Date(),
      lookup: (hostname, _options, callback) =>
        process.nextTick(() =>
          (callback as (e: Error) => void)(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
          ),
        ),
    }
    const dns = await runHttpCheck(job('http://does-not-exist.svc.test/'), failingLookup)
    assert.equal(dns.error?.type, 'NETWORK_ERROR')
    assert.match(dns.error?.message ?? '', /DNS lookup failed/)
  })

  test('shouldFail passes an error status and fails a success, but no response (refused, DNS, timeout, TLS) still fails', async () => {
    const inverted = (url: string, extra: Partial<HttpJob> = {}) =>
      ({ ...job(url, { shouldFail: true, ...extra }), checkType: 'URL' }) as HttpJob
    const error = await runHttpCheck(inverted(`${base}/fail`), ctx)
    assert.deepEqual([error.hasFailures, error.checkResult.response?.status], [false, 500])
    const ok = await runHttpCheck(inverted(`${base}/json`), ctx)
    assert.deepEqual([ok.hasFailures, ok.error], [true, null])

    const closed = createServer()
    const port = await listen(closed)
    closed.close()
    const refused = await runHttpCheck(inverted(`http://127.0.0.1:${port}/`), ctx)
    assert.equal(refused.hasFailures, true)
    assert.equal(refused.hasErrors, true)
    assert.equal(refused.error?.type, 'NETWORK_ERROR')
    assert.match(refused.error?.message ?? '', /Connection refused/)
    assert.equal(refused.checkResult.response, null)

    const failingLookup: RunnerContext = {
      now: () => new Date(),
      lookup: (hostname, _options, callback) =>
        process.nextTick(() =>
          (callback as (e: Error) => void)(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
          ),
        ),
    }
    const dns = await runHttpCheck(inverted('http://does-not-exist.svc.test/'), failingLookup)
    assert.equal(dns.hasFailures, true)
    assert.match(dns.error?.message ?? '', /DNS lookup failed/)

    const timeout = await runHttpCheck(
      inverted(`${base}/slow?ms=2000`, { degradedResponseTime: 100, maxResponseTime: 300 }),
      ctx,
    )
    assert.deepEqual([timeout.hasFailures, timeout.error?.type], [true, 'TIMEOUT'])

    // A self-signed certificate nobody trusts: the TLS handshake fails before any response.
    const untrusted = await runHttpCheck(inverted(`${httpsBase}/fail`), ctx)
    assert.equal(untrusted.hasFailures, true)
    assert.equal(untrusted.error?.type, 'NETWORK_ERROR')
    assert.match(untrusted.error?.message ?? '', /TLS error|self.signed/i)
    assert.equal(untrusted.checkResult.response, null)
  })
})

/** `YYYYMMDDHHMMSSZ`, the date form `openssl ca -startdate/-enddate` takes. */
function opensslDate(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace(/[-:T]/g, '')}Z`
}

/**
 * A throwaway CA and a localhost certificate it signed whose validity ended at `notAfter`.
 * `req -x509` can't backdate on OpenSSL 3.0; `openssl ca` with explicit dates can.
 */
function expiredCertificate(notAfter: Date): { ca: string; key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-expired-'))
  try {
    const file = (name: string) => join(dir, name)
    writeFileSync(file('index.txt'), '')
    writeFileSync(file('serial'), '01\n')
    writeFileSync(
      file('ca.cnf'),
      [
        '[ca]',
        'default_ca = test',
        '[test]',
        `database = ${file('index.txt')}`,
        `serial = ${file('serial')}`,
        `new_certs_dir = ${dir}`,
        'default_md = sha256',
        'policy = any',
        'x509_extensions = leaf',
        'unique_subject = no',
        '[any]',
        'commonName = supplied',
        '[leaf]',
        'basicConstraints = CA:FALSE',
        'subjectAltName = DNS:localhost,IP:127.0.0.1',
        '',
      ].join('\n'),
    )
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' })
    const subject = (cn: string) => ['-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`]
    openssl(
      'req',
      '-x509',
      ...subject('svc test CA'),
      '-days',
      '2',
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
    )
    openssl('req', '-new', ...subject('localhost'), '-keyout', file('key.pem'), '-out', file('leaf.csr'))
    const notBefore = new Date(notAfter.getTime() - 30 * 86_400_000)
    openssl(
      'ca',
      '-batch',
      '-notext',
      '-config',
      file('ca.cnf'),
      '-cert',
      file('ca.pem'),
      '-keyfile',
      file('ca.key'),
      '-in',
      file('leaf.csr'),
      '-out',
      file('cert.pem'),
      '-startdate',
      opensslDate(notBefore),
      '-enddate',
      opensslDate(notAfter),
    )
    const read = (name: string) => readFileSync(file(name), 'utf8')
    return { ca: read('ca.pem'), key: read('key.pem'), cert: read('cert.pem') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('an HTTPS target whose certificate expired', () => {
  // Whole seconds: certificates carry no milliseconds.
  const notAfter = new Date(Math.floor(Date.now() / 1000) * 1000 - 10 * 86_400_000)
  const systemCAs = getCACertificates('default')
  let server: Server
  let url = ''
  before(async () => {
    const { ca, key, cert } = expiredCertificate(notAfter)
    // Trust the test CA, so the only thing wrong with the certificate is its age.
    setDefaultCACertificates([...systemCAs, ca])
    server = createHttpsServer({ key, cert }, handler)
    url = `https://localhost:${await listen(server)}/json`
  })
  after(() => {
    setDefaultCACertificates(systemCAs)
    server.close()
  })

  test('is a NETWORK_ERROR saying the certificate expired', async () => {
    const result = await runHttpCheck(job(url), ctx)
    assert.equal(result.hasFailures, true)
    assert.equal(result.hasErrors, true)
    assert.equal(result.error?.type, 'NETWORK_ERROR')
    assert.match(result.error?.message ?? '', /CERT_HAS_EXPIRED/)
    assert.match(result.error?.message ?? '', /certificate has expired/)
    assert.equal(result.checkResult.response, null)
  })

  test('passes with skipSSL and reports the expiry as negative days remaining', async () => {
    const tenDaysAfter: RunnerContext = { now: () => new Date(notAfter.getTime() + 10 * 86_400_000) }
    const result = await runHttpCheck(job(url, {}, { skipSSL: true }), tenDaysAfter)
    assert.equal(result.hasFailures, false, JSON.stringify(result.error))
    assert.equal(result.checkResult.response?.status, 200)
    assert.deepEqual(result.checkResult.tls, {
      subject: 'localhost',
      issuer: 'svc test CA',
      validTo: notAfter.toISOString(),
      daysRemaining: -10,
    })
    const realClock = await runHttpCheck(job(url, {}, { skipSSL: true }), ctx)
    assert.equal(realClock.checkResult.tls?.daysRemaining, -11, 'expired 10 days and a few ms ago')
  })
})
