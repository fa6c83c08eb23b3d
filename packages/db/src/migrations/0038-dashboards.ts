import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // Public dashboards of check status (hosted ids: an integer `id` and a string `dashboardId`).
  await db.schema
    .createTable('dashboards')
    .addColumn('id', engine === 'postgres' ? 'serial' : 'integer', (c) =>
      engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('public_id', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('custom_url', 'text', (c) => c.unique())
    .addColumn('custom_domain', 'text', (c) => c.unique())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute()
  await db.schema
    .createIndex('dashboards_account_idx')
    .on('dashboards')
    .columns(['account_id', 'id'])
    .execute()

  // A dashboard's incidents: a name, an impact and a period, told in updates (no services or subscribers).
  await db.schema
    .createTable('dashboard_incidents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('dashboard_id', 'integer', (c) => c.notNull().references('dashboards.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('impact', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('stopped_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute()
  await db.schema
    .createIndex('dashboard_incidents_dashboard_idx')
    .on('dashboard_incidents')
    .columns(['dashboard_id', 'created_at'])
    .execute()
  await db.schema
    .createTable('dashboard_incident_updates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('incident_id', 'text', (c) =>
      c.notNull().references('dashboard_incidents.id').onDelete('cascade'),
    )
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute()
  await db.schema
    .createIndex('dashboard_incident_updates_incident_idx')
    .on('dashboard_incident_updates')
    .columns(['incident_id', 'seq'])
    .execute()
}
