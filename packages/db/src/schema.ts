import type {
  AccountsTable,
  ApiKeysTable,
  MembershipsTable,
  PasswordLinksTable,
  RateLimitWindowsTable,
  SessionsTable,
  UsersTable,
} from './schema/accounts.ts'
import type {
  AlertChannelsTable,
  AlertNotificationsTable,
  AlertSubscriptionsTable,
  CheckAlertStatesTable,
} from './schema/alerting.ts'
import type {
  AnalyticsRollupsTable,
  AnalyticsZonesTable,
  ErrorGroupsTable,
  RootCauseAnalysesTable,
} from './schema/analytics.ts'
import type { CheckResultsTable, ResultChecksTable, ResultsTable } from './schema/check-results.ts'
import type {
  CheckGroupsTable,
  ChecksTable,
  CheckTagHistoryTable,
  CheckTagsTable,
  SnippetsTable,
  TriggerTokensTable,
} from './schema/checks.ts'
import type { ClientCertificatesTable } from './schema/client-certificates.ts'
import type {
  DashboardIncidentsTable,
  DashboardIncidentUpdatesTable,
  DashboardsTable,
} from './schema/dashboards.ts'
import type {
  IncidentComponentImpactsTable,
  IncidentImpactChangesTable,
  IncidentsTable,
  IncidentUpdatesTable,
} from './schema/incidents.ts'
import type {
  MaintenanceOccurrencesTable,
  MaintenanceOccurrenceUpdatesTable,
  MaintenancePeriodsTable,
  MaintenanceWindowsTable,
} from './schema/maintenance-windows.ts'
import type {
  AgentEventsTable,
  AgentsTable,
  PrivateLocationKeysTable,
  PrivateLocationsTable,
} from './schema/private-locations.ts'
import type { DeploymentsTable, ProjectResourcesTable, ProjectsTable } from './schema/projects.ts'
import type {
  AgentScriptRunArtifactsTable,
  AgentScriptRunsTable,
  CheckRetriesTable,
  CheckSchedulesTable,
  NodeLivesTable,
  RunnerNodesTable,
  SuiteRunsTable,
} from './schema/runs.ts'
import type {
  StatusPageAccessTokensTable,
  StatusPageCardServicesTable,
  StatusPageCardsTable,
  StatusPageConfirmTokensTable,
  StatusPageEmailsTable,
  StatusPageServiceChecksTable,
  StatusPageServiceDaysTable,
  StatusPageServicesTable,
  StatusPageSubscribersTable,
  StatusPagesTable,
} from './schema/status-pages.ts'
import type { StoredFilesTable } from './schema/stored-files.ts'
import type { RunSessionsTable, SessionRunsTable } from './schema/test-sessions.ts'
import type {
  EncryptionKeyVerifierTable,
  VariableReferencesTable,
  VariablesTable,
} from './schema/variables.ts'

// Each table's type lives in schema/ beside the other tables of the feature that owns it.
export type * from './schema/accounts.ts'
export type * from './schema/alerting.ts'
export type * from './schema/analytics.ts'
export type * from './schema/check-results.ts'
export type * from './schema/checks.ts'
export type * from './schema/client-certificates.ts'
export type * from './schema/dashboards.ts'
export type * from './schema/incidents.ts'
export type * from './schema/maintenance-windows.ts'
export type * from './schema/private-locations.ts'
export type * from './schema/projects.ts'
export type * from './schema/runs.ts'
export type * from './schema/status-pages.ts'
export type * from './schema/stored-files.ts'
export type * from './schema/test-sessions.ts'
export type * from './schema/variables.ts'

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
  /** A view of `results` with readable columns (migration 0035): read it, write `results`. */
  check_results: CheckResultsTable
  results: ResultsTable
  result_checks: ResultChecksTable
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
  maintenance_occurrences: MaintenanceOccurrencesTable
  maintenance_occurrence_updates: MaintenanceOccurrenceUpdatesTable
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
  dashboards: DashboardsTable
  dashboard_incidents: DashboardIncidentsTable
  dashboard_incident_updates: DashboardIncidentUpdatesTable
  stored_files: StoredFilesTable
}
