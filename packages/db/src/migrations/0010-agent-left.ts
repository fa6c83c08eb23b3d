import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // An agent's goodbye deletes its row; the location keeps when its last agent left, so its
  // `lastSeenAt` still tells when an agent was last seen after a clean shutdown.
  await db.schema.alterTable('private_locations').addColumn('agent_left_ms', 'bigint').execute()
}
