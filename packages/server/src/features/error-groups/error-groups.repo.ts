import { type ErrorGroupsTable, fetchPage } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { locked, type RowLock } from '../../transactions.ts'

/** The only SQL for `error_groups`. */

/** A check's group of one fingerprint, locked for update on PostgreSQL (results of a check fold one by one). */
export async function lockGroup(ctx: ServiceContext, checkId: string, hash: string) {
  let query = ctx.db
    .selectFrom('error_groups')
    .selectAll()
    .where('check_id', '=', checkId)
    .where('error_hash', '=', hash)
  if (ctx.engine === 'postgres') query = query.forUpdate()
  return query.executeTakeFirst()
}

/** Inserts a new group; false when another transaction made it first (then lock and update it). */
export async function insertGroup(ctx: ServiceContext, row: ErrorGroupsTable): Promise<boolean> {
  const inserted = await ctx.db
    .insertInto('error_groups')
    .values(row)
    .onConflict((oc) => oc.columns(['check_id', 'error_hash']).doNothing())
    .returning('id')
    .executeTakeFirst()
  return inserted !== undefined
}

export async function updateGroup(
  ctx: ServiceContext,
  id: string,
  changes: Partial<Omit<ErrorGroupsTable, 'id' | 'account_id' | 'check_id' | 'error_hash'>>,
): Promise<void> {
  await ctx.db.updateTable('error_groups').set(changes).where('id', '=', id).execute()
}

/** The groups of a check not archived yet: the ones a new result may resolve. */
/** Which of `checkIds` have an error group that is not archived. */
export async function checksWithActiveGroups(ctx: ServiceContext, checkIds: string[]): Promise<string[]> {
  if (checkIds.length === 0) return []
  const rows = await ctx.db
    .selectFrom('error_groups')
    .select('check_id')
    .distinct()
    .where('check_id', 'in', checkIds)
    .where('archived', '=', false)
    .execute()
  return rows.map((row) => row.check_id)
}

export async function activeGroups(ctx: ServiceContext, checkId: string) {
  let query = ctx.db
    .selectFrom('error_groups')
    .select(['id', 'error_hash', 'failing_locations'])
    .where('check_id', '=', checkId)
    .where('archived', '=', false)
  if (ctx.engine === 'postgres') query = query.forUpdate()
  return query.execute()
}

export async function listGroups(
  ctx: ServiceContext,
  checkId: string,
  filter: { archived?: boolean },
  page: { limit: number; offset: number },
) {
  let query = ctx.db.selectFrom('error_groups').where('check_id', '=', checkId)
  if (filter.archived !== undefined) query = query.where('archived', '=', filter.archived)
  return fetchPage(query, (q) => q.selectAll().orderBy('last_seen_at', 'desc').orderBy('id'), page)
}

/** The groups of every check of an account, most recently seen first. */
export async function listGroupsOfAccount(
  ctx: ServiceContext,
  accountId: string,
  filter: { archived?: boolean },
  page: { limit: number; offset: number },
) {
  let query = ctx.db.selectFrom('error_groups').where('account_id', '=', accountId)
  if (filter.archived !== undefined) query = query.where('archived', '=', filter.archived)
  return fetchPage(query, (q) => q.selectAll().orderBy('last_seen_at', 'desc').orderBy('id'), page)
}

export async function findGroup(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('error_groups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** `findGroup` in a transaction, the row locked as `lock` says (see RowLock) until it ends. */
export async function lockGroupById(ctx: ServiceContext, accountId: string, id: string, lock: RowLock) {
  const query = ctx.db
    .selectFrom('error_groups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
  return locked(ctx, query, lock).executeTakeFirst()
}

/** Groups of an account's other checks seen between `fromIso` and `toIso` (root cause analysis). */
export async function groupsOverlapping(
  ctx: ServiceContext,
  accountId: string,
  exceptCheckId: string,
  fromIso: string,
  toIso: string,
) {
  return ctx.db
    .selectFrom('error_groups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('check_id', '!=', exceptCheckId)
    .where('last_seen_at', '>=', fromIso)
    .where('first_seen_at', '<=', toIso)
    .orderBy('first_seen_at')
    .limit(50)
    .execute()
}

/** Deletes an account's archived groups last seen before `beforeIso` (their results are gone). */
export async function deleteGroupsBefore(ctx: ServiceContext, accountId: string, beforeIso: string) {
  const result = await ctx.db
    .deleteFrom('error_groups')
    .where('account_id', '=', accountId)
    .where('archived', '=', true)
    .where('last_seen_at', '<', beforeIso)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
