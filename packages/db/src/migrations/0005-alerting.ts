import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const serial = engine === 'postgres' ? 'serial' : 'integer'
  const serialKey = (c: ColumnDefinitionBuilder) =>
    engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()

  await db.schema
    .createTable('alert_channels')
    .addColumn('id', serial, serialKey)
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('send_recovery', 'boolean', (c) => c.notNull())
    .addColumn('send_failure', 'boolean', (c) => c.notNull())
    .addColumn('send_degraded', 'boolean', (c) => c.notNull())
    .addColumn('ssl_expiry', 'boolean', (c) => c.notNull())
    .addColumn('ssl_expiry_threshold', 'integer', (c) => c.notNull())
    .addColumn('auto_subscribe', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('alert_channels_account_idx')
    .on('alert_channels')
    .column('account_id')
    .execute()

  // One row per channel and check, or channel and group: the only record of who alerts where.
  await db.schema
    .createTable('alert_subscriptions')
    .addColumn('id', serial, serialKey)
    .addColumn('channel_id', 'integer', (c) =>
      c.notNull().references('alert_channels.id').onDelete('cascade'),
    )
    .addColumn('check_id', 'text', (c) => c.references('checks.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('check_groups.id').onDelete('cascade'))
    .addColumn('activated', 'boolean', (c) => c.notNull())
    .addUniqueConstraint('alert_subscriptions_check_uq', ['channel_id', 'check_id'])
    .addUniqueConstraint('alert_subscriptions_group_uq', ['channel_id', 'group_id'])
    .execute()
  await db.schema
    .createIndex('alert_subscriptions_check_idx')
    .on('alert_subscriptions')
    .column('check_id')
    .execute()
  await db.schema
    .createIndex('alert_subscriptions_group_idx')
    .on('alert_subscriptions')
    .column('group_id')
    .execute()

  await db.schema
    .createTable('maintenance_windows')
    .addColumn('id', serial, serialKey)
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addColumn('repeat_unit', 'text')
    .addColumn('repeat_interval', 'integer')
    .addColumn('repeat_ends_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('maintenance_windows_account_idx')
    .on('maintenance_windows')
    .column('account_id')
    .execute()

  // Per-check alerting state, folded from each final result in the transaction that stores it.
  await db.schema
    .createTable('check_alert_states')
    .addColumn('check_id', 'text', (c) => c.primaryKey().references('checks.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('wake_at_ms', 'bigint')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('check_alert_states_wake_idx')
    .on('check_alert_states')
    .column('wake_at_ms')
    .execute()

  // The outbox: a notification row is written with the alert decision and delivered from here.
  await db.schema
    .createTable('alert_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('channel_id', 'integer', (c) => c.references('alert_channels.id').onDelete('set null'))
    .addColumn('channel_type', 'text', (c) => c.notNull())
    .addColumn('check_id', 'text')
    .addColumn('alert_type', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_ms', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_ms', 'bigint')
    .addColumn('last_response', 'text')
    .addColumn('attempt_log', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Order among notifications decided in one transaction (same created_at): recovery before the next alert.
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute()
  await db.schema
    .createIndex('alert_notifications_due_idx')
    .on('alert_notifications')
    .columns(['status', 'next_attempt_ms'])
    .execute()
  await db.schema
    .createIndex('alert_notifications_account_idx')
    .on('alert_notifications')
    .columns(['account_id', 'created_at'])
    .execute()
}
