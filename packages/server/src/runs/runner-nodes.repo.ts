import type { ServiceContext } from '../context.ts'

/** The only SQL for `runner_nodes`: which processes run checks for which locations, last seen when. */

export interface RunnerNode {
  id: string
  locations: string[]
  hostname: string
  version: string
  startedAt: string
}

export async function saveRunnerNode(ctx: ServiceContext, node: RunnerNode, nowMs: number): Promise<void> {
  const row = {
    id: node.id,
    locations: JSON.stringify(node.locations),
    hostname: node.hostname,
    version: node.version,
    started_at: node.startedAt,
    last_seen_ms: nowMs,
  }
  await ctx.db
    .insertInto('runner_nodes')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ last_seen_ms: nowMs }))
    .execute()
}

export async function listLiveRunnerNodes(ctx: ServiceContext, sinceMs: number): Promise<RunnerNode[]> {
  const rows = await ctx.db
    .selectFrom('runner_nodes')
    .selectAll()
    .where('last_seen_ms', '>=', sinceMs)
    .orderBy('started_at')
    .execute()
  return rows.map((row) => ({
    id: row.id,
    locations: JSON.parse(row.locations) as string[],
    hostname: row.hostname,
    version: row.version,
    startedAt: row.started_at,
  }))
}

/** Forgets nodes that died without saying so (a clean stop deletes its own row). */
export async function pruneRunnerNodes(ctx: ServiceContext, seenBeforeMs: number): Promise<void> {
  await ctx.db.deleteFrom('runner_nodes').where('last_seen_ms', '<', seenBeforeMs).execute()
}

export async function deleteRunnerNode(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('runner_nodes').where('id', '=', id).execute()
}
