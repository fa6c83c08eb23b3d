import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // Agents pick their own ids, so an agent is its location and its id: a key of another location that
  // names the same id is another agent, with its own row and leases, and can't renew or rewrite these.
  // Suite runs first, while an agent's id still finds its one row.
  await sql`
    update suite_runs
    set runner = (select 'agent:' || a.private_location_id || ':' || a.id from agents a where 'agent:' || a.id = suite_runs.runner)
    where runner like 'agent:%' and exists (select 1 from agents a where 'agent:' || a.id = suite_runs.runner)`.execute(
    db,
  )
  // Leases of agents' runs in flight (`agent:<id>` on a `private:<location id>` row) take the owner the
  // agent's next heartbeat renews and its result completes: it keeps its runs across the upgrade.
  for (const table of ['check_schedules', 'check_retries']) {
    await sql`
      update ${sql.table(table)}
      set lease_owner = 'agent:' || substr(location, 9) || ':' || substr(lease_owner, 7)
      where lease_owner like 'agent:%' and location like 'private:%'`.execute(db)
  }
  await db.schema
    .createTable('agents_of_locations')
    .addColumn('private_location_id', 'text', (c) =>
      c.notNull().references('private_locations.id').onDelete('cascade'),
    )
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('running_jobs', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('agents_location_agent_pk', ['private_location_id', 'id'])
    .execute()
  await sql`
    insert into agents_of_locations (private_location_id, id, version, hostname, running_jobs, started_at, last_seen_ms)
    select private_location_id, id, version, hostname, running_jobs, started_at, last_seen_ms from agents`.execute(
    db,
  )
  await db.schema.dropTable('agents').execute()
  await db.schema.alterTable('agents_of_locations').renameTo('agents').execute()
}
