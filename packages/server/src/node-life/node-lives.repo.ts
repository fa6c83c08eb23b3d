import type { NodeLivesTable } from '@svc/db'
import type { ServiceContext } from '../context.ts'

export async function insertLife(ctx: ServiceContext, life: NodeLivesTable): Promise<void> {
  await ctx.db.insertInto('node_lives').values(life).execute()
}

/** The other lives of `nodeId` on record, alive or not. */
export async function otherLivesOfNode(
  ctx: ServiceContext,
  nodeId: string,
  lifeId: string,
): Promise<NodeLivesTable[]> {
  const rows = await ctx.db
    .selectFrom('node_lives')
    .selectAll()
    .where('node_id', '=', nodeId)
    .where('life_id', '!=', lifeId)
    .execute()
  return rows.map((row) => ({ ...row, pid: Number(row.pid), alive_until_ms: Number(row.alive_until_ms) }))
}

/** Moves the life's end to `untilMs`; false when its record is gone (another process ended it). */
export async function renewLife(ctx: ServiceContext, lifeId: string, untilMs: number): Promise<boolean> {
  const result = await ctx.db
    .updateTable('node_lives')
    .set({ alive_until_ms: untilMs })
    .where('life_id', '=', lifeId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function deleteLife(ctx: ServiceContext, lifeId: string): Promise<void> {
  await ctx.db.deleteFrom('node_lives').where('life_id', '=', lifeId).execute()
}

/** Forgets lives silent since before `beforeMs`, of any node: their leases ran out long ago. */
export async function pruneNodeLives(ctx: ServiceContext, beforeMs: number): Promise<void> {
  await ctx.db.deleteFrom('node_lives').where('alive_until_ms', '<', beforeMs).execute()
}
