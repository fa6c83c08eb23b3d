import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // The IANA zone a window repeats in (its local start and end stay put across DST changes). Null for
  // windows made before zones were served: they repeat in UTC, as they always did.
  await db.schema.alterTable('maintenance_windows').addColumn('timezone', 'text').execute()
}
