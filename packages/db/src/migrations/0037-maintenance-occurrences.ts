import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // One occurrence of a window changed by hand (moved, cancelled, deleted, or given a status): the window's
  // schedule gives every other occurrence. `occurrence` is its index in the schedule (0 is the first);
  // the original span is kept so a lookup by time finds the override of the occurrence it replaces.
  await db.schema
    .createTable('maintenance_occurrences')
    .addColumn('window_id', 'integer', (c) =>
      c.notNull().references('maintenance_windows.id').onDelete('cascade'),
    )
    .addColumn('occurrence', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('original_starts_at', 'text', (c) => c.notNull())
    .addColumn('original_ends_at', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    /** Null: as the clock says; CANCELLED, VERIFYING, or DELETED (gone from the API). */
    .addColumn('status', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('maintenance_occurrences_pk', ['window_id', 'occurrence'])
    .execute()
  await db.schema
    .createIndex('maintenance_occurrences_account_idx')
    .on('maintenance_occurrences')
    .columns(['account_id', 'ends_at'])
    .execute()

  // The status updates posted on an occurrence.
  await db.schema
    .createTable('maintenance_occurrence_updates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('window_id', 'integer', (c) =>
      c.notNull().references('maintenance_windows.id').onDelete('cascade'),
    )
    .addColumn('occurrence', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('notify_subscribers', 'boolean', (c) => c.notNull())
    .addColumn('previous_status', 'text')
    .addColumn('previous_starts_at', 'text')
    .addColumn('previous_ends_at', 'text')
    .addColumn('adjusted_starts_at', 'text')
    .addColumn('adjusted_ends_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('maintenance_occurrence_updates_occurrence_idx')
    .on('maintenance_occurrence_updates')
    .columns(['window_id', 'occurrence'])
    .execute()
}
