import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // Code snippets that checks and groups run as setup and teardown scripts (hosted ids are integers).
  await db.schema
    .createTable('snippets')
    .addColumn('id', engine === 'postgres' ? 'serial' : 'integer', (c) =>
      engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('script', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute()
  await db.schema.createIndex('snippets_account_idx').on('snippets').columns(['account_id', 'id']).execute()
}
