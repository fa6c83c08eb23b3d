import { fetchPage, type SnippetsTable } from '@svc/db'
import type { Insertable } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `snippets`. */

export async function insertSnippet(ctx: ServiceContext, row: Insertable<SnippetsTable>) {
  return ctx.db.insertInto('snippets').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findSnippet(ctx: ServiceContext, accountId: string, id: number) {
  return ctx.db
    .selectFrom('snippets')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function listSnippets(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('snippets').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('id'), page)
}

export async function updateSnippet(
  ctx: ServiceContext,
  accountId: string,
  id: number,
  changes: Pick<SnippetsTable, 'name' | 'script' | 'updated_at'>,
) {
  return ctx.db
    .updateTable('snippets')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteSnippet(ctx: ServiceContext, accountId: string, id: number): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('snippets')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
