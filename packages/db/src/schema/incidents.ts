// Status page incidents, their updates and component impacts: features/incidents.
import type { SqlBool } from 'kysely'

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
