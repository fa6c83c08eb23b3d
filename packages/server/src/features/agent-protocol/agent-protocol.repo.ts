import type { AgentScriptRunsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `agent_script_runs`: the result ids given out with agents' script runs. */

export async function saveScriptRuns(ctx: ServiceContext, rows: AgentScriptRunsTable[]): Promise<void> {
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

/** Forgets runs given out before `issuedBeforeMs` (long over: their uploads are refused anyway). */
export async function pruneScriptRuns(ctx: ServiceContext, issuedBeforeMs: number): Promise<number> {
  const deleted = await ctx.db
    .deleteFrom('agent_script_runs')
    .where('issued_ms', '<', issuedBeforeMs)
    .executeTakeFirst()
  return Number(deleted.numDeletedRows)
}
