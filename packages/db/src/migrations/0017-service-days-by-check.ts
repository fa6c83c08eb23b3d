import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // The days a service keeps of a check taken off it (or deleted) are kept per check: put back, the
  // check counts its own runs there again instead of them (not beside them), and keeping them twice at
  // once (simultaneous requests) replaces instead of adding. Days kept before this were kept of no
  // check in particular: `check_id` '' (no check has that id), so they always count.
  await db.schema
    .createTable('status_page_service_check_days')
    .addColumn('service_id', 'text', (c) =>
      c.notNull().references('status_page_services.id').onDelete('cascade'),
    )
    /** No reference: the days stay when the check is deleted. */
    .addColumn('check_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('maintenance', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('status_page_service_check_days_pk', ['service_id', 'check_id', 'day'])
    .execute()
  await sql`
    insert into status_page_service_check_days (service_id, check_id, day, total, failed, maintenance)
    select service_id, '', day, total, failed, maintenance from status_page_service_days`.execute(db)
  await db.schema.dropTable('status_page_service_days').execute()
  await db.schema.alterTable('status_page_service_check_days').renameTo('status_page_service_days').execute()
}
