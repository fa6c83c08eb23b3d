import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('check_groups')
    .addColumn('id', engine === 'postgres' ? 'serial' : 'integer', (c) =>
      engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('activated', 'boolean', (c) => c.notNull())
    .addColumn('muted', 'boolean', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('check_groups_account_idx').on('check_groups').column('account_id').execute()

  await db.schema
    .createTable('checks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('check_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('activated', 'boolean', (c) => c.notNull())
    .addColumn('muted', 'boolean', (c) => c.notNull())
    .addColumn('frequency', 'integer', (c) => c.notNull())
    // A group with checks can't be deleted (the API answers 409), so no cascade here.
    .addColumn('group_id', 'integer', (c) => c.references('check_groups.id'))
    .addColumn('group_order', 'integer')
    .addColumn('heartbeat_token', 'text', (c) => c.unique())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('checks_account_idx')
    .on('checks')
    .columns(['account_id', 'created_at'])
    .execute()
  await db.schema.createIndex('checks_group_idx').on('checks').column('group_id').execute()

  await db.schema
    .createTable('check_tags')
    .addColumn('check_id', 'text', (c) => c.notNull().references('checks.id').onDelete('cascade'))
    .addColumn('tag', 'text', (c) =>
      engine === 'postgres' ? c.notNull().modifyEnd(sql`collate "C"`) : c.notNull(),
    )
    .addPrimaryKeyConstraint('check_tags_pk', ['check_id', 'tag'])
    .execute()
  await db.schema.createIndex('check_tags_tag_idx').on('check_tags').column('tag').execute()
}
