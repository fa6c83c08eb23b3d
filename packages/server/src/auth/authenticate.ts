import { type Role, roleAtLeast } from '@svc/core'
import type { FastifyRequest } from 'fastify'
import type { ServiceContext } from '../context.ts'
import { signIn as accountReads } from '../features/accounts/accounts.service.ts'
import { hashApiKey } from '../features/api-keys/api-keys.service.ts'
import * as keyLookups from '../features/api-keys/key-lookups.service.ts'
import { CSRF_HEADER, hasValidCsrfToken, sessionIdOf } from '../features/sessions/session-cookie.ts'
import { liveSession } from '../features/sessions/sessions.service.ts'
import { badRequest, forbidden, unauthorized } from '../http/errors.ts'
import { assertNotThrottled, recordFailedAuth } from './failed-auth-throttle.ts'

/** Who is calling, in which account, with which role. Set on every request to a keyed route. */
export interface AuthContext {
  /** The key acting (also for a session signed in with a key); `session-user:<id>` for a password session. */
  keyId: string
  keyType: 'USER' | 'SERVICE'
  /** The acting user for user keys; null for service keys. */
  userId: string | null
  accountId: string
  role: Role
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | undefined
  }
  interface FastifyContextConfig {
    /** Least role the route needs; default READ_ONLY for reads, READ_WRITE for writes. */
    minRole?: Role
    /**
     * The route answers about the key's user, not one account (`GET /v1/accounts`): a user of several
     * accounts may call it without `x-svc-account`.
     */
    userLevel?: boolean
  }
}

export const ACCOUNT_HEADER = 'x-svc-account'
/** The hosted product's name of the same header: a migrating team's CI settings keep working. */
const HOSTED_ACCOUNT_HEADER = 'x-checkly-account'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** A live key, and the account it acts in once membership is known (a 400 or 403 before has none). */
export interface CountedKey {
  keyId: string
  accountId?: string
}

/**
 * Resolves the bearer key and account of a request, per API.md: 401 for no, malformed, unknown or
 * revoked keys; 403 for no membership in the named account or a role too low for the route.
 * `onKey` runs once a live key is known, before any 400 or 403 (the rate limit counts every request of
 * a live key, whatever its outcome), with the account when the key may act in it; a 401 has no key to
 * run it for, and counts as a failed attempt of the client address instead.
 */
export async function authenticate(
  ctx: ServiceContext,
  request: FastifyRequest,
  onKey: (key: CountedKey) => Promise<void> = async () => {},
): Promise<AuthContext> {
  // A bearer key wins over a cookie: a script's request is never taken for its browser's session.
  const sessionId = request.headers.authorization === undefined ? sessionIdOf(request) : undefined
  if (sessionId) return authenticateSession(ctx, request, sessionId, onKey)
  const rawKey = bearerToken(request.headers.authorization)
  if (!rawKey) {
    if (request.headers.authorization) await recordFailedAuth(ctx, 'api-key', request.ip)
    throw unauthorized(request.headers.authorization ? 'Bad Token' : 'Missing API key')
  }
  const accountHeader = request.headers[ACCOUNT_HEADER] ?? request.headers[HOSTED_ACCOUNT_HEADER]
  if (accountHeader !== undefined && (typeof accountHeader !== 'string' || !UUID.test(accountHeader))) {
    const key = await keyLookups.findLiveKeyByHash(ctx, hashApiKey(rawKey), undefined)
    if (key) await onKey({ keyId: key.id })
    throw badRequest(`headers.${ACCOUNT_HEADER} must be an account id (UUID)`, {
      errors: [{ path: `headers.${ACCOUNT_HEADER}`, message: 'must be a UUID' }],
    })
  }
  const requestedAccount = accountHeader?.toLowerCase()
  const key = await keyLookups.findLiveKeyByHash(ctx, hashApiKey(rawKey), requestedAccount)
  if (!key) {
    await recordFailedAuth(ctx, 'api-key', request.ip)
    throw unauthorized('Bad Token')
  }

  let auth: AuthContext
  try {
    auth = key.user_id
      ? resolveUserKey(
          { keyId: key.id, userId: key.user_id, memberships: key.memberships },
          requestedAccount,
          request.routeOptions.config.userLevel === true,
        )
      : resolveServiceKey({ keyId: key.id, accountId: key.account_id, role: key.role }, requestedAccount)
  } catch (error) {
    await onKey({ keyId: key.id })
    throw error
  }
  // Only an account the key may act in is charged: a stranger naming it can't use up its share.
  await onKey({ keyId: key.id, accountId: auth.accountId })

  return withRequiredRole(request, auth)
}

/**
 * A raw key acting in `accountId`, outside an HTTP request (the live results' MQTT sign-in, where the
 * account is the username and the key the password): 401 for an unknown key or a malformed account,
 * 403 without membership. Failed attempts count against `ip`, as a request's do.
 */
export async function authenticateKeyInAccount(
  ctx: ServiceContext,
  rawKey: string,
  accountId: string,
  ip: string,
): Promise<AuthContext> {
  await assertNotThrottled(ctx, 'api-key', ip)
  const account = UUID.test(accountId) ? accountId.toLowerCase() : undefined
  const key = account && (await keyLookups.findLiveKeyByHash(ctx, hashApiKey(rawKey), account))
  if (!key) {
    await recordFailedAuth(ctx, 'api-key', ip)
    throw unauthorized('Bad Token')
  }
  return key.user_id
    ? resolveUserKey({ keyId: key.id, userId: key.user_id, memberships: key.memberships }, account, false)
    : resolveServiceKey({ keyId: key.id, accountId: key.account_id, role: key.role }, account)
}

function withRequiredRole(request: FastifyRequest, auth: AuthContext): AuthContext {
  const required =
    request.routeOptions.config.minRole ?? (READ_METHODS.has(request.method) ? 'READ_ONLY' : 'READ_WRITE')
  if (!roleAtLeast(auth.role, required))
    throw forbidden(`This operation needs the ${required} role or higher`)
  return auth
}

/**
 * A dashboard session's request: 401 when the session ended; a state-changing request needs the
 * session's CSRF token (403 without it). It then acts as its key (signed in with one) or its user,
 * with the account chosen and roles checked as for keys.
 */
async function authenticateSession(
  ctx: ServiceContext,
  request: FastifyRequest,
  sessionId: string,
  onKey: (key: { keyId: string }) => Promise<void>,
): Promise<AuthContext> {
  const session = await liveSession(ctx, sessionId)
  if (!session) throw unauthorized('Session ended: sign in again')
  if (!READ_METHODS.has(request.method) && !hasValidCsrfToken(request, sessionId))
    throw forbidden(`Missing or wrong ${CSRF_HEADER} header (requests made with a session need it)`)
  const accountHeader = request.headers[ACCOUNT_HEADER]
  const requestedAccount =
    accountHeader !== undefined && typeof accountHeader === 'string' && UUID.test(accountHeader)
      ? accountHeader.toLowerCase()
      : undefined
  const userLevel = request.routeOptions.config.userLevel === true
  if (session.api_key_id) {
    const key = await keyLookups.findLiveKeyById(ctx, session.api_key_id, requestedAccount)
    if (!key) throw unauthorized('Session ended: its API key was revoked')
    await onKey({ keyId: key.id })
    throwOnMalformedAccountHeader(accountHeader, requestedAccount)
    const auth = key.user_id
      ? resolveUserKey(
          { keyId: key.id, userId: key.user_id, memberships: key.memberships },
          requestedAccount,
          userLevel,
        )
      : resolveServiceKey({ keyId: key.id, accountId: key.account_id, role: key.role }, requestedAccount)
    return withRequiredRole(request, auth)
  }
  if (!session.user_id) throw unauthorized('Session ended: sign in again')
  const keyId = `session-user:${session.user_id}`
  await onKey({ keyId })
  throwOnMalformedAccountHeader(accountHeader, requestedAccount)
  const memberships = await accountReads.membershipsForAuth(ctx, session.user_id, requestedAccount)
  const auth = resolveUserKey({ keyId, userId: session.user_id, memberships }, requestedAccount, userLevel)
  return withRequiredRole(request, auth)
}

function throwOnMalformedAccountHeader(header: unknown, parsed: string | undefined): void {
  if (header === undefined || parsed !== undefined) return
  throw badRequest(`headers.${ACCOUNT_HEADER} must be an account id (UUID)`, {
    errors: [{ path: `headers.${ACCOUNT_HEADER}`, message: 'must be a UUID' }],
  })
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i)
  return match?.[1]
}

function resolveUserKey(
  key: { keyId: string; userId: string; memberships: { accountId: string; role: string }[] },
  requestedAccount: string | undefined,
  userLevel: boolean,
): AuthContext {
  const base = { keyId: key.keyId, keyType: 'USER' as const, userId: key.userId }
  // With an account named, the memberships are the one in that account, if any.
  const [only, another] = key.memberships
  if (requestedAccount) {
    if (!only) throw forbidden('The key has no access to that account')
    return { ...base, accountId: requestedAccount, role: only.role as Role }
  }
  if (!only) throw forbidden('The key’s user belongs to no account')
  if (another && !userLevel)
    throw badRequest(`${ACCOUNT_HEADER} header is required`, {
      errors: [{ path: `headers.${ACCOUNT_HEADER}`, message: 'is required' }],
    })
  return { ...base, accountId: only.accountId, role: only.role as Role }
}

function resolveServiceKey(
  key: { keyId: string; accountId: string | null; role: string | null },
  requestedAccount: string | undefined,
): AuthContext {
  if (!key.accountId || !key.role) throw unauthorized('Bad Token')
  if (requestedAccount && requestedAccount !== key.accountId)
    throw forbidden('The key has no access to that account')
  return {
    keyId: key.keyId,
    keyType: 'SERVICE',
    userId: null,
    accountId: key.accountId,
    role: key.role as Role,
  }
}

/** The authenticated caller of a keyed route (set by the onRequest hook before any handler runs). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new Error(`route ${request.routeOptions.url} ran without authentication`)
  return request.auth
}
