import type { StoredFilesTable } from '@svc/db'
import type { Insertable } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `stored_files`. */

export async function insertFile(ctx: ServiceContext, row: Insertable<StoredFilesTable>): Promise<void> {
  await ctx.db.insertInto('stored_files').values(row).execute()
}

export async function findFile(ctx: ServiceContext, accountId: string, key: string, kind?: string) {
  let query = ctx.db
    .selectFrom('stored_files')
    .select(['content', 'kind'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
  if (kind) query = query.where('kind', '=', kind)
  return query.executeTakeFirst()
}

export async function deleteOlderThan(ctx: ServiceContext, kind: string, before: string): Promise<void> {
  await ctx.db.deleteFrom('stored_files').where('kind', '=', kind).where('created_at', '<', before).execute()
}
