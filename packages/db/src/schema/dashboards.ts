// Public dashboards of check status and their incidents: features/dashboards.
import type { Generated } from 'kysely'

export interface DashboardsTable {
  /** The hosted numeric `id`, which dashboard incidents name. */
  id: Generated<number>
  /** The hosted string `dashboardId` that the API's paths take. */
  public_id: string
  account_id: string
  /** Unique across the install; the page is served at /dashboards/{custom_url}. */
  custom_url: string | null
  /** Unique across the install; the page is served at this host's root. */
  custom_domain: string | null
  /** JSON tag list selecting the checks shown (none: every check of the account). */
  tags: string
  /** JSON object of the display settings (header, width, refreshRate, ...), hosted field names. */
  settings: string
  created_at: string
  updated_at: string | null
}

export interface DashboardIncidentsTable {
  id: string
  dashboard_id: number
  account_id: string
  name: string
  /** MINOR, MAJOR or MAINTENANCE. */
  impact: string
  started_at: string | null
  stopped_at: string | null
  created_at: string
  updated_at: string | null
}

export interface DashboardIncidentUpdatesTable {
  id: string
  incident_id: string
  /** Posting order within the incident. */
  seq: number
  status: string
  description: string
  created_at: string
  updated_at: string | null
}
