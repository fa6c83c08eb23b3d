// Test and check sessions and their runs: features/test-sessions.
import type { Generated } from 'kysely'

export interface RunSessionsTable {
  id: string
  account_id: string
  /** 'TEST' or 'CHECK'. */
  kind: string
  name: string
  check_id: string | null
  check_type: string | null
  run_source: string
  /** JSON: the locations it runs in. */
  run_locations: string
  /** JSON: variables its runs take over their checks' own (every value sealed); null for none. */
  environment_variables: string | null
  cancelled: Generated<number | boolean>
  created_at: string
  stopped_at: string | null
}

export interface SessionRunsTable {
  id: string
  session_id: string
  account_id: string
  position: number
  check_id: string | null
  logical_id: string | null
  name: string
  check_type: string
  location: string
  /** The project file an unsaved definition came from (the hosted CLI's `filePath`), echoed in its result. */
  source_file: string | null
  /** JSON: an unsaved definition; null for a saved check. */
  definition: string | null
  /** 'QUEUED', 'RUNNING', 'DONE' or 'CANCELLED'. */
  status: string
  lease_owner: string | null
  lease_until_ms: number | null
  result_id: string | null
  /** JSON: an unsaved definition's whole result. */
  result: string | null
  has_failures: number | boolean | null
  has_errors: number | boolean | null
  is_degraded: number | boolean | null
  response_time: number | null
  created_at: string
  started_at: string | null
  stopped_at: string | null
}
