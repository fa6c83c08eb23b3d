import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { pingSkipReason } from '../playwright/testing.ts'
import { parsePingOutput } from './parse-ping.ts'
import { type IcmpJob, runIcmpCheck } from './run-icmp-check.ts'

const ctx = { now: () => new Date() }
// The system ping is looked up once: a test below hides it on purpose by changing PATH.
const noPing = pingSkipReason()
const job = (request: Partial<IcmpJob['request']> = {}, extra: Partial<IcmpJob> = {}): IcmpJob => ({
  request: { hostname: '127.0.0.1', pingCount: 3, ...request },
  degradedPacketLossThreshold: 10,
  maxPacketLossThreshold: 20,
  shouldFail: false,
  ...extra,
})

describe('ICMP checks through the system ping', () => {
  test('pinging 127.0.0.1 passes with latency and no loss; LATENCY assertions read avg/min/max', {
    skip: noPing,
  }, async () => {
    const result = await runIcmpCheck(
      job({
        assertions: [
          { source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '1000' },
          { source: 'JSON_RESPONSE', property: '$.received', comparison: 'EQUALS', target: '3' },
        ],
      }),
      ctx,
    )
    assert.equal(result.hasFailures, false, JSON.stringify(result.error))
    assert.equal(result.checkResult.summary?.transmitted, 3)
    assert.equal(result.checkResult.summary?.packetLoss, 0)
    assert.ok((result.checkResult.summary?.latency?.avg ?? -1) >= 0)
    assert.deepEqual(
      result.checkResult.assertions.map((a) => a.passed),
      [true, true],
    )
  })

  test('a failing latency assertion fails the run', { skip: noPing }, async () => {
    const result = await runIcmpCheck(
      job({
        pingCount: 1,
        assertions: [{ source: 'LATENCY', property: 'max', comparison: 'LESS_THAN', target: '0' }],
      }),
      ctx,
    )
    assert.equal(result.error?.type, 'ASSERTION')
  })

  test('an IP address is pinged in its own family: ::1 over IPv6 whether ipFamily is left out or IPv4', {
    skip: noPing,
  }, async () => {
    for (const request of [
      { hostname: '::1' },
      { hostname: '::1', ipFamily: 'IPv4' as const },
      { hostname: '[::1]', ipFamily: 'IPv4' as const },
      { hostname: '::1', ipFamily: 'IPv6' as const },
      { hostname: '127.0.0.1' },
      { hostname: '127.0.0.1', ipFamily: 'IPv4' as const },
    ]) {
      const result = await runIcmpCheck(job({ ...request, pingCount: 2 }), ctx)
      const label = JSON.stringify(request)
      assert.equal(result.error, null, `${label}: ${JSON.stringify(result.error)}`)
      assert.deepEqual(
        [result.checkResult.summary?.transmitted, result.checkResult.summary?.received],
        [2, 2],
        label,
      )
      assert.equal(result.checkResult.hostname, request.hostname)
    }
  })

  test('an IPv4 address with ipFamily IPv6 fails saying so, without running ping', async () => {
    const result = await runIcmpCheck(job({ hostname: '127.0.0.1', ipFamily: 'IPv6', pingCount: 1 }), ctx)
    assert.equal(result.hasFailures, true)
    assert.deepEqual(result.error, {
      type: 'NETWORK_ERROR',
      message:
        '127.0.0.1 is an IPv4 address and ipFamily is IPv6: set ipFamily to IPv4 or ping an IPv6 address',
    })
    assert.equal(result.checkResult.summary, null)
  })

  test('ping itself failing is a NETWORK_ERROR with its own words: a name that resolves nowhere, no ping at all', {
    skip: noPing,
  }, async () => {
    const unknown = await runIcmpCheck(job({ hostname: 'nosuch.invalid', pingCount: 1 }), ctx)
    assert.equal(unknown.hasFailures, true)
    assert.equal(unknown.error?.type, 'NETWORK_ERROR')
    assert.match(unknown.error?.message ?? '', /^ping: nosuch\.invalid: /)
    assert.equal(unknown.checkResult.summary, null)

    const path = process.env.PATH
    process.env.PATH = '/nonexistent'
    try {
      const missing = await runIcmpCheck(job({ pingCount: 1 }), ctx)
      assert.deepEqual(missing.error, {
        type: 'NETWORK_ERROR',
        message: 'The system ping command is missing (install iputils-ping)',
      })
      assert.equal(missing.hasFailures, true)
    } finally {
      process.env.PATH = path
    }
  })

  test('shouldFail inverts what ping measured; a ping that never ran (no such host, wrong family) still fails', {
    skip: noPing,
  }, async () => {
    const answered = await runIcmpCheck(job({ pingCount: 1 }, { shouldFail: true }), ctx)
    assert.deepEqual([answered.checkResult.summary?.received, answered.hasFailures], [1, true])
    const mismatch = await runIcmpCheck(
      job({ hostname: '127.0.0.1', ipFamily: 'IPv6', pingCount: 1 }, { shouldFail: true }),
      ctx,
    )
    assert.deepEqual([mismatch.checkResult.summary, mismatch.hasFailures], [null, true])
    const unknown = await runIcmpCheck(
      job({ hostname: 'nosuch.invalid', pingCount: 1 }, { shouldFail: true }),
      ctx,
    )
    assert.deepEqual([unknown.checkResult.summary, unknown.hasFailures], [null, true])
    assert.equal(unknown.error?.type, 'NETWORK_ERROR')
  })

  test('shouldFail passes a host that answers no ping, without calling it degraded', async () => {
    // A stand-in ping that loses every packet, as a host dropping ICMP does.
    const dir = mkdtempSync(join(tmpdir(), 'svc-ping-'))
    writeFileSync(
      join(dir, 'ping'),
      '#!/bin/sh\necho "PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data."\necho\necho "--- 10.0.0.1 ping statistics ---"\necho "2 packets transmitted, 0 received, 100% packet loss, time 1001ms"\nexit 1\n',
      { mode: 0o755 },
    )
    const path = process.env.PATH
    process.env.PATH = dir
    try {
      const silent = await runIcmpCheck(job({ hostname: '10.0.0.1', pingCount: 2 }), ctx)
      assert.deepEqual([silent.hasFailures, silent.checkResult.summary?.packetLoss], [true, 100])
      assert.match(silent.error?.message ?? '', /Packet loss 100% is over 20%/)
      const expected = await runIcmpCheck(
        job({ hostname: '10.0.0.1', pingCount: 2 }, { shouldFail: true }),
        ctx,
      )
      assert.deepEqual([expected.hasFailures, expected.isDegraded], [false, false])
    } finally {
      process.env.PATH = path
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('packet loss is parsed and judged against the thresholds', () => {
    const lossy = parsePingOutput(
      '10 packets transmitted, 7 received, 30% packet loss, time 9012ms\nrtt min/avg/max/mdev = 1.1/2.2/3.3/0.4 ms',
    )
    assert.deepEqual(lossy, {
      transmitted: 10,
      received: 7,
      packetLoss: 30,
      latency: { min: 1.1, avg: 2.2, max: 3.3, stdDev: 0.4 },
    })
    assert.deepEqual(parsePingOutput('4 packets transmitted, 0 received, 100% packet loss, time 3060ms'), {
      transmitted: 4,
      received: 0,
      packetLoss: 100,
      latency: null,
    })
    assert.equal(parsePingOutput('ping: unknown host'), null)
  })
})
