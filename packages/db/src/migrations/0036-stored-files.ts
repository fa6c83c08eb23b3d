import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // Files the hosted CLI uploads before a deploy (Playwright code bundles, snapshots), by the key it was
  // answered. In the store, so whichever node applies the deploy reads them.
  await db.schema
    .createTable('stored_files')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content', engine === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('stored_files_created_idx').on('stored_files').column('created_at').execute()
}
