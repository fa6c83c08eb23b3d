import type { RunSessionsTable, SessionRunsTable } from '@svc/db'
import { type Insertable, sql, type Updateable } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import type { StoredVariable } from '../checks/check-variables.ts'

export async function insertSession(
  ctx: ServiceContext,
  session: Insertable<RunSessionsTable>,
  runs: Insertable<SessionRunsTable>[],
): Promise<void> {
  await ctx.db.insertInto('run_sessions').values(session).execute()
  if (runs.length > 0) await ctx.db.insertInto('session_runs').values(runs).execute()
}

export async function findSession(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('run_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** The variables a session's runs take over their checks' own (none when it was given none). */
export async function variablesOfSession(ctx: ServiceContext, sessionId: string): Promise<StoredVariable[]> {
  const row = await ctx.db
    .selectFrom('run_sessions')
    .select('environment_variables')
    .where('id', '=', sessionId)
    .executeTakeFirst()
  return row?.environment_variables ? JSON.parse(row.environment_variables) : []
}

export async function listSessions(
  ctx: ServiceContext,
  accountId: string,
  filter: { kind: string; fromIso?: string; toIso?: string; limit: number },
) {
  let query = ctx.db
    .selectFrom('run_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('kind', '=', filter.kind)
  if (filter.fromIso) query = query.where('created_at', '>=', filter.fromIso)
  if (filter.toIso) query = query.where('created_at', '<', filter.toIso)
  return query.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).execute()
}

export async function runsOfSessions(ctx: ServiceContext, sessionIds: string[]) {
  if (sessionIds.length === 0) return []
  return ctx.db
    .selectFrom('session_runs')
    .selectAll()
    .where('session_id', 'in', sessionIds)
    .orderBy('session_id')
    .orderBy('position')
    .execute()
}

export async function findRun(ctx: ServiceContext, sessionId: string, id: string) {
  return ctx.db
    .selectFrom('session_runs')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * Leases up to `limit` runs that wait (or whose lease ran out: their node died) in `locations` or in any
 * private location. PostgreSQL skips rows other nodes are claiming; SQLite has one writer.
 */
export async function claimRuns(
  ctx: ServiceContext,
  claim: { owner: string; nowMs: number; leaseMs: number; locations: string[]; limit: number },
): Promise<SessionRunsTable[]> {
  const locking = ctx.engine === 'postgres' ? sql`for update skip locked` : sql``
  const served = claim.locations.length > 0 ? sql`location in (${sql.join(claim.locations)})` : sql`false`
  const due = sql`
    select id from session_runs
    where (status = 'QUEUED' or (status = 'RUNNING' and lease_until_ms < ${claim.nowMs}))
      and (${served} or location like 'private:%')
    order by created_at, position
    limit ${claim.limit}
    ${locking}`
  const { rows } = await sql<SessionRunsTable>`
    update session_runs
    set status = 'RUNNING', lease_owner = ${claim.owner}, lease_until_ms = ${claim.nowMs + claim.leaseMs},
      started_at = coalesce(started_at, ${new Date(claim.nowMs).toISOString()})
    where id in (${due})
    returning *`.execute(ctx.db)
  return rows
}

export async function renewRunLeases(ctx: ServiceContext, owner: string, untilMs: number): Promise<void> {
  await ctx.db
    .updateTable('session_runs')
    .set({ lease_until_ms: untilMs })
    .where('lease_owner', '=', owner)
    .where('status', '=', 'RUNNING')
    .execute()
}

/** Ends a run this owner still holds; false when it lost the lease (or the run was cancelled). */
export async function finishRun(
  ctx: ServiceContext,
  id: string,
  owner: string,
  values: Updateable<SessionRunsTable>,
): Promise<boolean> {
  const updated = await ctx.db
    .updateTable('session_runs')
    .set({ ...values, status: 'DONE', lease_owner: null, lease_until_ms: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'RUNNING')
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) > 0
}

/** Cancels a session's runs that have not ended; answers how many. */
export async function cancelRuns(ctx: ServiceContext, sessionId: string, nowIso: string): Promise<number> {
  const updated = await ctx.db
    .updateTable('session_runs')
    .set({ status: 'CANCELLED', lease_owner: null, lease_until_ms: null, stopped_at: nowIso })
    .where('session_id', '=', sessionId)
    .where('status', 'in', ['QUEUED', 'RUNNING'])
    .executeTakeFirst()
  await ctx.db.updateTable('run_sessions').set({ cancelled: 1 }).where('id', '=', sessionId).execute()
  return Number(updated.numUpdatedRows)
}

export async function markSessionStopped(ctx: ServiceContext, sessionId: string, nowIso: string) {
  await ctx.db
    .updateTable('run_sessions')
    .set({ stopped_at: nowIso })
    .where('id', '=', sessionId)
    .where('stopped_at', 'is', null)
    .execute()
}

/** Gives back the runs a dead life of a node held: another node claims them at once. */
export async function releaseRunsOf(ctx: ServiceContext, owner: string): Promise<void> {
  await ctx.db
    .updateTable('session_runs')
    .set({ status: 'QUEUED', lease_owner: null, lease_until_ms: null })
    .where('lease_owner', '=', owner)
    .where('status', '=', 'RUNNING')
    .execute()
}

/**
 * Deletes the account's sessions (and their runs) made before `beforeIso`. By when they were made, not
 * when they stopped: a session whose runs were never finished goes too. Returns how many.
 */
export async function deleteSessionsBefore(ctx: ServiceContext, accountId: string, beforeIso: string) {
  const old = await ctx.db
    .selectFrom('run_sessions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('created_at', '<', beforeIso)
    .execute()
  const ids = old.map((row) => row.id)
  for (let at = 0; at < ids.length; at += SESSIONS_PER_DELETE) {
    const chunk = ids.slice(at, at + SESSIONS_PER_DELETE)
    await ctx.db.deleteFrom('session_runs').where('session_id', 'in', chunk).execute()
    await ctx.db.deleteFrom('run_sessions').where('id', 'in', chunk).execute()
  }
  return ids.length
}

/** Ids per statement, well within both engines' parameter limits. */
const SESSIONS_PER_DELETE = 500

/** The accounts of the unsaved definitions' runs among `runIds` (their artifacts are stored by run id). */
export async function accountIdsOfUnsavedRuns(ctx: ServiceContext, runIds: string[]) {
  const owners = new Map<string, string>()
  for (let at = 0; at < runIds.length; at += SESSIONS_PER_DELETE) {
    const rows = await ctx.db
      .selectFrom('session_runs')
      .select(['id', 'account_id'])
      .where('id', 'in', runIds.slice(at, at + SESSIONS_PER_DELETE))
      .where('check_id', 'is', null)
      .execute()
    for (const row of rows) owners.set(row.id, row.account_id)
  }
  return owners
}
