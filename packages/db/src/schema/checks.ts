// Checks, their groups and tags, snippets and trigger tokens: features/checks, check-groups, snippets, triggers.
import type { Generated, SqlBool } from 'kysely'

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

/** The tags a check had (its own and its group's) until they changed, for the status history. */
export interface CheckTagHistoryTable {
  id: Generated<number>
  account_id: string
  check_id: string
  /** JSON array of its tags until `ends_at`, since the `ends_at` of its row before (if any). */
  tags: string
  ends_at: string
}

export interface SnippetsTable {
  id: Generated<number>
  account_id: string
  name: string
  script: string
  created_at: string
  updated_at: string | null
}

export interface TriggerTokensTable {
  id: Generated<number>
  account_id: string
  check_id: string | null
  group_id: number | null
  token: string
  created_at: string
  called_at: string | null
  updated_at: string | null
}
