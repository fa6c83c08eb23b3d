// Client certificates that API checks present to their hosts (mTLS): features/client-certificates.

export interface ClientCertificatesTable {
  id: string
  account_id: string
  /** The host pattern: `api.acme.com` or a wildcard such as `*.acme.com`. */
  host: string
  cert: string
  ca: string | null
  /** JSON `{"sealedKey": ..., "sealedPassphrase": ...}`: the private key and its passphrase, sealed. */
  secrets: string
  created_at: string
}
