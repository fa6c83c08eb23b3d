// Accounts, their users and memberships, API keys, sign-in sessions and rate limits: features/accounts,
// api-keys, sessions and rate-limit/.

export interface UsersTable {
  id: string
  email: string
  name: string
  /** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64url); null until a password is set. */
  password_hash: string | null
  created_at: string
  updated_at: string
}

export interface AccountsTable {
  id: string
  name: string
  runtime_id: string
  settings: string
  alert_settings: string
  created_at: string
  updated_at: string
}

export interface MembershipsTable {
  user_id: string
  account_id: string
  role: string
  created_at: string
  /** The inviter's email when the member was invited; null otherwise. */
  invited_by?: string | null
  /** Set while the invitation is not accepted (the invited person has set no password yet). */
  invite_expires_at?: string | null
}

export interface ApiKeysTable {
  id: string
  name: string
  key_hash: string
  masked_key: string
  /** Set for a user key: the key acts as this user. */
  user_id: string | null
  /** Set for a service key: the key belongs to this account with `role`. */
  account_id: string | null
  role: string | null
  created_at: string
  revoked_at: string | null
}

export interface SessionsTable {
  /** sha256 hex of the random id in the session cookie. */
  id_hash: string
  /** The signed-in user (password sessions and user-key sessions). */
  user_id: string | null
  /** Set when signed in with an API key: the session acts with that key's rights. */
  api_key_id: string | null
  created_at: string
  last_seen_at: string
  /** The session ends here whatever its use (its idle timeout may end it earlier). */
  expires_at: string
}

export interface PasswordLinksTable {
  /** sha256 hex of the token in the link. */
  token_hash: string
  user_id: string
  created_at: string
  expires_at: string
  used_at: string | null
}

export interface RateLimitWindowsTable {
  bucket: string
  window_start_ms: number
  hits: number
}
