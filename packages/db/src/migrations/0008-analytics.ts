import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // Per check, resolution (minutes: 1 and 60 aligned to UTC, 1440 a local day), bucket and the keys queries
  // group and filter on, the merged stats of the final results in it. Results fold in as they are stored;
  // queries never scan results.
  let rollups = db.schema
    .createTable('analytics_rollups')
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    .addColumn('resolution', 'integer', (c) => c.notNull())
    .addColumn('bucket_ms', 'bigint', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('page_index', 'integer', (c) => c.notNull())
    .addColumn('results', 'integer', (c) => c.notNull())
    .addColumn('retries', 'integer', (c) => c.notNull())
    .addColumn('stats', engine === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_rollups_pk', [
      'check_id',
      'resolution',
      'bucket_ms',
      'location',
      'outcome',
      'status_code',
      'page_index',
    ])
  // Clustered by the key on SQLite: a query's rows lie together on disk.
  if (engine === 'sqlite') rollups = rollups.modifyEnd(sql`without rowid`)
  await rollups.execute()

  // The time zone whose local days a check's day rows follow, and since when (see analytics/rollups.ts).
  await db.schema
    .createTable('analytics_zones')
    .addColumn('check_id', 'text', (c) => c.primaryKey().references('checks.id').onDelete('cascade'))
    .addColumn('zone', 'text', (c) => c.notNull())
    .addColumn('since_ms', 'bigint', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('error_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    .addColumn('error_hash', 'text', (c) => c.notNull())
    .addColumn('error_type', 'text')
    .addColumn('cleaned_message', 'text', (c) => c.notNull())
    .addColumn('raw_message', 'text')
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('locations', 'text', (c) => c.notNull())
    .addColumn('failing_locations', 'text', (c) => c.notNull())
    .addColumn('sample_result_id', 'text')
    .addColumn('archived', 'boolean', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('error_groups_check_hash_uq', ['check_id', 'error_hash'])
    .execute()
  await db.schema
    .createIndex('error_groups_account_hash_idx')
    .on('error_groups')
    .columns(['account_id', 'error_hash'])
    .execute()

  // Analysis jobs: claimed with a lease, so a node that dies mid-analysis hands it to another.
  await db.schema
    .createTable('root_cause_analyses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('error_group_id', 'text', (c) => c.notNull().references('error_groups.id').onDelete('cascade'))
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_context', 'text', (c) => c.notNull())
    .addColumn('analysis', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('provider', 'text')
    .addColumn('model', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_ms', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute()
  await db.schema
    .createIndex('root_cause_analyses_status_idx')
    .on('root_cause_analyses')
    .columns(['status', 'lease_until_ms'])
    .execute()
}
