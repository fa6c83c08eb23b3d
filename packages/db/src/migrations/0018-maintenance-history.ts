import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // A window's occurrences count as maintenance in the status history only from `history_from` (its
  // creation, or the last change of its schedule or tags): maintenance is planned, not declared after the
  // fact. Windows from before this keep counting from their start, so no page's past changes at upgrade.
  await db.schema
    .alterTable('maintenance_windows')
    .addColumn('history_from', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await sql`update maintenance_windows set history_from = starts_at`.execute(db)

  // The maintenance a window's schedule and tags gave the past, kept when the window is deleted or that
  // changes: past days stay what the public saw. Going with the account; pruned with results.
  const serial = engine === 'postgres' ? 'serial' : 'integer'
  await db.schema
    .createTable('maintenance_periods')
    .addColumn('id', serial, (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    /** JSON array of the tags the window covered then. */
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('maintenance_periods_account_ends_idx')
    .on('maintenance_periods')
    .columns(['account_id', 'ends_at'])
    .execute()
}
