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
  sessions: SessionsTable
  password_links: PasswordLinksTable
  rate_limit_windows: RateLimitWindowsTable
  variables: VariablesTable
  encryption_key_verifier: EncryptionKeyVerifierTable
  check_groups: CheckGroupsTable
  checks: ChecksTable
  check_tags: CheckTagsTable
  check_tag_history: CheckTagHistoryTable
  projects: ProjectsTable
  project_resources: ProjectResourcesTable
  deployments: DeploymentsTable
  run_sessions: RunSessionsTable
  session_runs: SessionRunsTable
  trigger_tokens: TriggerTokensTable
  check_schedules: CheckSchedulesTable
  check_results: CheckResultsTable
  check_retries: CheckRetriesTable
  suite_runs: SuiteRunsTable
  agent_script_runs: AgentScriptRunsTable
  agent_script_run_artifacts: AgentScriptRunArtifactsTable
  runner_nodes: RunnerNodesTable
  node_lives: NodeLivesTable
  variable_references: VariableReferencesTable
  alert_channels: AlertChannelsTable
  alert_subscriptions: AlertSubscriptionsTable
  maintenance_windows: MaintenanceWindowsTable
  maintenance_periods: MaintenancePeriodsTable
  check_alert_states: CheckAlertStatesTable
  alert_notifications: AlertNotificationsTable
  private_locations: PrivateLocationsTable
  private_location_keys: PrivateLocationKeysTable
  agents: AgentsTable
  agent_events: AgentEventsTable
  status_page_services: StatusPageServicesTable
  status_page_service_checks: StatusPageServiceChecksTable
  status_pages: StatusPagesTable
  status_page_cards: StatusPageCardsTable
  status_page_card_services: StatusPageCardServicesTable
  status_page_access_tokens: StatusPageAccessTokensTable
  incidents: IncidentsTable
  incident_updates: IncidentUpdatesTable
  incident_component_impacts: IncidentComponentImpactsTable
  incident_impact_changes: IncidentImpactChangesTable
  status_page_service_days: StatusPageServiceDaysTable
  status_page_subscribers: StatusPageSubscribersTable
  status_page_confirm_tokens: StatusPageConfirmTokensTable
  status_page_emails: StatusPageEmailsTable
  analytics_rollups: AnalyticsRollupsTable
  analytics_zones: AnalyticsZonesTable
  error_groups: ErrorGroupsTable
  root_cause_analyses: RootCauseAnalysesTable
  snippets: SnippetsTable
  client_certificates: ClientCertificatesTable
}

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

/** A running server process: its node, where it runs, and until when it is known alive. */
export interface NodeLivesTable {
  life_id: string
  node_id: string
  hostname: string
  pid: number
  alive_until_ms: number
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

export interface AlertChannelsTable {
  id: Generated<number>
  account_id: string
  type: string
  /** JSON: the type's config; webhook secrets and locked header/parameter values sealed. */
  config: string
  send_recovery: SqlBool
  send_failure: SqlBool
  send_degraded: SqlBool
  ssl_expiry: SqlBool
  ssl_expiry_threshold: number
  auto_subscribe: SqlBool
  created_at: string
  updated_at: string
}

/** A channel's subscription of one check (`check_id`) or one group (`group_id`). */
export interface AlertSubscriptionsTable {
  id: Generated<number>
  channel_id: number
  check_id: string | null
  group_id: number | null
  activated: SqlBool
}

export interface MaintenanceWindowsTable {
  id: Generated<number>
  account_id: string
  name: string
  /** JSON array of tags. */
  tags: string
  starts_at: string
  ends_at: string
  repeat_unit: string | null
  repeat_interval: number | null
  repeat_ends_at: string | null
  /** Its occurrences count in the status history from then on: its creation, or its schedule's or tags' last change. */
  history_from: string
  created_at: string
  updated_at: string
}

/** A past stretch of maintenance kept of a window deleted, or whose schedule or tags changed since. */
export interface MaintenancePeriodsTable {
  id: Generated<number>
  account_id: string
  /** JSON array of the tags the window covered then. */
  tags: string
  starts_at: string
  ends_at: string
}

export interface CheckAlertStatesTable {
  check_id: string
  /** JSON: the alerter's fold of the check's final results (episode, counters, reminders). */
  state: string
  /** When a reminder or time-based escalation may be due without a new result. */
  wake_at_ms: number | null
  updated_at: string
}

export interface AlertNotificationsTable {
  id: string
  account_id: string
  channel_id: number | null
  channel_type: string
  check_id: string | null
  alert_type: string
  /** JSON: the event's variables, frozen when the alert was decided. */
  event: string
  /** PENDING, DELIVERED, FAILED or CANCELLED. */
  status: string
  attempts: number
  next_attempt_ms: number
  lease_owner: string | null
  lease_until_ms: number | null
  /** JSON: the last attempt's outcome. */
  last_response: string | null
  /** JSON array: every attempt's outcome. */
  attempt_log: string
  created_at: string
  /** Order among notifications decided in the same transaction. */
  position: number
  updated_at: string
  delivered_at: string | null
}

export interface PrivateLocationsTable {
  id: string
  account_id: string
  name: string
  /** What checks name in `privateLocations`; unique per account. */
  slug_name: string
  icon: string | null
  proxy_url: string | null
  /** When its last agent said goodbye (ms): `lastSeenAt` once no agent row is left. */
  agent_left_ms: number | null
  created_at: string
  updated_at: string
}

export interface PrivateLocationKeysTable {
  id: string
  private_location_id: string
  key_hash: string
  masked_key: string
  created_at: string
  updated_at: string
}

/** An agent of a private location, keyed by its location and the id it picked (unique only within it). */
export interface AgentsTable {
  id: string
  private_location_id: string
  version: string
  hostname: string
  running_jobs: number
  started_at: string
  last_seen_ms: number
}

export interface AgentEventsTable {
  id: string
  private_location_id: string
  agent_id: string | null
  message: string
  stack: string | null
  agent_version: string
  platform: string
  runtime_version: string
  created_at: string
}

export interface StatusPageServicesTable {
  id: string
  account_id: string
  name: string
  description: string | null
  created_at: string
  updated_at: string
}

export interface StatusPageServiceChecksTable {
  service_id: string
  check_id: string
}

export interface StatusPagesTable {
  id: string
  account_id: string
  name: string
  /** The slug of /status/{url}, unique across accounts. */
  url: string
  custom_domain: string | null
  description: string | null
  logo: string | null
  logo_dark: string | null
  favicon: string | null
  redirect_to: string | null
  default_theme: string
  /** JSON {light, dark}; null for the default palette. */
  theme_colors: string | null
  is_private: SqlBool
  white_label: SqlBool
  version: number
  /** Bumped by every change that shows on the public page (page caches compare it). */
  content_version: number
  created_at: string
  updated_at: string
}

export interface StatusPageCardsTable {
  id: string
  status_page_id: string
  name: string
  position: number
  created_at: string
  updated_at: string
}

export interface StatusPageCardServicesTable {
  card_id: string
  service_id: string
  position: number
}

export interface StatusPageAccessTokensTable {
  id: string
  status_page_id: string
  name: string
  token_hash: string
  masked_token: string
  created_at: string
}

export interface IncidentsTable {
  id: string
  account_id: string
  status_page_id: string
  name: string
  severity: string | null
  /** The check whose triggerIncident opened the incident. */
  source_check_id: string | null
  last_update_status: string
  /** The earliest update's public date. */
  started_at: string
  /** The resolving update's public date while the latest update is RESOLVED. */
  resolved_at: string | null
  /** Seconds from started_at to resolved_at; null while ongoing. */
  duration: number | null
  created_at: string
  updated_at: string
}

export interface IncidentUpdatesTable {
  id: string
  incident_id: string
  description: string
  status: string
  /** publicIncidentUpdateDate. */
  public_date: string
  /** Posting order within the incident (ties of public_date). */
  seq: number
  notify_subscribers: SqlBool
  created_at: string
  updated_at: string
}

export interface IncidentComponentImpactsTable {
  id: string
  incident_id: string
  service_id: string
  status: string
  /** The last non-operational status of the impact, kept when it ends. */
  declared_status: string
  started_at: string
  ended_at: string | null
  created_at: string
}

/** A status an open impact held until it changed to another non-operational one. */
export interface IncidentImpactChangesTable {
  impact_id: string
  status: string
  until: string
}

/** Daily final-run counts (maintenance runs apart) that checks deleted or taken off contributed to a service. */
export interface StatusPageServiceDaysTable {
  service_id: string
  /** The check they were counted of; '' for days kept before they were kept per check. */
  check_id: string
  /** YYYY-MM-DD, UTC. */
  day: string
  /** Final runs outside maintenance windows. */
  total: number
  /** Failed final runs outside maintenance windows. */
  failed: number
  /** Final runs during a maintenance window covering the check. */
  maintenance: number
}

export interface StatusPageSubscribersTable {
  id: string
  status_page_id: string
  email: string
  confirmation_sent_at: string
  confirmed_at: string | null
  unsubscribe_token: string
  created_at: string
}

/** One per confirmation link sent: every link confirms until the subscriber is gone. */
export interface StatusPageConfirmTokensTable {
  /** sha256 hex of the token in the link. */
  token_hash: string
  subscriber_id: string
  created_at: string
}

export interface StatusPageEmailsTable {
  id: string
  dedupe_key: string
  status_page_id: string
  subscriber_id: string | null
  to_address: string
  subject: string
  text_body: string
  html_body: string | null
  /** JSON object of extra headers (List-Unsubscribe, ...). */
  headers: string
  /** PENDING, SENT or FAILED. */
  status: string
  attempts: number
  next_attempt_ms: number
  lease_owner: string | null
  lease_until_ms: number | null
  last_error: string | null
  created_at: string
  sent_at: string | null
}

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

export interface ProjectsTable {
  id: string
  account_id: string
  logical_id: string
  name: string
  repo_url: string | null
  created_at: string
  updated_at: string
}

export interface ProjectResourcesTable {
  project_id: string
  resource_type: string
  logical_id: string
  physical_id: string
  /** JSON: the payload that last deployed it. */
  payload: string
  source_file: string | null
}

export interface DeploymentsTable {
  id: string
  account_id: string
  project_logical_id: string
  /** 'DEPLOY' or 'DELETE' (a project's deletion). */
  kind: string
  /** 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED' or 'CANCELLED'. */
  status: string
  progress: Generated<number>
  request: string | null
  result: string | null
  error: string | null
  cancel_requested: Generated<number | boolean>
  lease_until: string | null
  created_at: string
  updated_at: string
  finished_at: string | null
}

export interface SnippetsTable {
  id: Generated<number>
  account_id: string
  name: string
  script: string
  created_at: string
  updated_at: string | null
}

export interface ClientCertificatesTable {
  id: string
  account_id: string
  /** The host pattern: `api.acme.com` or a wildcard such as `*.acme.com`. */
  host: string
  cert: string
  ca: string | null
  /** JSON `{"sealedKey": ..., "sealedPassphrase": ...}`: the private key and its passphrase, sealed. */
  secrets: string
  created_at: string
}

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
