import { connect } from 'node:tls'
import type { RunnerContext, TlsCertificate } from '../types.ts'

const TIMEOUT_MS = 10_000

/** What a certificate check found: the certificate, or why none could be read. */
export type CertificateReading =
  | ({ domain: string; error: null } & TlsCertificate)
  | { domain: string; error: string }

/**
 * Reads the TLS certificate `domain` presents (port 443 unless `domain` is `host:port`), whether or
 * not it is trusted: browser checks name an `sslCheckDomain` to watch its expiry.
 */
export function readCertificate(domain: string, ctx: RunnerContext): Promise<CertificateReading> {
  const [host = domain, port = '443'] = domain.split(':')
  return new Promise((done) => {
    const socket = connect({
      host,
      port: Number(port),
      servername: /^[\d.]+$/.test(host) ? undefined : host,
      rejectUnauthorized: false,
      lookup: ctx.lookup,
    })
    const finish = (reading: CertificateReading) => {
      socket.destroy()
      done(reading)
    }
    socket.setTimeout(TIMEOUT_MS, () => finish({ domain, error: `No TLS handshake within ${TIMEOUT_MS} ms` }))
    socket.once('error', (error) => finish({ domain, error: error.message }))
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerCertificate()
      if (!certificate?.valid_to) return finish({ domain, error: 'The server presented no certificate' })
      const validTo = new Date(certificate.valid_to)
      finish({
        domain,
        error: null,
        subject: String(certificate.subject?.CN ?? ''),
        issuer: String(certificate.issuer?.CN ?? ''),
        validTo: validTo.toISOString(),
        daysRemaining: Math.floor((validTo.getTime() - ctx.now().getTime()) / 86_400_000),
      })
    })
  })
}
