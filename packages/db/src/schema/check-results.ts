// Stored check results: features/check-results.
import type { Generated, SqlBool } from 'kysely'

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
  /** A suite run stopped on request: kept, but left out of alerting, statuses and analytics. */
  is_cancelled: SqlBool
}

/**
 * Where results are stored (migration 0035): `check_results` is a view of this table with the readable
 * columns. Written and read only by features/check-results (result-rows.ts encodes and decodes a row).
 */
export interface ResultsTable {
  key: Generated<number>
  /** A UUID as its 16 bytes on SQLite; any other id, and every id on PostgreSQL, as text. */
  id: string | Uint8Array
  check_key: number
  /** The job id without its check id (`<due>::<location>`), or `=` and the whole job id. */
  job: string
  check_type: string
  run_location: string
  started_ms: number
  stopped_after_ms: number
  created_after_ms: number
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
  /** JSON text; on SQLite a passing result's compact detail may be bytes (check-results/result-rows.ts). */
  detail: string | Uint8Array
  is_cancelled: SqlBool
}

/** A short key per check that has results: results name their check by it. */
export interface ResultChecksTable {
  key: Generated<number>
  check_id: string
}
