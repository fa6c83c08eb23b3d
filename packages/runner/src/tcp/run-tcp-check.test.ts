import assert from 'node:assert/strict'
import { type AddressInfo, createServer, type LookupFunction, type Server } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { listenOnLoopback } from '../testing/loopback.ts'
import { IDLE_AFTER_DATA_MS, runTcpCheck, type TcpJob } from './run-tcp-check.ts'

const ctx = { now: () => new Date() }

async function listen(server: Server): Promise<number> {
  return (await listenOnLoopback(server)).port
}

function job(port: number, request: Partial<TcpJob['request']> = {}, extra: Partial<TcpJob> = {}): TcpJob {
  return {
    request: { hostname: '127.0.0.1', port, ...request },
    degradedResponseTime: 4000,
    maxResponseTime: 5000,
    shouldFail: false,
    ...extra,
  }
}

describe('TCP checks against a local echo server', () => {
  const echo = createServer((socket) => socket.on('data', (data) => socket.end(`echo:${data}`)))
  const silent = createServer(() => {})
  // Like Redis: answers each command in two packets 50 ms apart and keeps the connection open.
  const chatty = createServer((socket) => {
    socket.on('error', () => {})
    socket.on('data', () => {
      socket.write('+PO')
      setTimeout(() => socket.write('NG\r\n'), 50)
    })
  })
  // Like SMTP: greets first, and waits for a command.
  const greeter = createServer((socket) => {
    socket.on('error', () => {})
    socket.write('220 mail.svc.test ESMTP\r\n')
  })
  // Thinks 700 ms before it answers.
  const slow = createServer((socket) => {
    socket.on('error', () => {})
    socket.on('data', () => setTimeout(() => socket.end('done'), 700))
  })
  let echoPort = 0
  let silentPort = 0
  let slowPort = 0
  let chattyPort = 0
  let greeterPort = 0
  before(async () => {
    echoPort = await listen(echo)
    silentPort = await listen(silent)
    chattyPort = await listen(chatty)
    greeterPort = await listen(greeter)
    slowPort = await listen(slow)
  })
  after(() => {
    echo.close()
    silent.close()
    chatty.close()
    greeter.close()
    slow.close()
  })

  test('connects, sends, reads the reply and asserts on it', async () => {
    const result = await runTcpCheck(
      job(echoPort, {
        data: 'PING',
        assertions: [
          { source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'echo:PING' },
          { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '5000' },
        ],
      }),
      ctx,
    )
    assert.equal(result.hasFailures, false, JSON.stringify(result.error))
    assert.equal(result.checkResult.responseData, 'echo:PING')
    assert.ok(result.checkResult.timingPhases.connection > 0)
    assert.ok(result.checkResult.timingPhases.total >= result.checkResult.timingPhases.connection)
  })

  test('a reply that does not match fails with ASSERTION', async () => {
    const result = await runTcpCheck(
      job(echoPort, {
        data: 'PING',
        assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' }],
      }),
      ctx,
    )
    assert.equal(result.hasFailures, true)
    assert.equal(result.error?.type, 'ASSERTION')
  })

  test('connect-only passes; refused is NETWORK_ERROR; a silent peer times out', async () => {
    assert.equal((await runTcpCheck(job(silentPort), ctx)).hasFailures, false)
    const closed = createServer()
    const port = await listen(closed)
    closed.close()
    const refused = await runTcpCheck(job(port), ctx)
    assert.equal(refused.error?.type, 'NETWORK_ERROR')
    assert.match(refused.error?.message ?? '', /Connection refused/)
    const stalled = await runTcpCheck(
      job(
        silentPort,
        { data: 'hello', assertions: [{ source: 'RESPONSE_DATA', comparison: 'NOT_EMPTY' }] },
        { maxResponseTime: 300, degradedResponseTime: 100 },
      ),
      ctx,
    )
    assert.equal(stalled.hasFailures, true)
    assert.equal(stalled.error?.type, 'TIMEOUT')
  })

  test('shouldFail validates a closed port: refused or unanswered passes, connected fails, an unresolvable host still fails', async () => {
    const closed = createServer()
    const port = await listen(closed)
    closed.close()
    const refused = await runTcpCheck(job(port, {}, { shouldFail: true }), ctx)
    assert.equal(refused.hasFailures, false)
    assert.match(refused.error?.message ?? '', /Connection refused/)
    const stalled = await runTcpCheck(
      job(
        silentPort,
        { data: 'hello', assertions: [{ source: 'RESPONSE_DATA', comparison: 'NOT_EMPTY' }] },
        { maxResponseTime: 300, degradedResponseTime: 100, shouldFail: true },
      ),
      ctx,
    )
    assert.deepEqual(
      [stalled.hasFailures, stalled.isDegraded, stalled.error?.type],
      [false, false, 'TIMEOUT'],
      'a port that stays silent as it should passes, and is not "degraded" for taking maxResponseTime',
    )
    const open = await runTcpCheck(job(echoPort, {}, { shouldFail: true }), ctx)
    assert.deepEqual([open.hasFailures, open.error], [true, null])

    const failingLookup = {
      now: () => new Date(),
      lookup: ((hostname: string, _options: unknown, callback: (e: Error) => void) =>
        process.nextTick(() =>
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })),
        )) as unknown as LookupFunction,
    }
    const unresolved = await runTcpCheck(
      job(port, { hostname: 'does-not-exist.svc.test' }, { shouldFail: true }),
      failingLookup,
    )
    assert.equal(unresolved.hasFailures, true)
    assert.equal(unresolved.error?.type, 'NETWORK_ERROR')
    assert.match(unresolved.error?.message ?? '', /DNS lookup failed/)
  })

  test('an IPv6 address connects written bare or in brackets, whatever ipFamily says', async () => {
    const v6 = createServer((socket) => {
      socket.on('error', () => {})
      socket.end('hi')
    })
    await new Promise<void>((done) => v6.listen(0, '::1', done))
    const port = (v6.address() as AddressInfo).port
    try {
      for (const hostname of ['::1', '[::1]']) {
        const result = await runTcpCheck(
          job(port, {
            hostname,
            assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'hi' }],
          }),
          ctx,
        )
        assert.deepEqual(
          [result.hasFailures, result.error, result.checkResult.responseData],
          [false, null, 'hi'],
          hostname,
        )
      }
    } finally {
      v6.close()
    }
  })

  test('a reply on a connection the peer keeps open is timed to its last byte, not to the quiet after it', async () => {
    const started = performance.now()
    const result = await runTcpCheck(
      job(chattyPort, {
        data: 'PING\r\n',
        assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: '+PONG\r\n' }],
      }),
      ctx,
    )
    const wallMs = performance.now() - started
    assert.equal(result.error, null)
    assert.equal(result.hasFailures, false)
    assert.equal(result.checkResult.responseData, '+PONG\r\n')
    // The reply's last packet comes 50 ms after its first: the time runs to it (a timer may fire ~1 ms early).
    assert.ok(result.responseTime >= 48, `responseTime ${result.responseTime}`)
    // The run ends only after IDLE_AFTER_DATA_MS of quiet, which the time leaves out, however slow the machine
    // (2 ms for rounding and early timers).
    assert.ok(
      result.responseTime + IDLE_AFTER_DATA_MS <= wallMs + 2,
      `responseTime ${result.responseTime} of a run that took ${wallMs} ms`,
    )
    const phases = result.checkResult.timingPhases
    assert.ok(
      phases.data >= 48 && phases.data + IDLE_AFTER_DATA_MS <= wallMs + 2,
      `data phase ${phases.data}`,
    )
    // responseTime is the total rounded to whole ms, phases.total to 0.01 ms: 53.497 gives 53 and 53.5.
    assert.ok(
      Math.abs(result.responseTime - phases.total) <= 0.5,
      `${result.responseTime} vs ${phases.total}`,
    )
  })

  test('a reply that arrived before maxResponseTime is the response, even if the peer stays connected', async () => {
    const result = await runTcpCheck(
      job(
        chattyPort,
        {
          data: 'PING\r\n',
          assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' }],
        },
        { maxResponseTime: 300, degradedResponseTime: 200 },
      ),
      ctx,
    )
    assert.equal(result.error, null)
    assert.deepEqual([result.hasFailures, result.overMaxResponseTime], [false, false])
    assert.equal(result.checkResult.responseData, '+PONG\r\n')
  })

  test('without data to send, a RESPONSE_DATA assertion reads what the server says first (a banner)', async () => {
    const started = performance.now()
    const result = await runTcpCheck(
      job(greeterPort, { assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: '220 ' }] }),
      ctx,
    )
    assert.equal(result.error, null)
    const wallMs = performance.now() - started
    assert.equal(result.checkResult.responseData, '220 mail.svc.test ESMTP\r\n')
    // Timed to the banner, not to the quiet after it that ends the run (2 ms for rounding and early timers).
    assert.ok(result.responseTime >= 0, `responseTime ${result.responseTime}`)
    assert.ok(
      result.responseTime + IDLE_AFTER_DATA_MS <= wallMs + 2,
      `responseTime ${result.responseTime} of a run that took ${wallMs} ms`,
    )
  })

  test('a reply that a RESPONSE_DATA assertion reads is awaited past 500 ms, up to maxResponseTime', async () => {
    const result = await runTcpCheck(
      job(slowPort, {
        data: 'work',
        assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'done' }],
      }),
      ctx,
    )
    assert.equal(result.error, null)
    assert.equal(result.checkResult.responseData, 'done')
    assert.ok(result.responseTime >= 690, `responseTime ${result.responseTime}`)
  })
})
