import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // A test session (unsaved definitions or saved checks, run once) or a check session (one saved check).
  await db.schema
    .createTable('run_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    /** TEST or CHECK. */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    /** A check session's check; null for a test session. */
    .addColumn('check_id', 'text')
    .addColumn('check_type', 'text')
    .addColumn('run_source', 'text', (c) => c.notNull())
    /** JSON: the locations it runs in. */
    .addColumn('run_locations', 'text', (c) => c.notNull())
    .addColumn('cancelled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('stopped_at', 'text')
    .execute()
  await db.schema
    .createIndex('run_sessions_account_idx')
    .on('run_sessions')
    .columns(['account_id', 'created_at'])
    .execute()
  // One run of a session: a check (or an unsaved definition) in one location, claimable by any node.
  // A run leased past `lease_until_ms` belongs to a node that died and is claimed again.
  await db.schema
    .createTable('session_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('run_sessions.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('check_id', 'text')
    .addColumn('logical_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('check_type', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    /** JSON: an unsaved definition as validated; null for a saved check. */
    .addColumn('definition', 'text')
    /** QUEUED, RUNNING, DONE or CANCELLED. */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_ms', 'bigint')
    /** The id of the stored check result (saved checks) or of this run's own result. */
    .addColumn('result_id', 'text')
    /** JSON: an unsaved definition's whole result, with its detail. */
    .addColumn('result', 'text')
    .addColumn('has_failures', 'integer')
    .addColumn('has_errors', 'integer')
    .addColumn('is_degraded', 'integer')
    .addColumn('response_time', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('stopped_at', 'text')
    .execute()
  await db.schema
    .createIndex('session_runs_session_idx')
    .on('session_runs')
    .columns(['session_id', 'position'])
    .execute()
  await db.schema
    .createIndex('session_runs_claim_idx')
    .on('session_runs')
    .columns(['status', 'lease_until_ms'])
    .execute()
  // Trigger URLs: a token that runs one check or every check of one group without an API key.
  await db.schema
    .createTable('trigger_tokens')
    .addColumn('id', engine === 'postgres' ? 'serial' : 'integer', (c) =>
      engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('check_id', 'text', (c) => c.unique().references('checks.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.unique().references('check_groups.id').onDelete('cascade'))
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('called_at', 'text')
    .addColumn('updated_at', 'text')
    .execute()
}
