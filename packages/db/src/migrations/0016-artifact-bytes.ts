import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // What an agent's uploads of a script run hold, counted in the store that every server node shares:
  // an upload reserves its bytes on the run's row before it is written, so uploads of one run spread
  // over several nodes can't add up past the per-run limit together.
  await db.schema
    .alterTable('agent_script_runs')
    .addColumn('artifact_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  // The size of each path a run holds, so that a re-upload of a path replaces its bytes, not adds to them.
  // Going with the run's row (pruned a day after it was given out).
  await db.schema
    .createTable('agent_script_run_artifacts')
    .addColumn('result_id', 'text', (c) =>
      c.notNull().references('agent_script_runs.result_id').onDelete('cascade'),
    )
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_script_run_artifacts_pk', ['result_id', 'path'])
    .execute()
}
