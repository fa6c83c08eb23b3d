// Stored check results: features/check-results.
import type { SqlBool } from 'kysely'

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
