import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // The result ids given out with agents' script runs, so an artifact upload (which names only a
  // check and a result id) is tied to its run: taken only while that run is open for its location.
  await db.schema
    .createTable('agent_script_runs')
    .addColumn('result_id', 'text', (c) => c.primaryKey())
    .addColumn('check_id', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('slot_key', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('issued_ms', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('agent_script_runs_issued_idx')
    .on('agent_script_runs')
    .column('issued_ms')
    .execute()
}
