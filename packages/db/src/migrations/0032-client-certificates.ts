import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // Certificates API checks present to hosts that require mutual TLS; the key and passphrase are sealed.
  await db.schema
    .createTable('client_certificates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('cert', 'text', (c) => c.notNull())
    .addColumn('ca', 'text')
    .addColumn('secrets', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('client_certificates_account_idx')
    .on('client_certificates')
    .columns(['account_id', 'created_at'])
    .execute()
}
