import { type Role, roleAtLeast } from '@svc/core'
import type { FastifyRequest } from 'fastify'
import type { ServiceContext } from '../context.ts'
import * as keysRepo from '../features/api-keys/api-keys.repo.ts'
import { hashApiKey } from '../features/api-keys/api-keys.service.ts'
import { badRequest, forbidden, unauthorized } from '../http/errors.ts'
import { recordFailedAuth } from './failed-auth-throttle.ts'

/** Who is calling, in which account, with which role. Set on every request to a keyed route. */
export interface AuthContext {
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

/** Routes anyone may call without a key (API.md, "Open routes"). */
const OPEN_ROUTES = [/^\/openapi\.json$/, /^\/swagger\.json$/, /^\/docs(\/|$)/, /^\/ping\//, /^\/status\//]

export function isOpenRoute(routeUrl: string): boolean {
  return OPEN_ROUTES.some((pattern) => pattern.test(routeUrl))
}

/** The agent protocol: bearer private-location keys, checked by its own routes. */
export function isAgentRoute(routeUrl: string): boolean {
  return routeUrl.startsWith('/agent/')
}

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
  const rawKey = bearerToken(request.headers.authorization)
  if (!rawKey) {
    if (request.headers.authorization) await recordFailedAuth(ctx, 'api-key', request.ip)
    throw unauthorized(request.headers.authorization ? 'Bad Token' : 'Missing API key')
  }
  const accountHeader = request.headers[ACCOUNT_HEADER] ?? request.headers[HOSTED_ACCOUNT_HEADER]
  if (accountHeader !== undefined && (typeof accountHeader !== 'string' || !UUID.test(accountHeader))) {
    const key = await keysRepo.findLiveKeyByHash(ctx, hashApiKey(rawKey), undefined)
    if (key) await onKey({ keyId: key.id })
    throw badRequest(`headers.${ACCOUNT_HEADER} must be an account id (UUID)`, {
      errors: [{ path: `headers.${ACCOUNT_HEADER}`, message: 'must be a UUID' }],
    })
  }
  const requestedAccount = accountHeader?.toLowerCase()
  const key = await keysRepo.findLiveKeyByHash(ctx, hashApiKey(rawKey), requestedAccount)
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

  const required =
    request.routeOptions.config.minRole ?? (READ_METHODS.has(request.method) ? 'READ_ONLY' : 'READ_WRITE')
  if (!roleAtLeast(auth.role, required))
    throw forbidden(`This operation needs the ${required} role or higher`)
  return auth
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
