import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A self-signed certificate for `commonName`, valid for `days`, made by the system's openssl. */
export function selfSignedCertificate(commonName = 'localhost', days = 30): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'))
  try {
    const key = join(dir, 'key.pem')
    const cert = join(dir, 'cert.pem')
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        String(days),
        '-subj',
        `/CN=${commonName}`,
      ].concat(['-keyout', key, '-out', cert]),
      { stdio: 'ignore' },
    )
    return { key: readFileSync(key), cert: readFileSync(cert) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
