import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // Each running server process (a node's life) and until when it is known alive: a node's next life,
  // or another process of the node, takes back the leases of a life that died (see node-life.ts).
  await db.schema
    .createTable('node_lives')
    .addColumn('life_id', 'text', (c) => c.primaryKey())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('alive_until_ms', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('node_lives_node_idx').on('node_lives').column('node_id').execute()
}
