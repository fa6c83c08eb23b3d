// Alert channels and their subscriptions, each check's alert state and the notification outbox:
// features/alert-channels and alerting.
import type { Generated, SqlBool } from 'kysely'

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
