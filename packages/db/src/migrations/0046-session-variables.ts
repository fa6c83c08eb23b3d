import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // Variables a triggered test session passes to its runs over the checks' own (`checkly trigger --env`):
  // JSON of the stored variable shape, every value sealed. Null when the session was given none.
  await db.schema.alterTable('run_sessions').addColumn('environment_variables', 'text').execute()
}
