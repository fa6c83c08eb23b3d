import { type AccountsTable, fetchPage, type MembershipsTable, type UsersTable } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { foldReadsChanged } from '../../fold-reads.ts'

/** The only SQL for `users`, `accounts` and `memberships`. */

export async function insertUser(ctx: ServiceContext, user: UsersTable): Promise<void> {
  await ctx.db.insertInto('users').values(user).execute()
}

export async function findUser(ctx: ServiceContext, id: string) {
  return ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findUserByEmail(ctx: ServiceContext, email: string) {
  return ctx.db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst()
}

export async function setPasswordHash(ctx: ServiceContext, userId: string, hash: string, at: string) {
  await ctx.db
    .updateTable('users')
    .set({ password_hash: hash, updated_at: at })
    .where('id', '=', userId)
    .execute()
}

/**
 * The user's memberships as authentication needs them: the one in `accountId`, or with no account
 * named up to two (enough to tell "exactly one account" from "several").
 */
export async function membershipsForAuth(ctx: ServiceContext, userId: string, accountId: string | undefined) {
  let query = ctx.db
    .selectFrom('memberships')
    .select(['account_id as accountId', 'role'])
    .where('user_id', '=', userId)
    // An invitation not yet accepted gives no access.
    .where('invite_expires_at', 'is', null)
  if (accountId !== undefined) query = query.where('account_id', '=', accountId)
  return query.orderBy('account_id').limit(2).execute()
}

/** Every account of the user with its name and the user's role there, oldest first. */
export async function accountsWithRolesOfUser(ctx: ServiceContext, userId: string) {
  return ctx.db
    .selectFrom('memberships')
    .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select(['accounts.id', 'accounts.name', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .where('memberships.invite_expires_at', 'is', null)
    .orderBy('accounts.created_at')
    .orderBy('accounts.id')
    .execute()
}

export async function insertAccount(ctx: ServiceContext, account: AccountsTable): Promise<void> {
  await ctx.db.insertInto('accounts').values(account).execute()
}

export async function findAccount(ctx: ServiceContext, id: string) {
  return ctx.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function listAllAccounts(ctx: ServiceContext) {
  return ctx.db.selectFrom('accounts').selectAll().orderBy('id').execute()
}

export async function countAccounts(ctx: ServiceContext): Promise<number> {
  const row = await ctx.db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function updateAccount(
  ctx: ServiceContext,
  id: string,
  changes: Partial<Omit<AccountsTable, 'id' | 'created_at'>>,
): Promise<void> {
  await ctx.db.updateTable('accounts').set(changes).where('id', '=', id).execute()
  await foldReadsChanged(ctx)
}

export async function listAccountsOfUser(
  ctx: ServiceContext,
  userId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db
    .selectFrom('accounts')
    .innerJoin('memberships', 'memberships.account_id', 'accounts.id')
    .where('memberships.user_id', '=', userId)
  return fetchPage(
    query,
    (q) => q.selectAll('accounts').orderBy('accounts.created_at').orderBy('accounts.id'),
    page,
  )
}

export async function insertMembership(ctx: ServiceContext, membership: MembershipsTable): Promise<void> {
  await ctx.db.insertInto('memberships').values(membership).execute()
}

export async function findMembership(ctx: ServiceContext, userId: string, accountId: string) {
  return ctx.db
    .selectFrom('memberships')
    .selectAll()
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .executeTakeFirst()
}

export interface MemberFilter {
  /** A substring of the name or email, in any case. */
  search?: string
  role?: string
  /** Members who joined (`member`) or invitations not accepted yet (`invite`). */
  type?: 'member' | 'invite'
  /** ACTIVE: joined; PENDING: invited, link still works; EXPIRED: invited, link expired (at `nowIso`). */
  status?: 'ACTIVE' | 'PENDING' | 'EXPIRED'
  nowIso?: string
}

const MEMBER_COLUMNS = [
  'users.id as userId',
  'users.email',
  'users.name',
  'memberships.role',
  'memberships.created_at',
  'memberships.invited_by',
  'memberships.invite_expires_at',
] as const

export async function listMembers(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
  filter: MemberFilter = {},
) {
  let query = ctx.db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .where('memberships.account_id', '=', accountId)
  if (filter.role !== undefined) query = query.where('memberships.role', '=', filter.role)
  if (filter.type === 'member' || filter.status === 'ACTIVE')
    query = query.where('memberships.invite_expires_at', 'is', null)
  if (filter.type === 'invite') query = query.where('memberships.invite_expires_at', 'is not', null)
  const now = filter.nowIso ?? new Date().toISOString()
  if (filter.status === 'PENDING') query = query.where('memberships.invite_expires_at', '>', now)
  if (filter.status === 'EXPIRED') query = query.where('memberships.invite_expires_at', '<=', now)
  if (filter.search) {
    const pattern = `%${filter.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    query = query.where(
      sql<boolean>`(lower(users.name) like ${pattern} escape '\\' or lower(users.email) like ${pattern} escape '\\')`,
    )
  }
  return fetchPage(
    query,
    (q) => q.select(MEMBER_COLUMNS).orderBy('memberships.created_at').orderBy('users.id'),
    page,
  )
}

/** One member of an account, as the members list shows it. */
export async function findMember(ctx: ServiceContext, accountId: string, userId: string) {
  return ctx.db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(MEMBER_COLUMNS)
    .where('memberships.account_id', '=', accountId)
    .where('memberships.user_id', '=', userId)
    .executeTakeFirst()
}

/**
 * The users who are OWNER of an account. On PostgreSQL their rows stay locked until the transaction
 * `ctx` runs in ends, so a concurrent change of an OWNER waits and then sees this one's outcome
 * (SQLite runs one write transaction at a time already).
 */
export async function lockOwners(ctx: ServiceContext, accountId: string): Promise<string[]> {
  let query = ctx.db
    .selectFrom('memberships')
    .select('user_id')
    .where('account_id', '=', accountId)
    .where('role', '=', 'OWNER')
  if (ctx.engine === 'postgres') query = query.forUpdate()
  return (await query.execute()).map((row) => row.user_id)
}

/** Invites `userId` (a new membership, or a pending one renewed) until `expiresAt`. */
export async function upsertInvitation(
  ctx: ServiceContext,
  invitation: MembershipsTable & { invited_by: string; invite_expires_at: string | null },
  renew: boolean,
) {
  if (!renew) return insertMembership(ctx, invitation)
  await ctx.db
    .updateTable('memberships')
    .set({
      role: invitation.role,
      invited_by: invitation.invited_by,
      invite_expires_at: invitation.invite_expires_at,
    })
    .where('user_id', '=', invitation.user_id)
    .where('account_id', '=', invitation.account_id)
    .execute()
}

/** The user's invitations are accepted: each of their memberships is a joined one. */
export async function acceptInvitations(ctx: ServiceContext, userId: string): Promise<void> {
  await ctx.db
    .updateTable('memberships')
    .set({ invite_expires_at: null })
    .where('user_id', '=', userId)
    .where('invite_expires_at', 'is not', null)
    .execute()
}

export async function updateMembershipRole(
  ctx: ServiceContext,
  userId: string,
  accountId: string,
  role: string,
) {
  await ctx.db
    .updateTable('memberships')
    .set({ role })
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .execute()
}

export async function deleteMembership(ctx: ServiceContext, userId: string, accountId: string) {
  await ctx.db
    .deleteFrom('memberships')
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .execute()
}
