import { type ApiKeysTable, fetchPage } from '@svc/db'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `api_keys`. */

export async function insertApiKey(ctx: ServiceContext, key: ApiKeysTable): Promise<void> {
  await ctx.db.insertInto('api_keys').values(key).execute()
}

/** The live key with this hash, with the caller's membership role in `accountId` for user keys. */
export async function findLiveKeyByHash(ctx: ServiceContext, keyHash: string, accountId: string | undefined) {
  return ctx.db
    .selectFrom('api_keys')
    .leftJoin('memberships', (join) =>
      join
        .onRef('memberships.user_id', '=', 'api_keys.user_id')
        .on('memberships.account_id', '=', accountId ?? ''),
    )
    .select([
      'api_keys.id',
      'api_keys.user_id',
      'api_keys.account_id',
      'api_keys.role',
      'memberships.role as membership_role',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst()
}

export async function findApiKey(ctx: ServiceContext, id: string) {
  return ctx.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst()
}

export interface ApiKeyFilter {
  userId?: string
  accountId?: string
  /** Keys visible to a member: their own user keys, plus the account's service keys when `withServiceKeys`. */
  member?: { userId: string | null; accountId: string; withServiceKeys: boolean }
}

export async function listApiKeys(
  ctx: ServiceContext,
  filter: ApiKeyFilter,
  page: { limit: number; offset: number },
) {
  let query = ctx.db.selectFrom('api_keys').where('revoked_at', 'is', null)
  if (filter.userId) query = query.where('user_id', '=', filter.userId)
  if (filter.accountId) query = query.where('account_id', '=', filter.accountId)
  const member = filter.member
  if (member) {
    query = query.where((eb) =>
      eb.or([
        eb('user_id', '=', member.userId ?? ''),
        ...(member.withServiceKeys ? [eb('account_id', '=', member.accountId)] : []),
      ]),
    )
  }
  return fetchPage(query, (q) => q.selectAll().orderBy('created_at').orderBy('id'), page)
}

export async function revokeApiKey(ctx: ServiceContext, id: string, at: string): Promise<void> {
  await ctx.db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).execute()
}
