import type { ServiceContext } from '../../context.ts'
import { HttpError, unauthorized } from '../../http/errors.ts'
import { countHit, readWindow } from '../../rate-limit/rate-limit.repo.ts'

/**
 * Failed sign-ins are throttled per client address and per email, in the store's rate-limit windows so
 * every node counts them together. Everything about it is in `throttledSignIn`, so the shared
 * failed-auth throttle can take its place in one spot.
 */

export const SIGN_IN_WINDOW_SECONDS = 15 * 60
/** Failures per window for one email (guessing one user's password). */
export const MAX_FAILURES_PER_EMAIL = 10
/** Failures per window from one address (trying many emails or keys). */
export const MAX_FAILURES_PER_ADDRESS = 30

export interface SignInAttempt {
  address: string
  /** The email of a password sign-in; none for a key. */
  email?: string
}

/**
 * Runs `verify` unless the attempt's address or email failed too often lately (429 with retry-after);
 * a failure (`verify` answering undefined) is counted and answers 401.
 */
export async function throttledSignIn<T>(
  ctx: ServiceContext,
  attempt: SignInAttempt,
  verify: () => Promise<T | undefined>,
): Promise<T> {
  const buckets = bucketsOf(attempt)
  const nowMs = ctx.clock.now().getTime()
  const windowMs = SIGN_IN_WINDOW_SECONDS * 1000
  for (const { bucket, max } of buckets) {
    const window = await readWindow(ctx, bucket, nowMs, windowMs)
    if (window && window.hits >= max) {
      const retryAfterSeconds = Math.max(1, Math.ceil((window.startMs + windowMs - nowMs) / 1000))
      throw new HttpError(429, 'Too many failed sign-ins: try again later', {
        attributes: { limit: max, windowSeconds: SIGN_IN_WINDOW_SECONDS, retryAfterSeconds },
        headers: { 'retry-after': String(retryAfterSeconds) },
      })
    }
  }
  const verified = await verify()
  if (verified !== undefined) return verified
  for (const { bucket } of buckets) await countHit(ctx, bucket, nowMs, windowMs)
  throw unauthorized('Wrong email or password, or unknown API key')
}

function bucketsOf(attempt: SignInAttempt) {
  const buckets = [{ bucket: `sign-in:address:${attempt.address}`, max: MAX_FAILURES_PER_ADDRESS }]
  if (attempt.email)
    buckets.push({ bucket: `sign-in:email:${attempt.email.toLowerCase()}`, max: MAX_FAILURES_PER_EMAIL })
  return buckets
}
