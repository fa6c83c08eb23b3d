import { type CheckGroupsTable, fetchPage } from '@svc/db'
import type { Insertable } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { foldReadsChanged } from '../../fold-reads.ts'
import { locked, type RowLock } from '../../transactions.ts'

/** The only SQL for `check_groups`. */

export async function insertGroup(ctx: ServiceContext, row: Insertable<CheckGroupsTable>) {
  return ctx.db.insertInto('check_groups').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findGroup(ctx: ServiceContext, accountId: string, id: number) {
  return ctx.db
    .selectFrom('check_groups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** `findGroup` in a transaction, the row locked as `lock` says (see RowLock) until it ends. */
export async function lockGroup(ctx: ServiceContext, accountId: string, id: number, lock: RowLock) {
  const query = ctx.db
    .selectFrom('check_groups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
  return locked(ctx, query, lock).executeTakeFirst()
}

export async function listGroups(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('check_groups').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('id'), page)
}

export async function updateGroup(
  ctx: ServiceContext,
  id: number,
  changes: Pick<CheckGroupsTable, 'name' | 'activated' | 'muted' | 'definition' | 'updated_at'>,
) {
  await ctx.db.updateTable('check_groups').set(changes).where('id', '=', id).execute()
  await foldReadsChanged(ctx)
}

export async function countChecksInGroup(ctx: ServiceContext, id: number): Promise<number> {
  const row = await ctx.db
    .selectFrom('checks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('group_id', '=', id)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function deleteGroup(ctx: ServiceContext, id: number) {
  await ctx.db.deleteFrom('check_groups').where('id', '=', id).execute()
  await foldReadsChanged(ctx)
}

export async function findGroups(ctx: ServiceContext, accountId: string, ids: number[]) {
  if (ids.length === 0) return []
  return ctx.db
    .selectFrom('check_groups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute()
}

export async function listGroupsOfAccount(ctx: ServiceContext, accountId: string) {
  return ctx.db.selectFrom('check_groups').selectAll().where('account_id', '=', accountId).execute()
}
