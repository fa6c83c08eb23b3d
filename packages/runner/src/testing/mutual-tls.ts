import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** PEM files for a mutual-TLS test: a private CA, a server certificate for localhost and a client one. */
export interface MutualTlsMaterial {
  ca: string
  server: { cert: string; key: string }
  /** Its key is encrypted with `passphrase`. */
  client: { cert: string; key: string; passphrase: string; commonName: string }
}

/** A throwaway CA that signed a localhost server certificate and a client certificate, by the system's openssl. */
export function mutualTlsMaterial(clientCommonName = 'svc test client'): MutualTlsMaterial {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mtls-'))
  try {
    const file = (name: string) => join(dir, name)
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' })
    const passphrase = 'correct horse battery staple'
    openssl(
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=svc test CA'],
      ...['-keyout', file('ca.key'), '-out', file('ca.pem')],
    )
    writeFileSync(file('server.ext'), 'subjectAltName = DNS:localhost,IP:127.0.0.1\n')
    writeFileSync(file('client.ext'), 'extendedKeyUsage = clientAuth\n')
    const signed = (name: string, subject: string, keyOptions: string[]) => {
      openssl(
        ...['req', '-new', '-newkey', 'rsa:2048', ...keyOptions, '-subj', subject],
        ...['-keyout', file(`${name}.key`), '-out', file(`${name}.csr`)],
      )
      openssl(
        ...['x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key')],
        ...['-CAcreateserial', '-days', '2', '-extfile', file(`${name}.ext`), '-out', file(`${name}.pem`)],
      )
    }
    signed('server', '/CN=localhost', ['-nodes'])
    signed('client', `/CN=${clientCommonName}`, ['-passout', `pass:${passphrase}`])
    const read = (name: string) => readFileSync(file(name), 'utf8')
    return {
      ca: read('ca.pem'),
      server: { cert: read('server.pem'), key: read('server.key') },
      client: { cert: read('client.pem'), key: read('client.key'), passphrase, commonName: clientCommonName },
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
