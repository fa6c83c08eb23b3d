import { createHash, randomBytes } from 'node:crypto'
import type { SessionsTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, notFound } from '../../http/errors.ts'
import { signIn as accountReads } from '../accounts/accounts.service.ts'
import { hashApiKey, keyLookup } from '../api-keys/api-keys.service.ts'
import { decoyHash, hashPassword, verifyPassword } from './passwords.ts'
import { csrfTokenOf } from './session-cookie.ts'
import * as repo from './sessions.repo.ts'

/** Dashboard sessions: sign-in with a password or an API key, sign-out, and set-password links. */

/** A session's last use is written at most this often (not on every request). */
const TOUCH_EVERY_MS = 60_000

export interface SessionView {
  user: { id: string; email: string; name: string } | null
  accounts: { id: string; name: string; role: string }[]
  csrfToken: string
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex')
const newSecret = () => randomBytes(32).toString('base64url')

/** The user whose email and password these are, or undefined. */
export interface SessionIdentity {
  userId: string | null
  apiKeyId: string | null
}

export async function verifyCredentials(
  ctx: ServiceContext,
  email: string,
  password: string,
): Promise<SessionIdentity | undefined> {
  const user = await accountReads.findUserByEmail(ctx, email)
  // Unknown emails and users without a password cost a hash too: timing tells nothing.
  const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash()))
  return user?.password_hash && matches ? { userId: user.id, apiKeyId: null } : undefined
}

/** The live key with this raw value, as a session's identity, or undefined. */
export async function verifyApiKey(
  ctx: ServiceContext,
  rawKey: string,
): Promise<SessionIdentity | undefined> {
  const key = await keyLookup.findLiveKeyByHash(ctx, hashApiKey(rawKey), undefined)
  return key ? { userId: key.user_id, apiKeyId: key.id } : undefined
}

/** Starts a session; answers its secret id (for the cookie only) and its row. */
export async function startSession(
  ctx: ServiceContext,
  who: SessionIdentity,
): Promise<{ id: string; session: SessionsTable }> {
  const id = newSecret()
  const now = ctx.clock.now()
  const session: SessionsTable = {
    id_hash: hashOf(id),
    user_id: who.userId,
    api_key_id: who.apiKeyId,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ctx.sessions.maxAgeMs).toISOString(),
  }
  await repo.insertSession(ctx, session)
  return { id, session }
}

/** The live session with this id (its last use noted), or undefined when unknown, ended or idle too long. */
export async function liveSession(ctx: ServiceContext, id: string): Promise<SessionsTable | undefined> {
  const session = await repo.findSession(ctx, hashOf(id))
  if (!session) return undefined
  const nowMs = ctx.clock.now().getTime()
  const idleMs = nowMs - Date.parse(session.last_seen_at)
  if (nowMs >= Date.parse(session.expires_at) || idleMs >= ctx.sessions.idleMs) {
    await repo.deleteSession(ctx, session.id_hash)
    return undefined
  }
  if (idleMs >= TOUCH_EVERY_MS) await repo.touchSession(ctx, session.id_hash, isoNow(ctx))
  return session
}

export async function endSession(ctx: ServiceContext, id: string): Promise<void> {
  await repo.deleteSession(ctx, hashOf(id))
}

/** What the dashboard needs to know about a session: who, which accounts with which role, its CSRF token. */
export async function describeSession(
  ctx: ServiceContext,
  id: string,
  session: SessionsTable,
): Promise<SessionView | undefined> {
  const csrfToken = csrfTokenOf(id)
  const key = session.api_key_id ? await keyLookup.findApiKey(ctx, session.api_key_id) : undefined
  if (session.api_key_id && (!key || key.revoked_at)) return undefined
  if (key && !key.user_id) {
    // A service key's session: no user, the key's one account with the key's role.
    const account = key.account_id ? await accountReads.findAccount(ctx, key.account_id) : undefined
    if (!account || !key.role) return undefined
    return { user: null, accounts: [{ id: account.id, name: account.name, role: key.role }], csrfToken }
  }
  const userId = key?.user_id ?? session.user_id
  const user = userId ? await accountReads.findUser(ctx, userId) : undefined
  if (!user) return undefined
  const accounts = await accountReads.accountsWithRolesOfUser(ctx, user.id)
  return { user: { id: user.id, email: user.email, name: user.name }, accounts, csrfToken }
}

/** A one-time link that lets the user set their password, valid for the configured time. */
export async function createPasswordLink(ctx: ServiceContext, userId: string) {
  if (!(await accountReads.findUser(ctx, userId))) throw notFound(`User ${userId} not found`)
  const token = newSecret()
  const now = ctx.clock.now()
  const expiresAt = new Date(now.getTime() + ctx.sessions.passwordLinkMs).toISOString()
  await repo.insertPasswordLink(ctx, {
    token_hash: hashOf(token),
    user_id: userId,
    created_at: now.toISOString(),
    expires_at: expiresAt,
  })
  return { url: `${ctx.publicUrl}/set-password?token=${token}`, expiresAt }
}

/** Sets the password of the link's user and uses the link up; the user's other sessions end. */
export async function setPasswordWithLink(ctx: ServiceContext, token: string, password: string) {
  const hash = await hashPassword(password)
  await ctx.db.transaction().execute(async (db) => {
    const tx = { ...ctx, db }
    const userId = await repo.usePasswordLink(tx, hashOf(token), isoNow(ctx))
    if (!userId)
      throw badRequest('body.token is unknown, used or expired: ask for a new set-password link', {
        errors: [{ path: 'body.token', message: 'is unknown, used or expired' }],
      })
    await accountReads.setPasswordHash(tx, userId, hash, isoNow(ctx))
    await accountReads.acceptInvitations(tx, userId)
    await repo.deleteSessionsOfUser(tx, userId)
  })
}

/** Hourly: ended sessions and old links go. */
export async function pruneSessions(ctx: ServiceContext): Promise<number> {
  const nowMs = ctx.clock.now().getTime()
  const now = new Date(nowMs).toISOString()
  const idleBefore = new Date(nowMs - ctx.sessions.idleMs).toISOString()
  const sessions = await repo.deleteEndedSessions(ctx, now, idleBefore)
  return sessions + (await repo.deleteOldPasswordLinks(ctx, now))
}
