// The run pipeline's tables: schedules, retries, suite runs in flight, script runs given to agents, and the
// nodes that run them: runs/, features/agent-protocol and node-life/.
import type { Generated } from 'kysely'

export interface CheckSchedulesTable {
  check_id: string
  location: string
  /** When the row may next be claimed: its slot's due time, or while leased, when the lease runs out. */
  next_due_ms: number
  /** The node (scheduler instance or agent) running this slot now. */
  lease_owner: string | null
  /** While leased, the due time of the slot being run (it names the job); null otherwise. */
  leased_due_ms: number | null
}

export interface CheckRetriesTable {
  /** The job id of the run that failed first: `${dueMs}:${checkId}:${location}` (see server runs/jobs.ts). */
  slot_key: string
  check_id: string
  /** Where the next attempt runs (another location unless the strategy keeps the same region). */
  location: string
  /** The attempt this row runs next: 2 for the first retry. */
  attempt: number
  /** When the row may next be claimed: the attempt's due time, or while leased, when the lease runs out. */
  next_due_ms: number
  first_started_ms: number
  lease_owner: string | null
  /** While leased, the due time of the attempt being run; null otherwise. */
  leased_due_ms: number | null
}

/** A Playwright check suite run in flight (in this process, a `svc runner` or an agent), cancellable. */
export interface SuiteRunsTable {
  /** The run's job id (see server runs/jobs.ts), the same wherever it runs. */
  job_id: string
  check_id: string
  /** Who runs it: a scheduler's lease owner, a server process (triggers) or `agent:<location id>:<agent id>`. */
  runner: string
  /** Until when it counts as in flight; its runner renews it, a dead runner's row runs out. */
  alive_until_ms: number
  /** When a cancel was asked for; null while none was. */
  cancel_requested_ms: number | null
}

/**
 * A script run given to a private location's agent, by the result id it was given: the agent uploads the
 * run's artifacts under that id before posting its outcome, and may only while the run is open.
 */
export interface AgentScriptRunsTable {
  result_id: string
  check_id: string
  /** The location it was given to (`private:<id>`). */
  location: string
  /** The run, as its outcome names it (see server runs/jobs.ts). */
  slot_key: string
  attempt: number
  issued_ms: number
  /** What its agent's uploads hold or have reserved, in bytes (never past the per-run artifact limit). */
  artifact_bytes: Generated<number>
}

/** The size of each artifact path a script run given to an agent holds: a re-upload replaces, not adds. */
export interface AgentScriptRunArtifactsTable {
  result_id: string
  path: string
  bytes: number
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

/** A running server process: its node, where it runs, and until when it is known alive. */
export interface NodeLivesTable {
  life_id: string
  node_id: string
  hostname: string
  pid: number
  alive_until_ms: number
}
