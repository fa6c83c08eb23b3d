import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // A leased row's `next_due_ms` becomes its lease's end, and the due time of the slot it runs moves to
  // `leased_due_ms`. The due index then holds only what is claimable: a claim or a wake-up no longer
  // walks past every row in flight (hundreds at a busy node) to find the first free one.
  for (const table of ['check_schedules', 'check_retries']) {
    await db.schema.alterTable(table).addColumn('leased_due_ms', 'bigint').execute()
    await sql`
      update ${sql.table(table)}
      set leased_due_ms = next_due_ms, next_due_ms = coalesce(lease_until_ms, next_due_ms)
      where lease_owner is not null`.execute(db)
    await db.schema.alterTable(table).dropColumn('lease_until_ms').execute()
  }
}
