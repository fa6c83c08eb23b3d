import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // Services (components) are account-wide: one service may show on several pages.
  await db.schema
    .createTable('status_page_services')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('status_page_services_account_idx')
    .on('status_page_services')
    .columns(['account_id', 'created_at'])
    .execute()
  await db.schema
    .createTable('status_page_service_checks')
    .addColumn('service_id', 'text', (c) =>
      c.notNull().references('status_page_services.id').onDelete('cascade'),
    )
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('status_page_service_checks_pk', ['service_id', 'check_id'])
    .execute()
  await db.schema
    .createIndex('status_page_service_checks_check_idx')
    .on('status_page_service_checks')
    .column('check_id')
    .execute()

  await db.schema
    .createTable('status_pages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    /** The slug of /status/{url}: unique across all accounts. */
    .addColumn('url', 'text', (c) => c.notNull().unique())
    .addColumn('custom_domain', 'text', (c) => c.unique())
    .addColumn('description', 'text')
    .addColumn('logo', 'text')
    .addColumn('logo_dark', 'text')
    .addColumn('favicon', 'text')
    .addColumn('redirect_to', 'text')
    .addColumn('default_theme', 'text', (c) => c.notNull())
    /** JSON {light, dark} or null for the default palette. */
    .addColumn('theme_colors', 'text')
    .addColumn('is_private', 'boolean', (c) => c.notNull())
    .addColumn('white_label', 'boolean', (c) => c.notNull())
    /** The page's own version, bumped by every change of its settings or cards. */
    .addColumn('version', 'integer', (c) => c.notNull())
    /** Bumped by any change that shows on the public page; caches on every node compare it. */
    .addColumn('content_version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('status_pages_account_idx')
    .on('status_pages')
    .columns(['account_id', 'created_at'])
    .execute()
  await db.schema
    .createTable('status_page_cards')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('status_page_id', 'text', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('status_page_cards_page_idx')
    .on('status_page_cards')
    .columns(['status_page_id', 'position'])
    .execute()
  await db.schema
    .createTable('status_page_card_services')
    .addColumn('card_id', 'text', (c) => c.notNull().references('status_page_cards.id').onDelete('cascade'))
    // No cascade: a service shown on a page can't be deleted (409) until it is taken off.
    .addColumn('service_id', 'text', (c) => c.notNull().references('status_page_services.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('status_page_card_services_pk', ['card_id', 'service_id'])
    .execute()
  await db.schema
    .createIndex('status_page_card_services_service_idx')
    .on('status_page_card_services')
    .column('service_id')
    .execute()
  await db.schema
    .createTable('status_page_access_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('status_page_id', 'text', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('masked_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('incidents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('status_page_id', 'text', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('severity', 'text')
    /** The check whose triggerIncident opened it (no foreign key: the check may be deleted). */
    .addColumn('source_check_id', 'text')
    // Derived from the updates on every change of them, so lists and pages need no aggregation.
    .addColumn('last_update_status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addColumn('duration', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('incidents_page_idx')
    .on('incidents')
    .columns(['status_page_id', 'started_at'])
    .execute()
  await db.schema
    .createIndex('incidents_source_check_idx')
    .on('incidents')
    .columns(['source_check_id', 'last_update_status'])
    .execute()
  await db.schema
    .createTable('incident_updates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('incident_id', 'text', (c) => c.notNull().references('incidents.id').onDelete('cascade'))
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('public_date', 'text', (c) => c.notNull())
    /** Posting order within the incident: breaks ties between updates of the same public date. */
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('notify_subscribers', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('incident_updates_incident_idx')
    .on('incident_updates')
    .columns(['incident_id', 'public_date'])
    .execute()
  await db.schema
    .createTable('incident_component_impacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('incident_id', 'text', (c) => c.notNull().references('incidents.id').onDelete('cascade'))
    .addColumn('service_id', 'text', (c) =>
      c.notNull().references('status_page_services.id').onDelete('cascade'),
    )
    .addColumn('status', 'text', (c) => c.notNull())
    /** The last non-operational status of the impact, kept when it ends (status then reads OPERATIONAL). */
    .addColumn('declared_status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('incident_component_impacts_incident_idx')
    .on('incident_component_impacts')
    .columns(['incident_id', 'started_at'])
    .execute()

  await db.schema
    .createTable('status_page_subscribers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('status_page_id', 'text', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('confirm_token_hash', 'text')
    .addColumn('confirmation_sent_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    /** Kept as is: every email carries it, and it can only unsubscribe. */
    .addColumn('unsubscribe_token', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('status_page_subscribers_email_uq', ['status_page_id', 'email'])
    .execute()
  await db.schema
    .createIndex('status_page_subscribers_confirm_idx')
    .on('status_page_subscribers')
    .column('confirm_token_hash')
    .execute()
  // Subscriber mail waits here until delivered: a crash or a down SMTP server delays it, never loses it.
  await db.schema
    .createTable('status_page_emails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** One email per purpose and subscriber (e.g. one per incident update): enqueueing twice is a no-op. */
    .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
    .addColumn('status_page_id', 'text', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('subscriber_id', 'text', (c) => c.references('status_page_subscribers.id').onDelete('cascade'))
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_ms', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_ms', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .execute()
  await db.schema
    .createIndex('status_page_emails_due_idx')
    .on('status_page_emails')
    .columns(['status', 'next_attempt_ms'])
    .execute()
}
