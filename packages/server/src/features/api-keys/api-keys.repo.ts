import { type ApiKeysTable, fetchPage } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `api_keys`. */

/**
 * Until the transaction ends, holds the right to add a key to `owner` (`user:<id>`, `account:<id>`), so
 * that keys created at once can't pass a cap together. PostgreSQL only: SQLite runs one writer at a time.
 */
export async function lockKeyOwner(ctx: ServiceContext, owner: string): Promise<void> {
  if (ctx.engine !== 'postgres') return
  await sql`select pg_advisory_xact_lock(hashtext(${`api-keys:${owner}`}))`.execute(ctx.db)
}

/** Live user keys of a user, or live service keys of an account. */
export async function countLiveKeys(
  ctx: ServiceContext,
  owner: { userId: string } | { accountId: string },
): Promise<number> {
  const { count } = await ctx.db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('revoked_at', 'is', null)
    .where(
      'userId' in owner ? 'user_id' : 'account_id',
      '=',
      'userId' in owner ? owner.userId : owner.accountId,
    )
    .executeTakeFirstOrThrow()
  return Number(count)
}

export async function insertApiKey(ctx: ServiceContext, key: ApiKeysTable): Promise<void> {
  await ctx.db.insertInto('api_keys').values(key).execute()
}

/**
 * The live key with this hash and, for user keys, the user's memberships: the one in `accountId`, or
 * with no account named up to two of them (enough to tell "exactly one account" from "several").
 * One statement: every keyed request runs it.
 */
export async function findLiveKeyByHash(ctx: ServiceContext, keyHash: string, accountId: string | undefined) {
  return findLiveKey(ctx, { column: 'api_keys.key_hash', value: keyHash }, accountId)
}

/** `findLiveKeyByHash` by the key's id: a dashboard session signed in with a key acts with it. */
export async function findLiveKeyById(ctx: ServiceContext, id: string, accountId: string | undefined) {
  return findLiveKey(ctx, { column: 'api_keys.id', value: id }, accountId)
}

async function findLiveKey(
  ctx: ServiceContext,
  by: { column: 'api_keys.key_hash' | 'api_keys.id'; value: string },
  accountId: string | undefined,
) {
  const rows = await ctx.db
    .selectFrom('api_keys')
    .leftJoin('memberships', (join) => {
      // An invitation not yet accepted gives no access, even to a key its user had already.
      const ofUser = join
        .onRef('memberships.user_id', '=', 'api_keys.user_id')
        .on('memberships.invite_expires_at', 'is', null)
      return accountId === undefined ? ofUser : ofUser.on('memberships.account_id', '=', accountId)
    })
    .select([
      'api_keys.id',
      'api_keys.user_id',
      'api_keys.account_id',
      'api_keys.role',
      'memberships.account_id as membership_account_id',
      'memberships.role as membership_role',
    ])
    .where(by.column, '=', by.value)
    .where('api_keys.revoked_at', 'is', null)
    .limit(2)
    .execute()
  const [key] = rows
  if (!key) return undefined
  const memberships = rows.flatMap((row) =>
    row.membership_account_id !== null && row.membership_role !== null
      ? [{ accountId: row.membership_account_id, role: row.membership_role }]
      : [],
  )
  return { id: key.id, user_id: key.user_id, account_id: key.account_id, role: key.role, memberships }
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
