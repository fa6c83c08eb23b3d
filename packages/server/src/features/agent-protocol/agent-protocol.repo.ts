import type { AgentScriptRunsTable } from '@svc/db'
import { type Insertable, sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/**
 * The only SQL for `agent_script_runs` (the result ids given out with agents' script runs) and
 * `agent_script_run_artifacts` (what each run's uploaded artifacts hold).
 */

export async function saveScriptRuns(
  ctx: ServiceContext,
  rows: Insertable<AgentScriptRunsTable>[],
): Promise<void> {
  if (rows.length === 0) return
  await ctx.db.insertInto('agent_script_runs').values(rows).execute()
}

export async function findScriptRun(ctx: ServiceContext, resultId: string) {
  return ctx.db
    .selectFrom('agent_script_runs')
    .selectAll()
    .where('result_id', '=', resultId)
    .executeTakeFirst()
}

/**
 * Reserves `bytes` of the run's artifact allowance, if they fit under `limitBytes`: one conditional
 * UPDATE of the run's row, so uploads on any number of server nodes sharing the store can't together
 * take more than the limit (PostgreSQL re-checks the condition on the row a concurrent update left).
 */
export async function reserveArtifactBytes(
  ctx: ServiceContext,
  resultId: string,
  bytes: number,
  limitBytes: number,
): Promise<boolean> {
  const updated = await ctx.db
    .updateTable('agent_script_runs')
    .set({ artifact_bytes: sql`artifact_bytes + ${bytes}` })
    .where('result_id', '=', resultId)
    .where(sql<boolean>`artifact_bytes + ${bytes} <= ${limitBytes}`)
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) === 1
}

/** Gives back bytes reserved for an upload that was not stored. */
export async function releaseArtifactBytes(
  ctx: ServiceContext,
  resultId: string,
  bytes: number,
): Promise<void> {
  await ctx.db
    .updateTable('agent_script_runs')
    .set({ artifact_bytes: sql`artifact_bytes - ${bytes}` })
    .where('result_id', '=', resultId)
    .execute()
}

/**
 * Records that `path` of the run now holds `bytes` (reserved before it was written): what the path
 * held before, if anything, is given back, as the upload replaced it.
 */
export async function recordArtifact(
  ctx: ServiceContext,
  resultId: string,
  path: string,
  bytes: number,
): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    // The run's row first: the run's recordings go one at a time (SQLite runs one writer anyway).
    const run = tx.selectFrom('agent_script_runs').select('result_id').where('result_id', '=', resultId)
    if (!(await (ctx.engine === 'postgres' ? run.forUpdate() : run).executeTakeFirst())) return
    const before = await tx
      .selectFrom('agent_script_run_artifacts')
      .select('bytes')
      .where('result_id', '=', resultId)
      .where('path', '=', path)
      .executeTakeFirst()
    await tx
      .insertInto('agent_script_run_artifacts')
      .values({ result_id: resultId, path, bytes })
      .onConflict((oc) => oc.columns(['result_id', 'path']).doUpdateSet({ bytes }))
      .execute()
    if (before) {
      await tx
        .updateTable('agent_script_runs')
        .set({ artifact_bytes: sql`artifact_bytes - ${Number(before.bytes)}` })
        .where('result_id', '=', resultId)
        .execute()
    }
  })
}

/**
 * What the run's artifacts hold in all (undefined for a run not known) and by path.
 * Exported because the tests read what the per-run artifact limit counted.
 */
export async function artifactBytesOf(
  ctx: ServiceContext,
  resultId: string,
): Promise<{ total: number | undefined; paths: Record<string, number> }> {
  const run = await findScriptRun(ctx, resultId)
  const rows = await ctx.db
    .selectFrom('agent_script_run_artifacts')
    .select(['path', 'bytes'])
    .where('result_id', '=', resultId)
    .orderBy('path')
    .execute()
  return {
    total: run === undefined ? undefined : Number(run.artifact_bytes),
    paths: Object.fromEntries(rows.map((row) => [row.path, Number(row.bytes)])),
  }
}

/**
 * Forgets runs given out before `issuedBeforeMs` (long over: their uploads are refused anyway), with
 * what their artifacts were counted as (the artifacts themselves go with their results' retention).
 */
export async function pruneScriptRuns(ctx: ServiceContext, issuedBeforeMs: number): Promise<number> {
  return ctx.db.transaction().execute(async (tx) => {
    await tx
      .deleteFrom('agent_script_run_artifacts')
      .where('result_id', 'in', (q) =>
        q.selectFrom('agent_script_runs').select('result_id').where('issued_ms', '<', issuedBeforeMs),
      )
      .execute()
    const deleted = await tx
      .deleteFrom('agent_script_runs')
      .where('issued_ms', '<', issuedBeforeMs)
      .executeTakeFirst()
    return Number(deleted.numDeletedRows)
  })
}
