// Environment variables, where checks reference them, and the encryption key's verifier: features/variables
// and encryption-keys.
import type { SqlBool } from 'kysely'

export interface VariablesTable {
  id: string
  account_id: string
  key: string
  /** Plain value; null when the variable is locked or secret (then `encrypted_value` holds it). */
  value: string | null
  encrypted_value: string | null
  locked: SqlBool
  secret: SqlBool
  description: string
  created_at: string
  updated_at: string
}

export interface VariableReferencesTable {
  account_id: string
  /** 'check' or 'group'. */
  owner_type: string
  owner_id: string
  key: string
}

/** The one row (`id` 'store') naming the key the store's sealed values are under. */
export interface EncryptionKeyVerifierTable {
  id: string
  /** Fingerprint of the key every sealed value opens with (the old key while a rotation runs). */
  key_id: string
  /** A fixed text sealed with that key. */
  sealed_check: string
  /** While a rotation runs: fingerprint of the key values are being re-sealed with. */
  rotating_to: string | null
  updated_at: string
}
