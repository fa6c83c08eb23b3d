import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row: which key the store's sealed values are under, proven by a value sealed with it, so every
  // node checks its key at start instead of failing at the first locked value.
  await db.schema
    .createTable('encryption_key_verifier')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** Fingerprint of the key every sealed value opens with (the old key while a rotation runs). */
    .addColumn('key_id', 'text', (c) => c.notNull())
    /** A fixed text sealed with that key. */
    .addColumn('sealed_check', 'text', (c) => c.notNull())
    /** While a rotation runs: fingerprint of the key values are being re-sealed with. */
    .addColumn('rotating_to', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
}
