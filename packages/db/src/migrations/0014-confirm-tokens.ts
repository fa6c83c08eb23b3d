import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // Every confirmation link sent stays valid: people open the first mail they find, not the newest. One
  // row per link (its token's hash), where a subscriber used to keep only the latest.
  await db.schema
    .createTable('status_page_confirm_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('subscriber_id', 'text', (c) =>
      c.notNull().references('status_page_subscribers.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('status_page_confirm_tokens_subscriber_idx')
    .on('status_page_confirm_tokens')
    .column('subscriber_id')
    .execute()
  await sql`
    insert into status_page_confirm_tokens (token_hash, subscriber_id, created_at)
    select confirm_token_hash, id, confirmation_sent_at from status_page_subscribers
    where confirm_token_hash is not null`.execute(db)
  await db.schema.dropIndex('status_page_subscribers_confirm_idx').execute()
  await db.schema.alterTable('status_page_subscribers').dropColumn('confirm_token_hash').execute()
}
