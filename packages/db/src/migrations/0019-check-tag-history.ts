import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // The tags (its own and its group's) a check had until they changed: the status history matches
  // maintenance against the tags a check had at the time, so a change counts from then on and past days
  // stay what the public saw. Going with the check or account; pruned with results.
  const serial = engine === 'postgres' ? 'serial' : 'integer'
  await db.schema
    .createTable('check_tag_history')
    .addColumn('id', serial, (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    /** JSON array of the check's tags and its group's, until `ends_at` (since the row before, if any). */
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('check_tag_history_check_ends_idx')
    .on('check_tag_history')
    .columns(['check_id', 'ends_at'])
    .execute()
  await db.schema
    .createIndex('check_tag_history_account_ends_idx')
    .on('check_tag_history')
    .columns(['account_id', 'ends_at'])
    .execute()
}
