import type { Generated, SqlBool } from 'kysely'

/**
 * Table types of the store. Conventions, same on both engines:
 * timestamps are ISO 8601 UTC text (sortable, comparable), JSON documents are text,
 * booleans read back as 0/1 on SQLite and true/false on PostgreSQL (use Boolean()).
 */
export interface Database {
  users: UsersTable
  accounts: AccountsTable
  memberships: MembershipsTable
  api_keys: ApiKeysTable
  rate_limit_windows: RateLimitWindowsTable
  variables: VariablesTable
  check_groups: CheckGroupsTable
  checks: ChecksTable
  check_tags: CheckTagsTable
  check_schedules: CheckSchedulesTable
  check_results: CheckResultsTable
  check_retries: CheckRetriesTable
  runner_nodes: RunnerNodesTable
  variable_references: VariableReferencesTable
}

export interface UsersTable {
  id: string
  email: string
  name: string
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

export interface RateLimitWindowsTable {
  bucket: string
  window_start_ms: number
  hits: number
}

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

export interface CheckGroupsTable {
  id: Generated<number>
  account_id: string
  name: string
  activated: SqlBool
  muted: SqlBool
  /** JSON: everything the group's checks inherit (locations, frequency, variables, alerting, ...). */
  definition: string
  created_at: string
  updated_at: string
}

export interface ChecksTable {
  id: string
  account_id: string
  check_type: string
  name: string
  activated: SqlBool
  muted: SqlBool
  group_id: number | null
  group_order: number | null
  /** Set for HEARTBEAT checks: the secret in their ping URL. */
  heartbeat_token: string | null
  /** JSON: the check's full definition as the API accepted it, defaults applied, sealed secrets. */
  definition: string
  created_at: string
  updated_at: string
}

export interface CheckTagsTable {
  check_id: string
  tag: string
}

export interface CheckSchedulesTable {
  check_id: string
  location: string
  next_due_ms: number
  /** The node (scheduler instance) running this slot now, until `lease_until_ms`. */
  lease_owner: string | null
  lease_until_ms: number | null
}

export interface CheckResultsTable {
  id: string
  job_id: string
  check_id: string
  account_id: string
  check_type: string
  run_location: string
  started_at: string
  stopped_at: string
  response_time: number
  has_failures: SqlBool
  has_errors: SqlBool
  is_degraded: SqlBool
  over_max_response_time: SqlBool
  attempts: number
  result_type: string
  error_type: string | null
  error_message: string | null
  status_code: number | null
  /** JSON: the runner's type-specific result (apiCheckResult, tcpCheckResult, ...). */
  detail: string
  created_at: string
}

export interface CheckRetriesTable {
  /** The job id of the run that failed first: `${checkId}:${location}:${dueMs}`. */
  slot_key: string
  check_id: string
  /** Where the next attempt runs (another location unless the strategy keeps the same region). */
  location: string
  /** The attempt this row runs next: 2 for the first retry. */
  attempt: number
  next_due_ms: number
  first_started_ms: number
  lease_owner: string | null
  lease_until_ms: number | null
}

export interface RunnerNodesTable {
  id: string
  /** JSON array of the data-center locations the node runs checks for. */
  locations: string
  hostname: string
  version: string
  started_at: string
  last_seen_ms: number
}

export interface VariableReferencesTable {
  account_id: string
  /** 'check' or 'group'. */
  owner_type: string
  owner_id: string
  key: string
}
