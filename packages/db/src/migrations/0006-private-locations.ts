import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const bytewise = (c: ColumnDefinitionBuilder) =>
    engine === 'postgres' ? c.notNull().modifyEnd(sql`collate "C"`) : c.notNull()
  await db.schema
    .createTable('private_locations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug_name', 'text', bytewise)
    .addColumn('icon', 'text')
    .addColumn('proxy_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('private_locations_slug_unique', ['account_id', 'slug_name'])
    .execute()

  await db.schema
    .createTable('private_location_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('private_location_id', 'text', (c) =>
      c.notNull().references('private_locations.id').onDelete('cascade'),
    )
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('masked_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  // Agents say who they are on every call; a location is healthy while one was seen lately.
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('private_location_id', 'text', (c) =>
      c.notNull().references('private_locations.id').onDelete('cascade'),
    )
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('running_jobs', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_ms', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('agents_location_idx').on('agents').column('private_location_id').execute()

  // Crash reports agents send (EXTERNAL_OBSERVABILITY): message, stack and versions only.
  await db.schema
    .createTable('agent_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('private_location_id', 'text', (c) =>
      c.notNull().references('private_locations.id').onDelete('cascade'),
    )
    .addColumn('agent_id', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('stack', 'text')
    .addColumn('agent_version', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('runtime_version', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
}
