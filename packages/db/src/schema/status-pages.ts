// Status pages, their cards, services and access tokens, subscribers and their email outbox:
// features/status-pages, status-page-services and status-page-subscribers.
import type { SqlBool } from 'kysely'

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
