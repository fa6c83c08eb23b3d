import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // The project file an unsaved definition came from, as the hosted CLI sent it: its live reporters
  // file each result under it. Null for runs of saved checks and of svc's own CLI.
  await db.schema.alterTable('session_runs').addColumn('source_file', 'text').execute()
}
