import { type MutualTlsMaterial, mutualTlsMaterial } from '@svc/runner/testing'

let material: MutualTlsMaterial | undefined

/** A client certificate's create body TLS can use (made by openssl once per test process). */
export function clientCertificateBody(host = 'localhost') {
  material ??= mutualTlsMaterial()
  const { cert, key, passphrase } = material.client
  return { host, cert, key, passphrase, ca: material.ca }
}
