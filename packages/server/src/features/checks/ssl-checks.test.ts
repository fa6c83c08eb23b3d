import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { createServer, type Server } from 'node:tls'
import { testEngines } from '@svc/db/testing'
import { selfSignedCertificate } from '@svc/runner/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

/** SSL monitors end to end: the hosted API's body, a run against a local TLS server, its result and analytics. */
for (const engine of testEngines()) {
  describe(`SSL monitors on ${engine.engine}`, () => {
    let t: TestApp
    let tls: Server
    let port: number
    before(async () => {
      t = await createTestApp(engine)
      // Self-signed for CN=localhost, valid 30 days.
      tls = createServer(selfSignedCertificate('localhost', 30), (socket) => socket.end())
      await new Promise<void>((listening) => tls.listen(0, '127.0.0.1', listening))
      port = (tls.address() as AddressInfo).port
    })
    after(async () => {
      tls.close()
      await t.close()
    })

    const create = (body: object) =>
      t.call({ method: 'POST', url: '/v1/checks/ssl?autoAssignAlerts=false', payload: body })
    const sslConfig = () => ({ hostname: 'localhost', port, skipChainValidation: true })

    test('creates with the hosted schema’s defaults, refuses what it bounds, and updates', async () => {
      const res = await create({
        name: 'Shop TLS',
        activated: false,
        request: { sslConfig: { hostname: 'shop.example' } },
      })
      assert.equal(res.statusCode, 201, res.body)
      const check = json(res)
      assert.equal(check.checkType, 'SSL')
      assert.equal(check.degradedResponseTime, 3000)
      assert.equal(check.maxResponseTime, 10000)
      assert.deepEqual(check.request.sslConfig, {
        hostname: 'shop.example',
        port: 443,
        ipFamily: 'IPv4',
        skipChainValidation: false,
        handshakeTimeoutMs: 10000,
        alertDaysBeforeExpiry: 20,
        securityBaseline: {
          enabled: true,
          minTLSVersion: { value: 'TLS1.2', severity: 'fail' },
          minKeySizeBits: { value: 2048, severity: 'fail' },
          weakSignatureAlgorithm: { severity: 'fail' },
          weakCipherSuite: { severity: 'fail' },
          knownBadCA: { severity: 'fail' },
          recommendedTLSVersion: { value: 'TLS1.3', severity: 'ignore' },
          recommendedKeySizeBits: { value: 3072, severity: 'ignore' },
          ocspMustStapleRespected: { severity: 'ignore' },
          sctPresent: { severity: 'ignore' },
        },
      })
      assert.deepEqual(check.request.assertions, [])
      const read = json(await t.call({ method: 'GET', url: `/v1/checks/${check.id}` }))
      assert.equal(read.request.sslConfig.hostname, 'shop.example')

      for (const [body, field] of [
        [{ name: 'x', request: {} }, 'sslConfig'],
        [
          { name: 'x', request: { sslConfig: { hostname: 'a', alertDaysBeforeExpiry: 400 } } },
          'alertDaysBeforeExpiry',
        ],
        [
          { name: 'x', request: { sslConfig: { hostname: 'a', handshakeTimeoutMs: 500 } } },
          'handshakeTimeoutMs',
        ],
        [
          {
            name: 'x',
            request: {
              sslConfig: { hostname: 'a' },
              assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS' }],
            },
          },
          'source',
        ],
        [
          {
            name: 'x',
            request: { sslConfig: { hostname: 'a' } },
            degradedResponseTime: 5000,
            maxResponseTime: 4000,
          },
          'degradedResponseTime',
        ],
      ] as const) {
        const refused = await create(body)
        assert.equal(refused.statusCode, 400, `${JSON.stringify(body)}: ${refused.body}`)
        assert.match(refused.body, new RegExp(field))
      }

      const updated = await t.call({
        method: 'PUT',
        url: `/v1/checks/ssl/${check.id}`,
        payload: {
          name: 'Shop TLS',
          activated: false,
          request: { sslConfig: { hostname: 'shop.example', port: 8443 } },
        },
      })
      assert.equal(updated.statusCode, 200, updated.body)
      assert.equal(json(updated).request.sslConfig.port, 8443)
      const listed = json(await t.call({ method: 'GET', url: '/v1/checks?checkType=SSL' }))
      assert.deepEqual(
        listed.map((c: { id: string }) => c.id),
        [check.id],
      )
    })

    test('a run reads the certificate: expiry within alertDaysBeforeExpiry degrades it; analytics has its metrics', async () => {
      const res = await create({
        name: 'Local TLS',
        activated: false,
        request: {
          sslConfig: { ...sslConfig(), alertDaysBeforeExpiry: 60 },
          assertions: [
            { source: 'CERTIFICATE', property: 'subjectCN', comparison: 'EQUALS', target: 'localhost' },
          ],
        },
      })
      assert.equal(res.statusCode, 201, res.body)
      const id = json(res).id
      const run = await t.call({ method: 'POST', url: `/v1/checks/${id}/trigger` })
      assert.equal(run.statusCode, 200, run.body)
      const result = json(run)
      assert.equal(result.hasFailures, false, run.body)
      assert.equal(result.isDegraded, true)
      assert.equal(result.sslCheckResult.hostnameVerified, true)
      assert.equal(result.sslCheckResult.chainTrusted, false)
      assert.ok([29, 30].includes(result.sslCheckResult.daysUntilExpiry), run.body)
      assert.equal(result.sslCheckResult.assertions[0].passed, true)

      const stored = json(await t.call({ method: 'GET', url: `/v1/check-results/${id}/${result.id}` }))
      assert.equal(stored.sslCheckResult.response.certificate.subjectCN, 'localhost')

      const analytics = await t.call({
        method: 'GET',
        url: `/v1/analytics/ssl/${id}?quickRange=last24Hours&metrics=daysUntilExpiry_avg,chainTrusted_avg,keySizeBits_max,tlsVersion_max`,
      })
      assert.equal(analytics.statusCode, 200, analytics.body)
      const body = json(analytics)
      const points = body.series[0].data.filter(
        (point: { chainTrusted_avg: unknown }) => point.chainTrusted_avg !== null,
      )
      assert.equal(points.length, 1, analytics.body)
      assert.ok([29, 30].includes(points[0].daysUntilExpiry_avg), analytics.body)
      assert.equal(points[0].chainTrusted_avg, 0)
      assert.equal(points[0].keySizeBits_max, 2048)
      assert.equal(points[0].tlsVersion_max, 1.3)
      assert.equal(body.metadata.daysUntilExpiry_avg.unit, 'count')
      assert.equal(body.metadata.chainTrusted_avg.unit, 'percentage')
    })

    test('the name the certificate does not cover fails the run', async () => {
      const res = await create({
        name: 'Wrong name',
        activated: false,
        request: { sslConfig: { ...sslConfig(), serverName: 'shop.example' } },
      })
      const run = json(await t.call({ method: 'POST', url: `/v1/checks/${json(res).id}/trigger` }))
      assert.equal(run.hasFailures, true)
      assert.equal(run.sslCheckResult.failureCategory, 'HOSTNAME_MISMATCH')
    })
  })
}
