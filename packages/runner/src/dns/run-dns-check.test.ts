import assert from 'node:assert/strict'
import { createServer as createTcpServer, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import dns2 from 'dns2'
import { freePort } from '../testing/free-port.ts'
import { listenOnLoopback } from '../testing/loopback.ts'
import { type DnsJob, runDnsCheck } from './run-dns-check.ts'

const { Packet } = dns2
const ctx = { now: () => new Date() }

// HTTPS (RFC 9460, type 65) RDATA written byte by byte, as a name server sends it.
const HTTPS_TYPE = 65
const u16 = (value: number) => [value >> 8, value & 0xff]
const wireName = (name: string) => [
  ...name
    .split('.')
    .filter(Boolean)
    .flatMap((label) => [label.length, ...Buffer.from(label)]),
  0,
]
const param = (key: number, value: number[]) => [...u16(key), ...u16(value.length), ...value]
const ECH = Buffer.from('AEX+DQBBpQAgACB/ech-config-bytes', 'latin1')
const SERVICE_RDATA = Buffer.from([
  ...u16(1), // SvcPriority: ServiceMode
  ...wireName('.'),
  ...param(1, [2, ...Buffer.from('h2'), 2, ...Buffer.from('h3')]), // alpn
  ...param(3, u16(8443)), // port
  ...param(4, [104, 16, 132, 229, 104, 16, 133, 229]), // ipv4hint
  ...param(5, [...ECH]), // ech
  ...param(6, [0x26, 0x06, 0x47, 0x00, ...Array(8).fill(0), 0x68, 0x10, 0x84, 0xe5]), // ipv6hint
  ...param(65000, [1, ...Buffer.from('a"')]), // an unknown key
])
const ALIAS_RDATA = Buffer.from([...u16(0), ...wireName('pool.svc.test')])
/** A ServiceMode record for `big.test` whose ech is `size` bytes of `fill`. */
const bigHttpsRdata = (fill: number, size: number) =>
  Buffer.from([...u16(fill), ...wireName('cdn.svc.test'), ...param(5, Array(size).fill(fill))])

describe('DNS checks against a local DNS server over UDP and TCP', () => {
  let port = 0
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request)
      const [question] = request.questions
      const name = question?.name ?? ''
      // dns2 types answers as encodable Resources; plain records are what its server encodes.
      const answer = (record: object) => response.answers.push(record as (typeof response.answers)[number])
      if (name === 'broken.test') {
        response.header.rcode = Packet.RCODE.SERVFAIL
        return send(response)
      }
      if (name === 'big.test' && question?.type === HTTPS_TYPE) {
        // Four HTTPS records of 200-byte ECH configs: over 512 bytes, so UDP gets it truncated (TC).
        for (const fill of [1, 2, 3, 4])
          answer({ name, type: HTTPS_TYPE, class: Packet.CLASS.IN, ttl: 60, data: bigHttpsRdata(fill, 200) })
        return send(response)
      }
      if (name === 'alias.test') {
        answer({ name, type: HTTPS_TYPE, class: Packet.CLASS.IN, ttl: 30, data: ALIAS_RDATA })
        return send(response)
      }
      if (name === 'big.test') {
        // Four DKIM-sized TXT records: over the 512 bytes of a UDP answer, so UDP gets it truncated (TC).
        for (const key of ['a', 'b', 'c', 'd'])
          answer({
            name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 60,
            data: `p=${key.repeat(200)}`,
          })
        return send(response)
      }
      if (name !== 'svc.test') {
        response.header.rcode = Packet.RCODE.NXDOMAIN
        return send(response)
      }
      if (question?.type === Packet.TYPE.A) {
        answer({
          name,
          type: Packet.TYPE.A,
          class: Packet.CLASS.IN,
          ttl: 300,
          address: '10.1.2.3',
        })
      }
      if (question?.type === Packet.TYPE.TXT) {
        answer({
          name,
          type: Packet.TYPE.TXT,
          class: Packet.CLASS.IN,
          ttl: 60,
          data: 'v=spf1 -all',
        })
      }
      if (question?.type === Packet.TYPE.MX) {
        answer({
          name,
          type: Packet.TYPE.MX,
          class: Packet.CLASS.IN,
          ttl: 60,
          priority: 10,
          exchange: 'mail.svc.test',
        })
      }
      if (question?.type === HTTPS_TYPE) {
        // dns2 has no HTTPS codec: it writes a record's `data` bytes as its RDATA.
        answer({ name, type: HTTPS_TYPE, class: Packet.CLASS.IN, ttl: 300, data: SERVICE_RDATA })
      }
      if (question?.type === Packet.TYPE.CAA) {
        answer({
          name,
          type: Packet.TYPE.CAA,
          class: Packet.CLASS.IN,
          ttl: 60,
          flags: 0,
          tag: 'issue',
          value: 'letsencrypt.org',
        })
      }
      send(response)
    },
  })
  before(async () => {
    port = await freePort()
    await server.listen({ udp: { port, address: '127.0.0.1' }, tcp: { port, address: '127.0.0.1' } })
  })
  after(() => server.close())

  const job = (request: Partial<DnsJob['request']>, extra: Partial<DnsJob> = {}): DnsJob => ({
    request: { query: 'svc.test', recordType: 'A', nameServer: '127.0.0.1', port, ...request },
    degradedResponseTime: 1000,
    maxResponseTime: 2000,
    shouldFail: false,
    ...extra,
  })

  for (const protocol of ['UDP', 'TCP'] as const) {
    test(`A record over ${protocol} with assertions on code, text and JSON answers`, async () => {
      const result = await runDnsCheck(
        job({
          protocol,
          assertions: [
            { source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR' },
            { source: 'TEXT_ANSWER', comparison: 'CONTAINS', target: '10.1.2.3' },
            { source: 'JSON_ANSWER', property: '$[0].value', comparison: 'EQUALS', target: '10.1.2.3' },
            { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '2000' },
          ],
        }),
        ctx,
      )
      assert.equal(result.hasFailures, false, JSON.stringify(result.error))
      assert.equal(result.checkResult.protocol, protocol)
      assert.deepEqual(result.checkResult.answers, [
        { name: 'svc.test', type: 'A', ttl: 300, value: '10.1.2.3' },
      ])
    })
  }

  test('TXT and MX answers read as text', async () => {
    const txt = await runDnsCheck(job({ recordType: 'TXT' }), ctx)
    assert.equal(txt.checkResult.answers[0]?.value, 'v=spf1 -all')
    const mx = await runDnsCheck(job({ recordType: 'MX' }), ctx)
    assert.equal(mx.checkResult.answers[0]?.value, '10 mail.svc.test')
  })

  test('a UDP answer truncated for size is asked again over TCP, as resolvers do', async () => {
    const result = await runDnsCheck(
      job({
        query: 'big.test',
        recordType: 'TXT',
        assertions: [{ source: 'TEXT_ANSWER', comparison: 'CONTAINS', target: `p=${'d'.repeat(200)}` }],
      }),
      ctx,
    )
    assert.equal(result.error, null)
    assert.deepEqual(
      result.checkResult.answers.map((a) => a.value.slice(0, 3)),
      ['p=a', 'p=b', 'p=c', 'p=d'],
    )
    assert.equal(result.checkResult.protocol, 'UDP')
  })

  test('CAA answers read in their presentation form: flags, tag, quoted value', async () => {
    for (const protocol of ['UDP', 'TCP'] as const) {
      const caa = await runDnsCheck(
        job({
          recordType: 'CAA',
          protocol,
          assertions: [
            {
              source: 'JSON_ANSWER',
              property: '$[0].value',
              comparison: 'EQUALS',
              target: '0 issue "letsencrypt.org"',
            },
          ],
        }),
        ctx,
      )
      assert.deepEqual(caa.checkResult.answers, [
        { name: 'svc.test', type: 'CAA', ttl: 60, value: '0 issue "letsencrypt.org"' },
      ])
      assert.equal(caa.hasFailures, false, JSON.stringify(caa.error))
    }
  })

  const SERVICE_VALUE =
    '1 . alpn="h2,h3" port=8443 ipv4hint=104.16.132.229,104.16.133.229 ' +
    `ech=${ECH.toString('base64')} ipv6hint=2606:4700::6810:84e5 key65000="\\001a\\""`
  for (const protocol of ['UDP', 'TCP'] as const) {
    test(`HTTPS records over ${protocol} read as dig shows them, and are asserted on`, async () => {
      const result = await runDnsCheck(
        job({
          recordType: 'HTTPS',
          protocol,
          assertions: [
            { source: 'JSON_ANSWER', property: '$[0].value', comparison: 'EQUALS', target: SERVICE_VALUE },
            {
              source: 'TEXT_ANSWER',
              comparison: 'CONTAINS',
              target: 'svc.test 300 IN HTTPS 1 . alpn="h2,h3"',
            },
            { source: 'TEXT_ANSWER', comparison: 'CONTAINS', target: 'ipv4hint=104.16.132.229' },
          ],
        }),
        ctx,
      )
      assert.equal(result.error, null)
      assert.deepEqual(result.checkResult.answers, [
        { name: 'svc.test', type: 'HTTPS', ttl: 300, value: SERVICE_VALUE },
      ])
      assert.deepEqual(
        result.checkResult.assertions.map((a) => a.passed),
        [true, true, true],
      )
    })
  }

  test('an HTTPS record in AliasMode reads as priority 0 and its target', async () => {
    const result = await runDnsCheck(job({ query: 'alias.test', recordType: 'HTTPS' }), ctx)
    assert.equal(result.error, null)
    assert.deepEqual(result.checkResult.answers, [
      { name: 'alias.test', type: 'HTTPS', ttl: 30, value: '0 pool.svc.test.' },
    ])
  })

  test('HTTPS records too large for UDP are asked again over TCP', async () => {
    const result = await runDnsCheck(job({ query: 'big.test', recordType: 'HTTPS' }), ctx)
    assert.equal(result.error, null)
    assert.deepEqual(
      result.checkResult.answers.map((a) => a.value),
      [1, 2, 3, 4].map((fill) => `${fill} cdn.svc.test. ech=${Buffer.alloc(200, fill).toString('base64')}`),
    )
    assert.equal(result.checkResult.protocol, 'UDP')
  })

  test('an error response code fails unless a RESPONSE_CODE assertion says what to expect', async () => {
    const timed = await runDnsCheck(
      job({
        query: 'broken.test',
        assertions: [{ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '2000' }],
      }),
      ctx,
    )
    assert.equal(timed.checkResult.responseCode, 'SERVFAIL')
    assert.equal(timed.hasFailures, true)
    assert.deepEqual(timed.error, { type: 'ASSERTION', message: 'DNS response code SERVFAIL' })
    const text = await runDnsCheck(
      job({
        query: 'nope.test',
        assertions: [{ source: 'TEXT_ANSWER', comparison: 'NOT_CONTAINS', target: '10.' }],
      }),
      ctx,
    )
    assert.deepEqual([text.hasFailures, text.error?.message], [true, 'DNS response code NXDOMAIN'])
    const expected = await runDnsCheck(
      job({
        query: 'broken.test',
        assertions: [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'SERVFAIL' }],
      }),
      ctx,
    )
    assert.equal(expected.hasFailures, false, JSON.stringify(expected.error))
  })

  test('NXDOMAIN fails without assertions and can be asserted on', async () => {
    const missing = await runDnsCheck(job({ query: 'nope.test' }), ctx)
    assert.equal(missing.checkResult.responseCode, 'NXDOMAIN')
    assert.equal(missing.hasFailures, true)
    const expected = await runDnsCheck(
      job({
        query: 'nope.test',
        assertions: [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NXDOMAIN' }],
      }),
      ctx,
    )
    assert.equal(expected.hasFailures, false)
  })

  test('shouldFail inverts what the name server answered; a name server that never answers still fails', async () => {
    const missing = await runDnsCheck(job({ query: 'nope.test' }, { shouldFail: true }), ctx)
    assert.deepEqual([missing.checkResult.responseCode, missing.hasFailures], ['NXDOMAIN', false])
    const found = await runDnsCheck(job({}, { shouldFail: true }), ctx)
    assert.deepEqual([found.checkResult.responseCode, found.hasFailures], ['NOERROR', true])
    const silent = await freePort()
    const unanswered = await runDnsCheck(
      job({ port: silent }, { maxResponseTime: 300, degradedResponseTime: 100, shouldFail: true }),
      ctx,
    )
    assert.deepEqual([unanswered.hasFailures, unanswered.error?.type], [true, 'TIMEOUT'])
    const invalid = await runDnsCheck(job({ nameServer: 'name server' }, { shouldFail: true }), ctx)
    assert.deepEqual([invalid.hasFailures, invalid.error?.type], [true, 'NETWORK_ERROR'])
  })

  test('a nameServer written host:port is asked at that port, which wins over the port field', async () => {
    for (const protocol of ['UDP', 'TCP'] as const) {
      const result = await runDnsCheck(job({ nameServer: `127.0.0.1:${port}`, port: 53, protocol }), ctx)
      assert.equal(result.error, null, `${protocol}: ${JSON.stringify(result.error)}`)
      assert.deepEqual(result.checkResult.answers, [
        { name: 'svc.test', type: 'A', ttl: 300, value: '10.1.2.3' },
      ])
      assert.deepEqual([result.checkResult.nameServer, result.checkResult.port], ['127.0.0.1', port])
    }
    const named = await runDnsCheck(job({ nameServer: `localhost:${port}`, port: 53, protocol: 'TCP' }), ctx)
    assert.deepEqual(named.checkResult.answers[0]?.value, '10.1.2.3')
  })

  test('a nameServer that is neither a host, an address nor either with a port fails the run saying so', async () => {
    for (const nameServer of ['127.0.0.1:0', '127.0.0.1:70000', 'name server', '[127.0.0.1]:53']) {
      const result = await runDnsCheck(job({ nameServer }), ctx)
      assert.deepEqual(result.error, {
        type: 'NETWORK_ERROR',
        message: `Invalid name server "${nameServer}": write a host name or IP address, optionally with a port (host:port, [IPv6]:port)`,
      })
      assert.equal(result.hasFailures, true)
    }
  })

  test('a silent name server times out', async () => {
    const silent = await freePort()
    const result = await runDnsCheck(
      job({ port: silent }, { maxResponseTime: 300, degradedResponseTime: 100 }),
      ctx,
    )
    assert.equal(result.hasFailures, true)
    assert.equal(result.error?.type, 'TIMEOUT')
  })

  test('over TCP, a name server that accepts but never answers times out, and its connection is closed', async (t) => {
    const sockets: Socket[] = []
    let closed = 0
    const mute = createTcpServer((socket) => {
      sockets.push(socket)
      socket.on('error', () => {})
      socket.on('close', () => closed++)
      socket.resume()
    })
    const { port } = await listenOnLoopback(mute, t)
    try {
      const result = await runDnsCheck(
        job({ protocol: 'TCP', port }, { maxResponseTime: 300, degradedResponseTime: 100 }),
        ctx,
      )
      assert.equal(result.error?.type, 'TIMEOUT')
      await new Promise((done) => setTimeout(done, 100))
      assert.deepEqual([sockets.length, closed], [1, 1], 'the runner closed its connection')
    } finally {
      for (const socket of sockets) socket.destroy()
    }
  })
})

describe('a name server on IPv6 loopback', () => {
  let port = 0
  const server = dns2.createServer({
    udp: { type: 'udp6' },
    tcp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request)
      const record = { name: request.questions[0]?.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 5 }
      response.answers.push({ ...record, address: '10.6.6.6' } as (typeof response.answers)[number])
      send(response)
    },
  })
  before(async () => {
    port = await freePort()
    await server.listen({ udp: { port, address: '::1' }, tcp: { port, address: '::1' } })
  })
  after(() => server.close())

  // A bare ::1 is an address, not host ::1 port 1; written [::1]:port, its port wins over `port`.
  for (const protocol of ['UDP', 'TCP'] as const) {
    for (const [written, portField] of [
      ['::1', () => port],
      ['[::1]:PORT', () => 53],
    ] as const) {
      test(`is asked over ${protocol} at its own address, written ${written}`, async () => {
        const nameServer = written.replace('PORT', String(port))
        const result = await runDnsCheck(
          {
            request: { query: 'six.test', recordType: 'A', nameServer, port: portField(), protocol },
            degradedResponseTime: 1000,
            maxResponseTime: 2000,
            shouldFail: false,
          },
          ctx,
        )
        assert.equal(result.error, null)
        assert.deepEqual(result.checkResult.answers, [
          { name: 'six.test', type: 'A', ttl: 5, value: '10.6.6.6' },
        ])
        assert.deepEqual([result.checkResult.nameServer, result.checkResult.port], ['::1', port])
      })
    }
  }
})
