// Analytics rollups, error groups and root cause analyses: features/analytics, error-groups and
// root-cause-analyses.
import type { SqlBool } from 'kysely'

export interface AnalyticsRollupsTable {
  check_id: string
  /** Minutes: 1 or 60 (aligned to UTC), or 1440: a local day of the check's zone (analytics_zones). */
  resolution: number
  bucket_ms: number
  location: string
  /** `success` / `failure`; for heartbeats FAILING, EARLY, RECEIVED, GRACE or LATE. */
  outcome: string
  /** The response status of URL and API results; -1 when there is none. */
  status_code: number
  /** -1 for whole runs; a browser run's pages also get a row each under their index. */
  page_index: number
  results: number
  retries: number
  /** The metrics' stats and sketches, binary (see @svc/core metric-stats). */
  stats: Uint8Array
}

export interface AnalyticsZonesTable {
  check_id: string
  zone: string
  since_ms: number
}

export interface ErrorGroupsTable {
  id: string
  account_id: string
  check_id: string
  error_hash: string
  error_type: string | null
  cleaned_message: string
  /** The latest raw message. */
  raw_message: string | null
  first_seen_at: string
  last_seen_at: string
  count: number
  /** JSON array: every location the error was seen in. */
  locations: string
  /** JSON array: locations whose latest final result still fails with this error. */
  failing_locations: string
  sample_result_id: string | null
  archived: SqlBool
  resolved_at: string | null
  created_at: string
  updated_at: string
}

export interface RootCauseAnalysesTable {
  id: string
  account_id: string
  error_group_id: string
  check_id: string
  /** PENDING, RUNNING, COMPLETED or FAILED. */
  status: string
  user_context: string
  /** JSON: the analysis, once COMPLETED. */
  analysis: string | null
  failure_reason: string | null
  provider: string | null
  model: string | null
  duration_ms: number | null
  attempts: number
  lease_owner: string | null
  lease_until_ms: number | null
  created_at: string
  updated_at: string
  completed_at: string | null
}
