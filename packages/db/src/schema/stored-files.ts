// Files the hosted CLI uploads before a deploy: features/stored-files.

export interface StoredFilesTable {
  /** The key the upload answered; a deploy names a code bundle by it (`codeBundlePath`). */
  key: string
  account_id: string
  /** `code-bundle` (a gzipped tar of a Playwright project) or `file` (any bytes, e.g. a snapshot). */
  kind: string
  content: Uint8Array
  created_at: string
}
