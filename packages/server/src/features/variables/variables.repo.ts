import { fetchPage, type VariablesTable } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { inTransaction } from '../../transactions.ts'

/** The only SQL for `variables` and `variable_references`. */

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

/** Every variable of the accounts `accountIds`: what their check runs see. */
export async function listVariablesOfAccounts(ctx: ServiceContext, accountIds: string[]) {
  if (accountIds.length === 0) return []
  return ctx.db.selectFrom('variables').selectAll().where('account_id', 'in', accountIds).execute()
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

export type ReferenceOwner = { type: 'check'; id: string } | { type: 'group'; id: number }

/** Records which variable keys a check or group refers to now (replacing what it referred to before). */
export async function replaceReferences(
  ctx: ServiceContext,
  accountId: string,
  owner: ReferenceOwner,
  keys: string[],
): Promise<void> {
  await inTransaction(ctx, async ({ db }) => {
    await db
      .deleteFrom('variable_references')
      .where('owner_type', '=', owner.type)
      .where('owner_id', '=', String(owner.id))
      .execute()
    if (keys.length === 0) return
    await db
      .insertInto('variable_references')
      .values(
        keys.map((key) => ({
          account_id: accountId,
          owner_type: owner.type,
          owner_id: String(owner.id),
          key,
        })),
      )
      .execute()
  })
}

/** The references of owners saved for the first time (none to replace), in one statement per 500. */
export async function insertReferences(
  ctx: ServiceContext,
  accountId: string,
  owners: { owner: ReferenceOwner; keys: string[] }[],
): Promise<void> {
  const rows = owners.flatMap(({ owner, keys }) =>
    keys.map((key) => ({ account_id: accountId, owner_type: owner.type, owner_id: String(owner.id), key })),
  )
  for (let start = 0; start < rows.length; start += 500) {
    await ctx.db
      .insertInto('variable_references')
      .values(rows.slice(start, start + 500))
      .execute()
  }
}

/** How many checks and groups of the account refer to each of `keys`. */
export async function countReferences(ctx: ServiceContext, accountId: string, keys: string[]) {
  if (keys.length === 0) return []
  const rows = await ctx.db
    .selectFrom('variable_references')
    .select(['key', 'owner_type', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('key', 'in', keys)
    .groupBy(['key', 'owner_type'])
    .execute()
  return rows.map((row) => ({ key: row.key, ownerType: row.owner_type, count: Number(row.n) }))
}
