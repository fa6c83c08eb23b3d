import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createServer, getCACertificates, type Server, setDefaultCACertificates } from 'node:tls'
import type { RunnerContext } from '../types.ts'
import { runSslCheck, type SslJob } from './run-ssl-check.ts'

const dir = mkdtempSync(join(tmpdir(), 'svc-ssl-test-'))
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
const read = (name: string) => readFileSync(join(dir, name))

/** A leaf for `names` valid for `days`, signed by the test CA (or by itself when `selfSigned`). */
function leaf(name: string, names: string, days: number, selfSigned = false) {
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${names}\nbasicConstraints=CA:FALSE\n`)
  if (selfSigned) {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      String(days),
      '-subj',
      '/CN=localhost',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-addext',
      `subjectAltName=${names}`,
    )
  } else {
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    )
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      String(days),
      '-out',
      `${name}.pem`,
      '-extfile',
      `${name}.ext`,
    )
  }
  return { key: read(`${name}.key`), cert: read(`${name}.pem`) }
}

const servers: Server[] = []
async function serve(options: {
  key: Buffer
  cert: Buffer
  maxVersion?: 'TLSv1.2' | 'TLSv1.3'
}): Promise<number> {
  const server = createServer(options, (socket) => socket.end())
  servers.push(server)
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  return (server.address() as AddressInfo).port
}

const ports: Record<string, number> = {}
before(async () => {
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '3650',
    '-subj',
    '/CN=svc test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  )
  setDefaultCACertificates([...getCACertificates('default'), read('ca.pem').toString()])
  ports.valid = await serve(leaf('valid', 'DNS:localhost,IP:127.0.0.1', 90))
  ports.expiring = await serve(leaf('expiring', 'DNS:localhost,IP:127.0.0.1', 5))
  ports.selfSigned = await serve(leaf('self', 'DNS:localhost', 90, true))
  ports.tls12 = await serve({ ...leaf('tls12', 'DNS:localhost', 90), maxVersion: 'TLSv1.2' })
})
after(() => {
  for (const server of servers) server.close()
  rmSync(dir, { recursive: true, force: true })
})

const ctx = (now = new Date()): RunnerContext => ({ now: () => now })

function job(
  port: number,
  sslConfig: Partial<SslJob['request']['sslConfig']> = {},
  rest: Partial<SslJob> = {},
): SslJob {
  return {
    name: 'TLS of localhost',
    request: { sslConfig: { hostname: 'localhost', port, ...sslConfig }, assertions: [] },
    degradedResponseTime: 3000,
    maxResponseTime: 10000,
    shouldFail: false,
    ...rest,
  }
}

test('a trusted certificate for the host, far from expiry, passes and reports what the handshake showed', async () => {
  const result = await runSslCheck(
    job(
      ports.valid as number,
      {},
      {
        request: {
          sslConfig: { hostname: 'localhost', port: ports.valid as number },
          assertions: [
            { source: 'CERTIFICATE', property: 'daysUntilExpiry', comparison: 'GREATER_THAN', target: '30' },
            { source: 'CONNECTION', property: 'tlsVersion', comparison: 'EQUALS', target: 'TLS1.3' },
            { source: 'CERTIFICATE', property: 'sans', comparison: 'CONTAINS', target: 'localhost' },
            { source: 'CONNECTION', property: 'chainTrusted', comparison: 'EQUALS', target: 'true' },
            {
              source: 'JSON_RESPONSE',
              property: '$.chain[0].keySizeBits',
              comparison: 'EQUALS',
              target: '2048',
            },
          ],
        },
      },
    ),
    ctx(),
  )
  assert.equal(result.hasFailures, false, JSON.stringify(result.error))
  assert.equal(result.isDegraded, false)
  const detail = result.checkResult
  assert.equal(detail.tlsVersion, 'TLS1.3')
  assert.equal(detail.chainTrusted, true)
  assert.equal(detail.hostnameVerified, true)
  assert.ok(detail.daysUntilExpiry === 89 || detail.daysUntilExpiry === 90, String(detail.daysUntilExpiry))
  assert.equal(detail.baselineVerdict, 'pass')
  assert.equal(detail.failureCategory, null)
  assert.equal(detail.response?.certificate?.subjectCN, 'localhost')
  assert.equal(detail.response?.certificate?.issuerCN, 'svc test CA')
  assert.equal(detail.response?.certificate?.keyAlgorithm, 'RSA')
  assert.equal(detail.response?.certificate?.signatureAlgorithm, 'SHA256-RSA')
  assert.deepEqual(detail.response?.certificate?.sans, ['localhost', '127.0.0.1'])
  assert.equal(detail.response?.chain.length, 2)
  assert.match(detail.cipherSuite ?? '', /^TLS_/)
  assert.deepEqual(
    detail.assertions.map((a) => a.passed),
    [true, true, true, true, true],
  )
})

test('a certificate expiring within alertDaysBeforeExpiry degrades the run; one further out does not', async () => {
  const soon = await runSslCheck(job(ports.expiring as number), ctx())
  assert.equal(soon.hasFailures, false)
  assert.equal(soon.isDegraded, true)
  assert.ok((soon.checkResult.daysUntilExpiry ?? 99) <= 5)
  const tolerant = await runSslCheck(job(ports.expiring as number, { alertDaysBeforeExpiry: 3 }), ctx())
  assert.equal(tolerant.isDegraded, false)
})

test('an expired certificate fails the run', async () => {
  const later = new Date(Date.now() + 100 * 86_400_000)
  const result = await runSslCheck(job(ports.valid as number), ctx(later))
  assert.equal(result.hasFailures, true)
  assert.equal(result.hasErrors, false)
  assert.equal(result.checkResult.failureCategory, 'CERTIFICATE_EXPIRED')
  assert.ok((result.checkResult.daysUntilExpiry ?? 0) < 0)
  assert.match(result.error?.message ?? '', /expired/)
})

test('a certificate that does not cover the name fails with HOSTNAME_MISMATCH', async () => {
  const result = await runSslCheck(job(ports.valid as number, { serverName: 'shop.example.test' }), ctx())
  assert.equal(result.hasFailures, true)
  assert.equal(result.checkResult.hostnameVerified, false)
  assert.equal(result.checkResult.chainTrusted, true)
  assert.equal(result.checkResult.failureCategory, 'HOSTNAME_MISMATCH')
  assert.match(result.error?.message ?? '', /shop\.example\.test/)
  assert.equal(result.checkResult.baselineVerdict, null)
})

test('a self-signed certificate fails as an untrusted chain, unless skipChainValidation', async () => {
  const result = await runSslCheck(job(ports.selfSigned as number), ctx())
  assert.equal(result.hasFailures, true)
  assert.equal(result.checkResult.chainTrusted, false)
  assert.equal(result.checkResult.failureCategory, 'CHAIN_UNTRUSTED')
  assert.equal(result.checkResult.response?.chainTrustReason, 'DEPTH_ZERO_SELF_SIGNED_CERT')
  assert.equal(result.checkResult.response?.certificate?.selfSigned, true)
  const skipped = await runSslCheck(job(ports.selfSigned as number, { skipChainValidation: true }), ctx())
  assert.equal(skipped.hasFailures, false, JSON.stringify(skipped.error))
  assert.equal(skipped.checkResult.chainTrusted, false)
})

test('the security baseline fails or degrades by its rules’ severity; a failing assertion fails', async () => {
  const strict = { minTLSVersion: { value: 'TLS1.3' as const } }
  const failed = await runSslCheck(job(ports.tls12 as number, { securityBaseline: strict }), ctx())
  assert.equal(failed.checkResult.tlsVersion, 'TLS1.2')
  assert.equal(failed.hasFailures, true)
  assert.equal(failed.checkResult.failureCategory, 'SECURITY_BASELINE')
  assert.equal(failed.checkResult.baselineGrade, 'F')
  const lenient = { minTLSVersion: { value: 'TLS1.3' as const, severity: 'degrade' as const } }
  const degraded = await runSslCheck(job(ports.tls12 as number, { securityBaseline: lenient }), ctx())
  assert.equal(degraded.hasFailures, false)
  assert.equal(degraded.isDegraded, true)
  assert.equal(degraded.checkResult.baselineVerdict, 'warn')
  const asserted = await runSslCheck(
    job(
      ports.valid as number,
      {},
      {
        request: {
          sslConfig: { hostname: 'localhost', port: ports.valid as number },
          assertions: [
            { source: 'CERTIFICATE', property: 'issuerCN', comparison: 'EQUALS', target: "Let's Encrypt" },
          ],
        },
      },
    ),
    ctx(),
  )
  assert.equal(asserted.hasFailures, true)
  assert.equal(asserted.checkResult.failureCategory, 'ASSERTION')
  assert.match(asserted.error?.message ?? '', /CERTIFICATE issuerCN EQUALS/)
})

test('a port nobody listens on is a network error, with no handshake', async () => {
  const server = createServer({})
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const port = (server.address() as AddressInfo).port
  await new Promise((closed) => server.close(closed))
  const result = await runSslCheck(job(port), ctx())
  assert.equal(result.hasFailures, true)
  assert.equal(result.hasErrors, true)
  assert.equal(result.error?.type, 'NETWORK_ERROR')
  assert.equal(result.checkResult.failureCategory, 'CONNECTION')
  assert.equal(result.checkResult.response, null)
})
