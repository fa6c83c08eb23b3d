// Maintenance windows and the past stretches kept of them: features/maintenance-windows.
import type { Generated } from 'kysely'

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
