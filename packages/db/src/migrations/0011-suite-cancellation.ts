import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // A cancelled suite run's result is kept but counts for nothing: no alerts, statuses or analytics.
  await db.schema
    .alterTable('check_results')
    .addColumn('is_cancelled', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute()
  // Suite runs in flight, wherever they run: the cancel route marks them, their runner polls for the mark.
  await db.schema
    .createTable('suite_runs')
    .addColumn('job_id', 'text', (c) => c.primaryKey())
    .addColumn('check_id', 'text', (c) => c.notNull())
    .addColumn('runner', 'text', (c) => c.notNull())
    .addColumn('alive_until_ms', 'bigint', (c) => c.notNull())
    .addColumn('cancel_requested_ms', 'bigint')
    .execute()
  await db.schema.createIndex('suite_runs_check_idx').on('suite_runs').column('check_id').execute()
  await db.schema.createIndex('suite_runs_runner_idx').on('suite_runs').column('runner').execute()
}
