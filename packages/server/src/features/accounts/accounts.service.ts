import { randomUUID } from 'node:crypto'
import { DEFAULT_RUNTIME_ID, type Role, roleAtLeast } from '@svc/core'
import type { AccountsTable } from '@svc/db'
import { isUniqueViolation } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { cachedFoldRead } from '../../fold-reads.ts'
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.ts'
import { inTransaction } from '../../transactions.ts'
import * as repo from './accounts.repo.ts'
import type {
  Account,
  AccountPatch,
  AccountSettings,
  AlertSettings,
  Invite,
  MemberOrInvite,
} from './accounts.schemas.ts'

export const DEFAULT_ACCOUNT_SETTINGS: AccountSettings = {
  timezone: 'UTC',
  resultRetentionDays: 30,
  traceRetentionDays: 7,
  extendedUptimeResponseTime: false,
}

export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  escalationType: 'RUN_BASED',
  runBasedEscalation: { failedRunThreshold: 1 },
  timeBasedEscalation: { minutesFailingThreshold: 5 },
  reminders: { amount: 0, interval: 5 },
  parallelRunFailureThreshold: { enabled: false, percentage: 10 },
}

export function toAccount(row: AccountsTable): Account {
  const settings: AccountSettings = { ...DEFAULT_ACCOUNT_SETTINGS, ...JSON.parse(row.settings) }
  // Zones stored as sent before they were canonicalized (`europe/berlin`) read canonical too.
  settings.timezone = canonicalTimeZone(settings.timezone) ?? settings.timezone
  return {
    id: row.id,
    name: row.name,
    runtimeId: row.runtime_id,
    settings,
    alertSettings: { ...DEFAULT_ALERT_SETTINGS, ...JSON.parse(row.alert_settings) },
  }
}

export async function createUser(ctx: ServiceContext, input: { email: string; name: string }) {
  const now = isoNow(ctx)
  const user = {
    id: randomUUID(),
    email: input.email.toLowerCase(),
    name: input.name,
    password_hash: null,
    created_at: now,
    updated_at: now,
  }
  try {
    await repo.insertUser(ctx, user)
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A user with email ${user.email} exists already`)
    throw error
  }
  return user
}

export async function createAccount(ctx: ServiceContext, input: { name: string; runtimeId?: string }) {
  const now = isoNow(ctx)
  const row: AccountsTable = {
    id: randomUUID(),
    name: input.name,
    runtime_id: input.runtimeId ?? DEFAULT_RUNTIME_ID,
    settings: JSON.stringify(DEFAULT_ACCOUNT_SETTINGS),
    alert_settings: JSON.stringify(DEFAULT_ALERT_SETTINGS),
    created_at: now,
    updated_at: now,
  }
  await repo.insertAccount(ctx, row)
  return toAccount(row)
}

export async function addMembership(
  ctx: ServiceContext,
  input: { userId: string; accountId: string; role: Role },
) {
  if (!(await repo.findUser(ctx, input.userId))) throw notFound(`User ${input.userId} not found`)
  if (!(await repo.findAccount(ctx, input.accountId))) throw notFound(`Account ${input.accountId} not found`)
  const membership = {
    user_id: input.userId,
    account_id: input.accountId,
    role: input.role,
    created_at: isoNow(ctx),
  }
  try {
    await repo.insertMembership(ctx, membership)
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('The user is a member of that account already')
    throw error
  }
  return {
    userId: input.userId,
    accountId: input.accountId,
    role: input.role,
    created_at: membership.created_at,
  }
}

export async function getAccount(ctx: ServiceContext, accountId: string): Promise<Account> {
  const row = await repo.findAccount(ctx, accountId)
  if (!row) throw notFound()
  return toAccount(row)
}

/**
 * The account as result folds read it, once per batch or per failing result: from memory (fold-reads.ts)
 * while unchanged; undefined when there is none. Shared between callers: not to be changed.
 */
export function foldedAccount(ctx: ServiceContext, accountId: string): Promise<Account | undefined> {
  return cachedFoldRead(ctx, `account:${accountId}`, async () => {
    const row = await repo.findAccount(ctx, accountId)
    return row && toAccount(row)
  })
}

/** The calling user (a service key has none: its account stands in, as the hosted CLI's whoami expects). */
export async function getUser(
  ctx: ServiceContext,
  userId: string,
): Promise<{ id: string; name: string; email: string }> {
  const row = await repo.findUser(ctx, userId)
  if (!row) throw notFound()
  return { id: row.id, name: row.name, email: row.email }
}

export async function listAccountsOfUser(
  ctx: ServiceContext,
  userId: string,
  page: { limit: number; offset: number },
): Promise<{ items: Account[]; total: number }> {
  const { rows, total } = await repo.listAccountsOfUser(ctx, userId, page)
  return { items: rows.map(toAccount), total }
}

export async function updateAccount(
  ctx: ServiceContext,
  accountId: string,
  patch: AccountPatch,
): Promise<Account> {
  const current = await getAccount(ctx, accountId)
  const settings = { ...current.settings, ...patch.settings }
  if (patch.settings?.timezone !== undefined) {
    const timezone = canonicalTimeZone(patch.settings.timezone)
    if (!timezone) {
      throw badRequest(`body.settings.timezone is not an IANA time zone: ${patch.settings.timezone}`, {
        errors: [{ path: 'body.settings.timezone', message: 'is not an IANA time zone' }],
      })
    }
    settings.timezone = timezone
  }
  const alertPatch = patch.alertSettings ?? {}
  const alertSettings: AlertSettings = {
    escalationType: alertPatch.escalationType ?? current.alertSettings.escalationType,
    runBasedEscalation: { ...current.alertSettings.runBasedEscalation, ...alertPatch.runBasedEscalation },
    timeBasedEscalation: { ...current.alertSettings.timeBasedEscalation, ...alertPatch.timeBasedEscalation },
    reminders: { ...current.alertSettings.reminders, ...alertPatch.reminders },
    parallelRunFailureThreshold: {
      ...current.alertSettings.parallelRunFailureThreshold,
      ...alertPatch.parallelRunFailureThreshold,
    },
  }
  await repo.updateAccount(ctx, accountId, {
    name: patch.name ?? current.name,
    runtime_id: patch.runtimeId ?? current.runtimeId,
    settings: JSON.stringify(settings),
    alert_settings: JSON.stringify(alertSettings),
    updated_at: isoNow(ctx),
  })
  return getAccount(ctx, accountId)
}

/**
 * An IANA time zone as it is spelled (`europe/berlin` → `Europe/Berlin`, `utc` → `UTC`); undefined for
 * an unknown zone. A link is kept as sent (`Asia/Kolkata`, `US/Pacific`): the runtime's ICU would
 * answer older names for some (`Asia/Calcutta`, `Europe/Kiev`), which users would not recognise.
 * One spelling per account's choice: analytics compares zones as strings.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (canonicalZones.has(name)) return canonicalZones.get(name)
  let canonical: string | undefined
  try {
    const resolved = new Intl.DateTimeFormat(undefined, { timeZone: name }).resolvedOptions().timeZone
    canonical = resolved.toLowerCase() === name.toLowerCase() ? resolved : name
  } catch {
    canonical = undefined
  }
  // Bounded: names come from requests, and unknown ones are remembered too.
  if (canonicalZones.size >= MAX_CANONICAL_ZONES) canonicalZones.clear()
  canonicalZones.set(name, canonical)
  return canonical
}

/**
 * Answers by name: each account read (every batch of results folds its accounts' zones) built an ICU
 * formatter, ~300 µs, for an answer that depends only on the runtime's zone data.
 */
const canonicalZones = new Map<string, string | undefined>()
const MAX_CANONICAL_ZONES = 1000

export async function listMembers(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
  filter: repo.MemberFilter = {},
): Promise<{ items: MemberOrInvite[]; total: number }> {
  const nowIso = isoNow(ctx)
  const { rows, total } = await repo.listMembers(ctx, accountId, page, { ...filter, nowIso })
  return { items: rows.map((m) => memberOf(accountId, m, nowIso)), total }
}

export type MemberRow = NonNullable<Awaited<ReturnType<typeof repo.findMember>>>

/**
 * A membership in the hosted record's shape, plus `created_at`; an invitation not accepted yet reads as
 * the hosted invite (PENDING, or EXPIRED once its link has).
 */
export function memberOf(accountId: string, m: MemberRow, nowIso: string): MemberOrInvite {
  if (m.invite_expires_at) {
    return {
      type: 'invite',
      id: m.userId,
      accountId,
      email: m.email,
      role: m.role as Invite['role'],
      status: m.invite_expires_at > nowIso ? 'PENDING' : 'EXPIRED',
      inviterEmail: m.invited_by ?? '',
      createdAt: m.created_at,
      updatedAt: m.created_at,
      expiresAt: m.invite_expires_at,
    }
  }
  return {
    type: 'member',
    accountId,
    userId: m.userId,
    email: m.email,
    name: m.name,
    role: m.role as Role,
    status: 'ACTIVE',
    createdAt: m.created_at,
    updatedAt: m.created_at,
    isSupportMembership: false,
    ssoEnabled: false,
    mfaEnabled: false,
    created_at: m.created_at,
  }
}

/**
 * Whether `actor` may act as an OWNER now: its role says so and, for a user, it is still one of
 * `owners` (read under lock: another OWNER may have demoted it since the request was authenticated).
 */
function actsAsOwner(actor: { role: Role; userId?: string | null }, owners: string[]): boolean {
  if (!roleAtLeast(actor.role, 'OWNER')) return false
  return !actor.userId || owners.includes(actor.userId)
}

/**
 * Changes a member's role. Only an OWNER grants or takes OWNER, and an account always keeps one: the
 * owners are read (locked on PostgreSQL) and the role changed in one transaction, so two OWNERs
 * demoting each other at once can't leave none.
 */
export async function changeMemberRole(
  ctx: ServiceContext,
  actor: { accountId: string; role: Role; userId?: string | null },
  userId: string,
  role: Role,
): Promise<MemberOrInvite> {
  return inTransaction(ctx, async (tx) => {
    const owners = await repo.lockOwners(tx, actor.accountId)
    const membership = await repo.findMembership(tx, userId, actor.accountId)
    if (!membership) throw notFound()
    const touchesOwner = role === 'OWNER' || membership.role === 'OWNER'
    if (touchesOwner && !actsAsOwner(actor, owners))
      throw forbidden('Only an OWNER can grant or change OWNER')
    if (membership.invite_expires_at && role === 'OWNER')
      throw badRequest('body.role: an invitation cannot be OWNER; make the person OWNER once they joined', {
        errors: [{ path: 'body.role', message: 'cannot be OWNER while invited' }],
      })
    if (membership.role === 'OWNER' && role !== 'OWNER' && owners.length <= 1) {
      throw conflict('An account must keep at least one OWNER')
    }
    await repo.updateMembershipRole(tx, userId, actor.accountId, role)
    const member = await repo.findMember(tx, actor.accountId, userId)
    if (!member) throw notFound()
    return memberOf(actor.accountId, member, isoNow(ctx))
  })
}

/** Removes a member; an OWNER only by an OWNER, and never the last one (atomically, as above). */
export async function removeMember(
  ctx: ServiceContext,
  actor: { accountId: string; role: Role; userId?: string | null },
  userId: string,
) {
  await inTransaction(ctx, async (tx) => {
    const owners = await repo.lockOwners(tx, actor.accountId)
    const membership = await repo.findMembership(tx, userId, actor.accountId)
    if (!membership) throw notFound()
    if (membership.role === 'OWNER') {
      if (!actsAsOwner(actor, owners)) throw forbidden('Only an OWNER can remove an OWNER')
      if (owners.length <= 1) throw conflict('An account must keep at least one OWNER')
    }
    await repo.deleteMembership(tx, userId, actor.accountId)
  })
}

/**
 * Reads for signing in (sessions) and authenticating a session's requests: users, their accounts and
 * roles, and the password hash, as stored.
 */
export const signIn = {
  findUser: repo.findUser,
  findUserByEmail: repo.findUserByEmail,
  findAccount: repo.findAccount,
  accountsWithRolesOfUser: repo.accountsWithRolesOfUser,
  membershipsForAuth: repo.membershipsForAuth,
  setPasswordHash: repo.setPasswordHash,
  /** Setting a password accepts the user's invitations. */
  acceptInvitations: repo.acceptInvitations,
}

/** Every account's retention settings, for the retention sweep (features/retention) and agent records. */
export async function retentionOfAccounts(
  ctx: ServiceContext,
): Promise<{ accountId: string; resultRetentionDays: number; traceRetentionDays: number }[]> {
  return (await repo.listAllAccounts(ctx)).map((row) => {
    const { resultRetentionDays, traceRetentionDays } = toAccount(row).settings
    return { accountId: row.id, resultRetentionDays, traceRetentionDays }
  })
}
