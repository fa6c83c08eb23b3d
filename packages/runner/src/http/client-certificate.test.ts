import assert from 'node:assert/strict'
import { createServer as createHttpsServer } from 'node:https'
import { after, before, describe, test } from 'node:test'
import type { TLSSocket } from 'node:tls'
import type { ClientCertificateMaterial } from '@svc/core'
import { listenOnLoopback } from '../testing/loopback.ts'
import { type MutualTlsMaterial, mutualTlsMaterial } from '../testing/mutual-tls.ts'
import type { RunnerContext } from '../types.ts'
import { type HttpJob, runHttpCheck } from './run-http-check.ts'

const ctx: RunnerContext = { now: () => new Date() }

describe('an API check against a server that requires a client certificate (mTLS)', () => {
  let material: MutualTlsMaterial
  let server: ReturnType<typeof createHttpsServer>
  let port = 0
  before(async () => {
    material = mutualTlsMaterial('svc mtls client')
    // The server trusts only the test CA for clients, and refuses any connection without one of its certificates.
    server = createHttpsServer(
      { ...material.server, ca: material.ca, requestCert: true, rejectUnauthorized: true },
      (request, response) => {
        const peer = (request.socket as TLSSocket).getPeerCertificate()
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify({ client: peer.subject?.CN ?? null }))
      },
    )
    ;({ port } = await listenOnLoopback(server))
  })
  after(() => {
    server.closeAllConnections()
    server.close()
  })

  const certificate = (changes: Partial<ClientCertificateMaterial> = {}): ClientCertificateMaterial => ({
    host: 'localhost',
    cert: material.client.cert,
    key: material.client.key,
    passphrase: material.client.passphrase,
    ca: material.ca,
    ...changes,
  })
  const job = (clientCertificate: ClientCertificateMaterial | null, host = 'localhost'): HttpJob => ({
    checkType: 'API',
    request: {
      method: 'GET',
      url: `https://${host}:${port}/who`,
      assertions: [
        { source: 'JSON_BODY', property: '$.client', comparison: 'EQUALS', target: 'svc mtls client' },
      ],
    },
    degradedResponseTime: 5000,
    maxResponseTime: 10000,
    shouldFail: false,
    clientCertificate,
  })

  test('presents the certificate (its key opened with the passphrase) and trusts its CA', async () => {
    const result = await runHttpCheck(job(certificate()), ctx)
    assert.equal(result.error, null)
    assert.equal(result.hasFailures, false)
    assert.equal(result.checkResult.response?.status, 200)
    assert.deepEqual(JSON.parse(result.checkResult.response?.body ?? ''), { client: 'svc mtls client' })
    assert.equal(result.checkResult.tls?.issuer, 'svc test CA')
  })

  test('a wildcard host pattern matches', async () => {
    const result = await runHttpCheck(job(certificate({ host: 'local*' })), ctx)
    assert.equal(result.checkResult.response?.status, 200)
    assert.equal(result.hasFailures, false)
  })

  // skipSSL: the server's certificate is not what fails these runs.
  const unverified = (clientCertificate: ClientCertificateMaterial | null): HttpJob => {
    const base = job(clientCertificate)
    return { ...base, request: { ...base.request, skipSSL: true } }
  }

  test('without a certificate the server refuses the connection: a failed run, not a throw', async () => {
    const result = await runHttpCheck(unverified(null), ctx)
    assert.equal(result.hasFailures, true)
    assert.equal(result.error?.type, 'NETWORK_ERROR')
    assert.equal(result.checkResult.response, null)
  })

  test('a certificate for another host is not presented', async () => {
    const result = await runHttpCheck(unverified(certificate({ host: '*.example.com' })), ctx)
    assert.equal(result.hasFailures, true)
    assert.equal(result.error?.type, 'NETWORK_ERROR')
  })

  test('a wrong passphrase is a failed run saying the key did not decrypt', async () => {
    const result = await runHttpCheck(job(certificate({ passphrase: 'wrong' })), ctx)
    assert.equal(result.hasFailures, true)
    assert.equal(result.checkResult.response, null)
    assert.equal(result.error?.type, 'NETWORK_ERROR')
    assert.match(result.error?.message ?? '', /BAD_DECRYPT/)
  })
})
