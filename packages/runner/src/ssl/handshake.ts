import { X509Certificate } from 'node:crypto'
import { isIP, type LookupFunction } from 'node:net'
import {
  type ConnectionOptions,
  checkServerIdentity,
  connect,
  type DetailedPeerCertificate,
  type TLSSocket,
} from 'node:tls'
import type { RunnerContext } from '../types.ts'

const DAY_MS = 86_400_000

/** One certificate of the chain, with the fields an SSL monitor's `CERTIFICATE` assertions read. */
export interface CertificateFacts {
  subjectCN: string
  issuerCN: string
  serialNumber: string
  fingerprintSha256: string
  issuerFingerprintSha256: string | null
  keySizeBits: number | null
  keyAlgorithm: string | null
  signatureAlgorithm: string
  sans: string[]
  selfSigned: boolean
  isCA: boolean
  validFrom: string
  validTo: string
  daysUntilExpiry: number
}

/** What one TLS handshake showed, before any of it is judged. */
export interface Handshake {
  resolvedIp: string | null
  /** `TLS1.2`, `TLS1.3` (the hosted product's spelling). */
  protocol: string | null
  cipherSuite: string | null
  handshakeTimeMs: number
  /** Whether the server's chain leads to a trusted root (hostname aside). */
  chainTrusted: boolean
  /** OpenSSL's reason when it does not, e.g. `DEPTH_ZERO_SELF_SIGNED_CERT`. */
  chainTrustReason: string | null
  hostnameVerified: boolean
  hostnameError: string | null
  ocspStapled: boolean
  /** The leaf first, then each issuer the handshake showed. */
  chain: CertificateFacts[]
}

export interface HandshakeTarget {
  hostname: string
  port: number
  /** The SNI name, and the name the certificate must cover; the hostname when empty. */
  serverName: string
  ipFamily: 'IPv4' | 'IPv6'
  timeoutMs: number
}

/** Thrown (as a rejection) when no handshake completed: `timedOut` says whether the deadline ended it. */
export class HandshakeFailure extends Error {
  readonly reason: unknown
  readonly timedOut: boolean
  readonly elapsedMs: number

  constructor(reason: unknown, timedOut: boolean, elapsedMs: number) {
    super((reason as Error)?.message ?? String(reason))
    this.reason = reason
    this.timedOut = timedOut
    this.elapsedMs = elapsedMs
  }
}

/**
 * Connects and completes one TLS handshake, whatever the certificate: trust and hostname are read, never
 * enforced, since judging them is the monitor's job.
 */
export function handshake(target: HandshakeTarget, ctx: RunnerContext): Promise<Handshake> {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const started = performance.now()
  return new Promise((resolve, reject) => {
    let connectedAt = started
    let ocspStapled = false
    // `family` goes on to net.connect (tls's own options don't list it).
    const options: ConnectionOptions & { family: number } = {
      host,
      port: target.port,
      family: target.ipFamily === 'IPv6' ? 6 : 4,
      // SNI carries a name, never an address.
      servername: isIP(target.serverName) ? undefined : target.serverName,
      rejectUnauthorized: false,
      requestOCSP: true,
      checkServerIdentity: () => undefined,
      ...(ctx.lookup ? { lookup: ctx.lookup as LookupFunction } : {}),
    }
    const socket = connect(options)
    const deadline = setTimeout(() => {
      socket.destroy()
      reject(new HandshakeFailure(new Error('timeout'), true, performance.now() - started))
    }, target.timeoutMs)
    socket.once('connect', () => {
      connectedAt = performance.now()
    })
    // Emitted with null when the server staples nothing.
    socket.once('OCSPResponse', (response: Buffer | null) => {
      ocspStapled = (response?.length ?? 0) > 0
    })
    socket.once('error', (error) => {
      clearTimeout(deadline)
      reject(new HandshakeFailure(error, false, performance.now() - started))
    })
    socket.once('secureConnect', () => {
      clearTimeout(deadline)
      try {
        resolve(read(socket, target, connectedAt, ocspStapled, ctx))
      } catch (error) {
        // A certificate node:crypto cannot parse: the run fails on it rather than the process.
        reject(new HandshakeFailure(error, false, performance.now() - started))
      } finally {
        socket.destroy()
      }
    })
  })
}

function read(
  socket: TLSSocket,
  target: HandshakeTarget,
  connectedAt: number,
  ocspStapled: boolean,
  ctx: RunnerContext,
): Handshake {
  const handshakeTimeMs = round(performance.now() - connectedAt)
  const peer = socket.getPeerCertificate(true)
  const chain = chainOf(peer, ctx.now())
  const hostnameError = peer?.raw ? (checkServerIdentity(target.serverName, peer) ?? null) : null
  const version = socket.getProtocol()
  const trustError = socket.authorizationError as unknown as Error | string | null | undefined
  return {
    resolvedIp: socket.remoteAddress ?? null,
    protocol: version ? version.replace('TLSv', 'TLS') : null,
    cipherSuite: socket.getCipher()?.standardName ?? null,
    handshakeTimeMs,
    chainTrusted: socket.authorized,
    chainTrustReason: socket.authorized ? null : String((trustError as Error)?.message ?? trustError ?? ''),
    hostnameVerified: chain.length > 0 && hostnameError === null,
    hostnameError:
      chain.length === 0 ? 'The server presented no certificate' : (hostnameError?.message ?? null),
    ocspStapled,
    chain,
  }
}

function chainOf(leaf: DetailedPeerCertificate | undefined, now: Date): CertificateFacts[] {
  const certificates: DetailedPeerCertificate[] = []
  let next = leaf
  while (next?.raw && certificates.length < 10 && !certificates.includes(next)) {
    certificates.push(next)
    next = next.issuerCertificate
  }
  const x509s = certificates.map((certificate) => new X509Certificate(certificate.raw))
  return certificates.map((certificate, index) => {
    const x509 = x509s[index] as X509Certificate
    const selfSigned = x509.checkIssued(x509) && x509.verify(x509.publicKey)
    const validTo = new Date(x509.validTo)
    return {
      subjectCN: commonName(certificate.subject),
      issuerCN: commonName(certificate.issuer),
      serialNumber: x509.serialNumber,
      fingerprintSha256: x509.fingerprint256,
      issuerFingerprintSha256: x509s[index + 1]?.fingerprint256 ?? (selfSigned ? x509.fingerprint256 : null),
      keySizeBits: typeof certificate.bits === 'number' ? certificate.bits : null,
      keyAlgorithm: KEY_ALGORITHMS[x509.publicKey.asymmetricKeyType ?? ''] ?? null,
      signatureAlgorithm: signatureAlgorithmOf(x509.signatureAlgorithm ?? ''),
      sans: (certificate.subjectaltname ?? '')
        .split(', ')
        .filter(Boolean)
        .map((name) => name.replace(/^[^:]+:/, '')),
      selfSigned,
      isCA: x509.ca,
      validFrom: new Date(x509.validFrom).toISOString(),
      validTo: validTo.toISOString(),
      daysUntilExpiry: Math.floor((validTo.getTime() - now.getTime()) / DAY_MS),
    }
  })
}

const KEY_ALGORITHMS: Record<string, string> = {
  rsa: 'RSA',
  'rsa-pss': 'RSA',
  ec: 'ECDSA',
  ed25519: 'Ed25519',
  ed448: 'Ed448',
  dsa: 'DSA',
}

/** OpenSSL's name in the hosted product's spelling: `sha256WithRSAEncryption` is `SHA256-RSA`. */
function signatureAlgorithmOf(name: string): string {
  const rsa = /^(sha\d+|md5)WithRSAEncryption$/i.exec(name)
  if (rsa) return `${rsa[1]?.toUpperCase()}-RSA`
  const ecdsa = /^ecdsa-with-(SHA\d+)$/i.exec(name)
  if (ecdsa) return `ECDSA-${ecdsa[1]?.toUpperCase()}`
  return name
}

function commonName(name: { CN?: string | string[] } | undefined): string {
  const cn = name?.CN
  return String(Array.isArray(cn) ? cn[0] : (cn ?? ''))
}

export function round(ms: number): number {
  return Math.round(ms * 100) / 100
}
