import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // The dashboard signs people in with passwords: a scrypt hash with its salt and parameters, null
  // until the user sets one through a one-time link.
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute()
  // A browser session: the cookie holds a random id, the store only its hash. A session signed in with
  // an API key acts with that key (and ends when the key is revoked); otherwise it acts as its user.
  await db.schema
    .createTable('sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('api_key_id', 'text', (c) => c.references('api_keys.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute()
  await db.schema.createIndex('sessions_api_key_idx').on('sessions').column('api_key_id').execute()
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute()
  // One-time links to set a password: the token's hash, until it is used or expires.
  await db.schema
    .createTable('password_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute()
  await db.schema.createIndex('password_links_user_idx').on('password_links').column('user_id').execute()
}
