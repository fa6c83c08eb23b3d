/**
 * A client certificate an API check presents in its TLS handshake (mTLS): what the server hands the runner,
 * in this process or on an agent, when the check's host matches the certificate's `host`.
 */
export interface ClientCertificateMaterial {
  /** The host pattern it was stored for: `api.acme.com`, or a wildcard such as `*.acme.com`. */
  host: string
  cert: string
  key: string
  passphrase: string | null
  /** PEM CA certificates trusted for the server's certificate besides the system's. */
  ca: string | null
}

/**
 * Whether `hostname` matches the glob `pattern` (case-insensitive): `*` stands for any run of characters,
 * `?` for one, as the hosted product matches its certificates' hosts.
 */
export function hostMatchesPattern(pattern: string, hostname: string): boolean {
  const source = pattern
    .toLowerCase()
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('')
  return new RegExp(`^${source}$`).test(hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1'))
}

/** Whether `pattern` names one host exactly (no wildcard): such a certificate wins over a wildcard one. */
export function isExactHostPattern(pattern: string): boolean {
  return !/[*?]/.test(pattern)
}
