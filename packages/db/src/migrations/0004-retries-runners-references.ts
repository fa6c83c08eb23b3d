import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // A check's frequency may come from its group: the scheduler works it out, no column caches it.
  await db.schema.alterTable('checks').dropColumn('frequency').execute()

  // Retries of a failed run, due after their backoff; leased like schedule rows.
  await db.schema
    .createTable('check_retries')
    /** The job id of the run that failed first (a slot key: see scheduler/jobs.ts). */
    .addColumn('slot_key', 'text', (c) => c.primaryKey())
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    .addColumn('location', 'text', (c) => c.notNull())
    /** The attempt this row runs next (2 for the first retry). */
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('next_due_ms', 'bigint', (c) => c.notNull())
    .addColumn('first_started_ms', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_ms', 'bigint')
    .execute()
  await db.schema
    .createIndex('check_retries_due_idx')
    .on('check_retries')
    .columns(['location', 'next_due_ms'])
    .execute()

  // Every process that runs checks says which locations it serves, so /v1/locations can tell.
  await db.schema
    .createTable('runner_nodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('locations', 'text', (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_ms', 'bigint', (c) => c.notNull())
    .execute()

  // Which checks and groups refer to which variable keys (`{{KEY}}`, `process.env.KEY`): usage counts.
  await db.schema
    .createTable('variable_references')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('owner_type', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) =>
      engine === 'postgres' ? c.notNull().modifyEnd(sql`collate "C"`) : c.notNull(),
    )
    .addPrimaryKeyConstraint('variable_references_pk', ['owner_type', 'owner_id', 'key'])
    .execute()
  await db.schema
    .createIndex('variable_references_key_idx')
    .on('variable_references')
    .columns(['account_id', 'key'])
    .execute()
}
