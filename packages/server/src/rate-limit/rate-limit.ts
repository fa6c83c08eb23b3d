import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CountedKey } from '../auth/authenticate.ts'
import type { ServiceContext } from '../context.ts'
import { HttpError } from '../http/errors.ts'
import { addressGroupOf } from './client-address.ts'
import { countHit, deleteWindowsStartedBefore } from './rate-limit.repo.ts'

/** A route's own limit, on top of the global one (API.md "Custom rate limits"). */
export interface RouteRateLimit {
  /** Routes sharing a group share a counter, e.g. every analytics route. */
  group: string
  max: number
}

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimit?: RouteRateLimit
  }
}

export const GLOBAL_RATE_LIMIT = 600
export const RATE_LIMIT_WINDOW_SECONDS = 60
/** Longer than any window (the longest is an hour): a window that started before this is over. */
const ENDED_WINDOW_AGE_MS = 86_400_000

/**
 * Hourly: the windows of buckets not hit for a day go (keys revoked, pages and locations deleted); a
 * bucket hit again opens a new window, as it would have anyway. Answers how many went.
 */
export function pruneRateLimitWindows(ctx: ServiceContext): Promise<number> {
  return deleteWindowsStartedBefore(ctx, ctx.clock.now().getTime() - ENDED_WINDOW_AGE_MS)
}

/**
 * Counts the request against the key's global window, its account's (so that many keys don't multiply
 * an account's share) and the route's own, in the store so every node shares them. Sets the
 * x-ratelimit-* headers from the tightest; 429 when any is exhausted.
 * (Written here rather than with @fastify/rate-limit: that plugin applies one limiter per request.)
 */
export async function enforceRateLimits(
  ctx: ServiceContext,
  auth: CountedKey,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const limits = [{ bucket: `key:${auth.keyId}`, max: GLOBAL_RATE_LIMIT }]
  if (auth.accountId) limits.push({ bucket: `account:${auth.accountId}`, max: ctx.limits.accountRateLimit })
  const routeLimit = request.routeOptions.config.rateLimit
  if (routeLimit) limits.push({ bucket: `key:${auth.keyId}:${routeLimit.group}`, max: routeLimit.max })
  await countAgainst(ctx, limits, reply)
}

/**
 * The route's own limit alone, for callers the global limit doesn't count (agents with a location key):
 * `caller` names whom the count is per, e.g. `private-location:<id>`. Headers and 429 as above.
 */
export async function enforceRouteRateLimit(
  ctx: ServiceContext,
  caller: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const routeLimit = request.routeOptions.config.rateLimit
  if (!routeLimit) return
  await countAgainst(ctx, [{ bucket: `${caller}:${routeLimit.group}`, max: routeLimit.max }], reply)
}

/**
 * A limit per client address, for open routes that have no key to count by (`name` tells the routes
 * apart): 429 in the error shape, with retry-after, once `max` requests came within the window.
 */
export async function enforceAddressRateLimit(
  ctx: ServiceContext,
  name: string,
  clientAddress: string,
  limit: { max: number; windowSeconds: number },
): Promise<void> {
  const nowMs = ctx.clock.now().getTime()
  const windowMs = limit.windowSeconds * 1000
  const window = await countHit(ctx, `${name}:${addressGroupOf(clientAddress)}`, nowMs, windowMs)
  if (Number(window.hits) <= limit.max) return
  const retryAfterSeconds = Math.max(1, Math.ceil((Number(window.window_start_ms) + windowMs - nowMs) / 1000))
  throw new HttpError(429, `Too many requests from this address: try again in ${retryAfterSeconds} seconds`, {
    attributes: { limit: limit.max, windowSeconds: limit.windowSeconds, retryAfterSeconds },
    headers: { 'retry-after': String(retryAfterSeconds) },
  })
}

async function countAgainst(
  ctx: ServiceContext,
  limits: { bucket: string; max: number }[],
  reply: FastifyReply,
): Promise<void> {
  const nowMs = ctx.clock.now().getTime()
  const windowMs = RATE_LIMIT_WINDOW_SECONDS * 1000
  const states = await Promise.all(
    limits.map(async ({ bucket, max }) => {
      const window = await countHit(ctx, bucket, nowMs, windowMs)
      const resetMs = Number(window.window_start_ms) + windowMs - nowMs
      return { max, hits: Number(window.hits), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) }
    }),
  )
  const tightest = states.reduce((a, b) => (b.max - b.hits < a.max - a.hits ? b : a))
  reply.header('x-ratelimit-limit', tightest.max)
  reply.header('x-ratelimit-remaining', Math.max(0, tightest.max - tightest.hits))
  reply.header('x-ratelimit-reset', tightest.resetSeconds)
  if (tightest.hits > tightest.max) {
    throw new HttpError(
      429,
      `Rate limit exceeded: ${tightest.max} requests per ${RATE_LIMIT_WINDOW_SECONDS} seconds`,
      {
        attributes: {
          limit: tightest.max,
          windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
          retryAfterSeconds: tightest.resetSeconds,
        },
        headers: { 'retry-after': String(tightest.resetSeconds) },
      },
    )
  }
}
