import { type ConnectionOptions, getCACertificates } from 'node:tls'
import { hostMatchesPattern } from '@svc/core'
import type { HttpJob } from './http-job.ts'

/**
 * The TLS options presenting the job's client certificate, for an https:// hop to a host it matches only:
 * a redirect to another host gets none, as it gets no credentials. Its CA is trusted besides the system's.
 */
export function clientCredentials(job: HttpJob, target: URL): ConnectionOptions {
  const certificate = job.clientCertificate
  if (!certificate || target.protocol !== 'https:') return {}
  if (!hostMatchesPattern(certificate.host, target.hostname)) return {}
  return {
    cert: certificate.cert,
    key: certificate.key,
    ...(certificate.passphrase ? { passphrase: certificate.passphrase } : {}),
    ...(certificate.ca ? { ca: [...getCACertificates('default'), certificate.ca] } : {}),
  }
}
