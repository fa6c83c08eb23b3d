// Maintenance windows and the past stretches kept of them: features/maintenance-windows.
import type { Generated, SqlBool } from 'kysely'

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
  /** IANA zone its occurrences repeat in, local time (DST included); null repeats in UTC. */
  timezone: string | null
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

/** One occurrence of a window changed by hand; the window's schedule gives the others. */
export interface MaintenanceOccurrencesTable {
  window_id: number
  /** Its index in the window's schedule: 0 is the first occurrence. */
  occurrence: number
  account_id: string
  /** The span the schedule gives it. */
  original_starts_at: string
  original_ends_at: string
  /** The span it covers now (moved, or cut short by a COMPLETED update). */
  starts_at: string
  ends_at: string
  /** Null: as the clock says; CANCELLED and VERIFYING as posted; DELETED: gone from the API, covers nothing. */
  status: string | null
  created_at: string
  updated_at: string
}

/** A status update posted on an occurrence of a window. */
export interface MaintenanceOccurrenceUpdatesTable {
  id: string
  window_id: number
  occurrence: number
  status: string
  description: string
  notify_subscribers: SqlBool
  previous_status: string | null
  previous_starts_at: string | null
  previous_ends_at: string | null
  /** The span the update moved the occurrence to, when it did. */
  adjusted_starts_at: string | null
  adjusted_ends_at: string | null
  created_at: string
}
