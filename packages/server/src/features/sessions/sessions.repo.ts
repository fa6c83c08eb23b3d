import type { SessionsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `sessions` and `password_links`. */

export async function insertSession(ctx: ServiceContext, session: SessionsTable): Promise<void> {
  await ctx.db.insertInto('sessions').values(session).execute()
}

export async function findSession(ctx: ServiceContext, idHash: string) {
  return ctx.db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst()
}

export async function touchSession(ctx: ServiceContext, idHash: string, at: string): Promise<void> {
  await ctx.db.updateTable('sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute()
}

export async function deleteSession(ctx: ServiceContext, idHash: string): Promise<void> {
  await ctx.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute()
}

export async function deleteSessionsOfUser(ctx: ServiceContext, userId: string): Promise<void> {
  await ctx.db.deleteFrom('sessions').where('user_id', '=', userId).execute()
}

/** Sessions past their end or unused since `idleBefore` go; answers how many. */
export async function deleteEndedSessions(ctx: ServiceContext, nowIso: string, idleBeforeIso: string) {
  const deleted = await ctx.db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', nowIso), eb('last_seen_at', '<', idleBeforeIso)]))
    .executeTakeFirst()
  return Number(deleted.numDeletedRows)
}

export async function insertPasswordLink(
  ctx: ServiceContext,
  link: { token_hash: string; user_id: string; created_at: string; expires_at: string },
): Promise<void> {
  await ctx.db
    .insertInto('password_links')
    .values({ ...link, used_at: null })
    .execute()
}

/**
 * Marks the link used if it is unused and unexpired, in one statement (two requests with the same
 * token: one wins). Answers the link's user, or undefined.
 */
export async function usePasswordLink(ctx: ServiceContext, tokenHash: string, nowIso: string) {
  const row = await ctx.db
    .updateTable('password_links')
    .set({ used_at: nowIso })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso)
    .returning('user_id')
    .executeTakeFirst()
  return row?.user_id
}

/** Links used or expired before `beforeIso` go. */
export async function deleteOldPasswordLinks(ctx: ServiceContext, beforeIso: string): Promise<number> {
  const deleted = await ctx.db
    .deleteFrom('password_links')
    .where('expires_at', '<', beforeIso)
    .executeTakeFirst()
  return Number(deleted.numDeletedRows)
}
