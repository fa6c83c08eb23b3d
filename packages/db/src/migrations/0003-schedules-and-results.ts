import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // The only schedule: one row per check and location, claimed with a lease by whichever node is free.
  await db.schema
    .createTable('check_schedules')
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('next_due_ms', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_ms', 'bigint')
    .addPrimaryKeyConstraint('check_schedules_pk', ['check_id', 'location'])
    .execute()
  await db.schema
    .createIndex('check_schedules_due_idx')
    .on('check_schedules')
    .columns(['location', 'next_due_ms'])
    .execute()

  await db.schema
    .createTable('check_results')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** Idempotency: one result per scheduled job (check, location, due slot, attempt). */
    .addColumn('job_id', 'text', (c) => c.notNull().unique())
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('check_type', 'text', (c) => c.notNull())
    .addColumn('run_location', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('stopped_at', 'text', (c) => c.notNull())
    .addColumn('response_time', 'double precision', (c) => c.notNull())
    .addColumn('has_failures', 'boolean', (c) => c.notNull())
    .addColumn('has_errors', 'boolean', (c) => c.notNull())
    .addColumn('is_degraded', 'boolean', (c) => c.notNull())
    .addColumn('over_max_response_time', 'boolean', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('result_type', 'text', (c) => c.notNull())
    .addColumn('error_type', 'text')
    .addColumn('error_message', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('check_results_check_started_idx')
    .on('check_results')
    .columns(['check_id', 'started_at'])
    .execute()
}
