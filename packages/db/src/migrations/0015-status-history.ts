import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // The statuses an open impact held before a change to another non-operational status (the impact keeps
  // its start): the page's past bars show the worst status declared each day, not only the latest.
  await db.schema
    .createTable('incident_impact_changes')
    .addColumn('impact_id', 'text', (c) =>
      c.notNull().references('incident_component_impacts.id').onDelete('cascade'),
    )
    .addColumn('status', 'text', (c) => c.notNull())
    /** When the impact stopped holding `status`. */
    .addColumn('until', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('incident_impact_changes_pk', ['impact_id', 'until', 'status'])
    .execute()
  // The daily final-run counts a deleted check contributed to each service it was linked to: a service's
  // past bars stay what the public saw. Going with the service (and so the account); pruned with results.
  await db.schema
    .createTable('status_page_service_days')
    .addColumn('service_id', 'text', (c) =>
      c.notNull().references('status_page_services.id').onDelete('cascade'),
    )
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('maintenance', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('status_page_service_days_pk', ['service_id', 'day'])
    .execute()
}
