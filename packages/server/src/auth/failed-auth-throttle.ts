import type { ServiceContext } from '../context.ts'
import { HttpError } from '../http/errors.ts'
import { addressGroupOf } from '../rate-limit/client-address.ts'
import { countHit, findWindow } from '../rate-limit/rate-limit.repo.ts'

/**
 * Failed sign-ins per client address, counted in the store so that every node shares them: after
 * `ctx.limits.failedAuth.max` failures of one kind within the window (each a 401), the address gets 429
 * until the window ends. Only failures are written; a caller with a valid credential pays nothing here.
 * A sign-in: `await assertNotThrottled(ctx, 'password', request.ip)`, check the password, and when it is
 * wrong `await recordFailedAuth(ctx, 'password', request.ip)` (429 when one too many) before the 401.
 */
export type FailedAuthKind =
  | 'api-key'
  | 'admin-token'
  | 'password'
  | 'private-location-key'
  | 'status-page-token'

/**
 * 429 when `clientAddress` has used up its failed attempts of `kind`: for credentials checked before
 * anything else (admin token, password), so that a throttled client can't go on guessing. One read.
 */
export async function assertNotThrottled(
  ctx: ServiceContext,
  kind: FailedAuthKind,
  clientAddress: string,
): Promise<void> {
  const window = await findWindow(ctx, bucketOf(kind, clientAddress))
  // The failures allowed are used up: this attempt would be one more.
  if (window) refuseWhenOver(ctx, Number(window.window_start_ms), Number(window.hits) + 1)
}

/**
 * Counts one failed attempt of `kind` from `clientAddress` (one atomic write). Throws 429 when this
 * failure is one too many; otherwise returns, and the caller answers its usual 401.
 */
export async function recordFailedAuth(
  ctx: ServiceContext,
  kind: FailedAuthKind,
  clientAddress: string,
): Promise<void> {
  const { windowSeconds } = ctx.limits.failedAuth
  const window = await countHit(
    ctx,
    bucketOf(kind, clientAddress),
    ctx.clock.now().getTime(),
    windowSeconds * 1000,
  )
  refuseWhenOver(ctx, Number(window.window_start_ms), Number(window.hits))
}

function refuseWhenOver(ctx: ServiceContext, windowStartMs: number, attempts: number): void {
  const { max, windowSeconds } = ctx.limits.failedAuth
  const remainingMs = windowStartMs + windowSeconds * 1000 - ctx.clock.now().getTime()
  if (attempts <= max || remainingMs <= 0) return
  const retryAfterSeconds = Math.max(1, Math.ceil(remainingMs / 1000))
  throw new HttpError(
    429,
    `Too many failed attempts from this address: try again in ${retryAfterSeconds} seconds`,
    {
      attributes: { limit: max, windowSeconds, retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
    },
  )
}

function bucketOf(kind: FailedAuthKind, clientAddress: string): string {
  return `failed-auth:${kind}:${addressGroupOf(clientAddress)}`
}
