import { fetchPage, type VariablesTable } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `variables`. */

export async function insertVariable(ctx: ServiceContext, row: VariablesTable): Promise<void> {
  await ctx.db.insertInto('variables').values(row).execute()
}

export async function findVariable(ctx: ServiceContext, accountId: string, key: string) {
  return ctx.db
    .selectFrom('variables')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .executeTakeFirst()
}

/** Every variable of an account: what its check runs see. */
export async function listAccountVariables(ctx: ServiceContext, accountId: string) {
  return ctx.db.selectFrom('variables').selectAll().where('account_id', '=', accountId).execute()
}

export interface VariableFilter {
  /** A key pattern where `*` matches any run of characters; keys hold only [A-Za-z0-9_]. */
  keyPattern?: string
  locked?: boolean
}

export async function listVariables(
  ctx: ServiceContext,
  accountId: string,
  filter: VariableFilter,
  page: { limit: number; offset: number },
) {
  let query = ctx.db.selectFrom('variables').where('account_id', '=', accountId)
  if (filter.keyPattern !== undefined) {
    // Case-sensitive on both engines: SQLite's LIKE ignores ASCII case, its GLOB does not.
    query =
      ctx.engine === 'sqlite'
        ? query.where(sql<boolean>`key GLOB ${filter.keyPattern}`)
        : query.where('key', 'like', filter.keyPattern.replaceAll('_', '\\_').replaceAll('*', '%'))
  }
  if (filter.locked !== undefined) query = query.where('locked', '=', filter.locked)
  return fetchPage(query, (q) => q.selectAll().orderBy('key'), page)
}

export async function updateVariable(
  ctx: ServiceContext,
  id: string,
  changes: Pick<
    VariablesTable,
    'value' | 'encrypted_value' | 'locked' | 'secret' | 'description' | 'updated_at'
  >,
): Promise<void> {
  await ctx.db.updateTable('variables').set(changes).where('id', '=', id).execute()
}

export async function deleteVariable(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('variables').where('id', '=', id).execute()
}
