import {
  type AgentEventsTable,
  fetchPage,
  type PrivateLocationKeysTable,
  type PrivateLocationsTable,
} from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { locked, type RowLock } from '../../transactions.ts'

/** The only SQL for `private_locations`, `private_location_keys`, `agents` and `agent_events`. */

export async function insertLocation(ctx: ServiceContext, row: PrivateLocationsTable): Promise<void> {
  await ctx.db.insertInto('private_locations').values(row).execute()
}

export async function findLocation(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('private_locations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** `findLocation` in a transaction, the row locked as `lock` says (see RowLock) until it ends. */
export async function lockLocation(ctx: ServiceContext, accountId: string, id: string, lock: RowLock) {
  const query = ctx.db
    .selectFrom('private_locations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
  return locked(ctx, query, lock).executeTakeFirst()
}

/** The slugs among `slugs` of the account's locations, locked as referenced until the transaction ends. */
export async function lockReferencedSlugs(ctx: ServiceContext, accountId: string, slugs: string[]) {
  if (slugs.length === 0) return new Set<string>()
  const query = ctx.db
    .selectFrom('private_locations')
    .select('slug_name')
    .where('account_id', '=', accountId)
    .where('slug_name', 'in', slugs)
    .orderBy('id')
  return new Set((await locked(ctx, query, 'referenced').execute()).map((row) => row.slug_name))
}

/** Every private location of an account (checks name them by slug). */
export async function listAccountLocations(ctx: ServiceContext, accountId: string) {
  return ctx.db.selectFrom('private_locations').selectAll().where('account_id', '=', accountId).execute()
}

export async function listLocations(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('private_locations').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('created_at').orderBy('id'), page)
}

export async function updateLocation(
  ctx: ServiceContext,
  id: string,
  changes: Pick<PrivateLocationsTable, 'name' | 'slug_name' | 'icon' | 'proxy_url' | 'updated_at'>,
): Promise<void> {
  await ctx.db.updateTable('private_locations').set(changes).where('id', '=', id).execute()
}

export async function deleteLocation(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('private_locations').where('id', '=', id).execute()
}

export async function insertKey(ctx: ServiceContext, row: PrivateLocationKeysTable): Promise<void> {
  await ctx.db.insertInto('private_location_keys').values(row).execute()
}

export async function listKeys(ctx: ServiceContext, locationIds: string[]) {
  if (locationIds.length === 0) return []
  return ctx.db
    .selectFrom('private_location_keys')
    .selectAll()
    .where('private_location_id', 'in', locationIds)
    .orderBy('created_at')
    .execute()
}

export async function deleteKey(ctx: ServiceContext, locationId: string, keyId: string): Promise<boolean> {
  const deleted = await ctx.db
    .deleteFrom('private_location_keys')
    .where('private_location_id', '=', locationId)
    .where('id', '=', keyId)
    .executeTakeFirst()
  return Number(deleted.numDeletedRows) > 0
}

/** The location a live key belongs to (a deleted key is revoked: it finds nothing). */
export async function findLocationByKeyHash(ctx: ServiceContext, keyHash: string) {
  return ctx.db
    .selectFrom('private_location_keys as k')
    .innerJoin('private_locations as l', 'l.id', 'k.private_location_id')
    .selectAll('l')
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst()
}

/** An agent's heartbeat: its row within its location (another location's agent of the same id has its own). */
export async function saveAgent(
  ctx: ServiceContext,
  agent: { id: string; locationId: string; version: string; hostname: string; runningJobs: number },
  now: { ms: number; iso: string },
): Promise<void> {
  await ctx.db
    .insertInto('agents')
    .values({
      id: agent.id,
      private_location_id: agent.locationId,
      version: agent.version,
      hostname: agent.hostname,
      running_jobs: agent.runningJobs,
      started_at: now.iso,
      last_seen_ms: now.ms,
    })
    .onConflict((oc) =>
      oc.columns(['private_location_id', 'id']).doUpdateSet({
        version: agent.version,
        hostname: agent.hostname,
        running_jobs: agent.runningJobs,
        last_seen_ms: now.ms,
      }),
    )
    .execute()
}

export async function listAgents(ctx: ServiceContext, locationIds: string[], seenSinceMs: number) {
  if (locationIds.length === 0) return []
  return ctx.db
    .selectFrom('agents')
    .selectAll()
    .where('private_location_id', 'in', locationIds)
    .where('last_seen_ms', '>=', seenSinceMs)
    .orderBy('started_at')
    .execute()
}

export async function lastSeen(ctx: ServiceContext, locationIds: string[]) {
  if (locationIds.length === 0) return []
  return ctx.db
    .selectFrom('agents')
    .select(['private_location_id', (eb) => eb.fn.max('last_seen_ms').as('last_seen_ms')])
    .where('private_location_id', 'in', locationIds)
    .groupBy('private_location_id')
    .execute()
}

/**
 * An agent's goodbye: its row goes, and the location records when it was last seen (now). `agent_left_ms`
 * is when an agent that has no row any more was last seen, so the location's `lastSeenAt` outlives rows.
 */
export async function deleteAgent(
  ctx: ServiceContext,
  locationId: string,
  agentId: string,
  nowMs: number,
): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    const deleted = await tx
      .deleteFrom('agents')
      .where('private_location_id', '=', locationId)
      .where('id', '=', agentId)
      .executeTakeFirst()
    if (Number(deleted.numDeletedRows) === 0) return
    await tx
      .updateTable('private_locations')
      .set({ agent_left_ms: nowMs })
      .where('id', '=', locationId)
      .execute()
  })
}

/**
 * Rows of agents not seen since `beforeMs` (they crashed, no goodbye) go; as after a goodbye, each
 * location keeps the latest time one of them was seen. Answers how many went.
 */
export async function deleteAgentsSeenBefore(ctx: ServiceContext, beforeMs: number): Promise<number> {
  return ctx.db.transaction().execute(async (tx) => {
    const gone = await tx
      .deleteFrom('agents')
      .where('last_seen_ms', '<', beforeMs)
      .returning(['private_location_id', 'last_seen_ms'])
      .execute()
    const lastSeen = new Map<string, number>()
    for (const row of gone) {
      const ms = Number(row.last_seen_ms)
      lastSeen.set(row.private_location_id, Math.max(ms, lastSeen.get(row.private_location_id) ?? ms))
    }
    for (const [locationId, ms] of lastSeen) {
      await tx
        .updateTable('private_locations')
        .set({ agent_left_ms: ms })
        .where('id', '=', locationId)
        .where((eb) => eb.or([eb('agent_left_ms', 'is', null), eb('agent_left_ms', '<', ms)]))
        .execute()
    }
    return gone.length
  })
}

export async function insertAgentEvent(ctx: ServiceContext, row: AgentEventsTable): Promise<void> {
  await ctx.db.insertInto('agent_events').values(row).execute()
}

/** Error events of the account's locations created before `beforeIso`; answers how many went. */
export async function deleteAgentEventsBefore(
  ctx: ServiceContext,
  accountId: string,
  beforeIso: string,
): Promise<number> {
  const deleted = await ctx.db
    .deleteFrom('agent_events')
    .where('created_at', '<', beforeIso)
    .where('private_location_id', 'in', (eb) =>
      eb.selectFrom('private_locations').select('id').where('account_id', '=', accountId),
    )
    .executeTakeFirst()
  return Number(deleted.numDeletedRows)
}

/** Every location's error events but its newest `keep`; answers how many went. */
export async function deleteAgentEventsBeyond(ctx: ServiceContext, keep: number): Promise<number> {
  const deleted = await ctx.db
    .deleteFrom('agent_events')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom(
          eb
            .selectFrom('agent_events')
            .select([
              'id',
              sql<number>`row_number() over (partition by private_location_id order by created_at desc, id desc)`.as(
                'newness',
              ),
            ])
            .as('ranked'),
        )
        .select('ranked.id')
        .where('ranked.newness', '>', keep),
    )
    .executeTakeFirst()
  return Number(deleted.numDeletedRows)
}
