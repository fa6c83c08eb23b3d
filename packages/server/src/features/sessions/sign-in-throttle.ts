import { assertNotThrottled, recordFailedAuth } from '../../auth/failed-auth-throttle.ts'
import type { ServiceContext } from '../../context.ts'
import { HttpError, unauthorized } from '../../http/errors.ts'
import { countHit, readWindow } from '../../rate-limit/rate-limit.repo.ts'

/**
 * Failed sign-ins are throttled per client address by the failed-auth throttle every credential shares
 * (SVC_FAILED_AUTH_*), and per email here as well, so that guessing one user's password from many
 * addresses stops too. Both count in the store, so every node counts them together.
 */

export const SIGN_IN_WINDOW_SECONDS = 15 * 60
/**
 * Failures per window for one email (guessing one user's password).
 * Exported because the tests fail past it.
 */
export const MAX_FAILURES_PER_EMAIL = 10

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
  await assertNotThrottled(ctx, 'password', attempt.address)
  const nowMs = ctx.clock.now().getTime()
  const windowMs = SIGN_IN_WINDOW_SECONDS * 1000
  const emailBucket = attempt.email ? `sign-in:email:${attempt.email.toLowerCase()}` : undefined
  if (emailBucket) {
    const window = await readWindow(ctx, emailBucket, nowMs, windowMs)
    if (window && window.hits >= MAX_FAILURES_PER_EMAIL) {
      const retryAfterSeconds = Math.max(1, Math.ceil((window.startMs + windowMs - nowMs) / 1000))
      throw new HttpError(429, 'Too many failed sign-ins: try again later', {
        attributes: {
          limit: MAX_FAILURES_PER_EMAIL,
          windowSeconds: SIGN_IN_WINDOW_SECONDS,
          retryAfterSeconds,
        },
        headers: { 'retry-after': String(retryAfterSeconds) },
      })
    }
  }
  const verified = await verify()
  if (verified !== undefined) return verified
  if (emailBucket) await countHit(ctx, emailBucket, nowMs, windowMs)
  await recordFailedAuth(ctx, 'password', attempt.address)
  throw unauthorized('Wrong email or password, or unknown API key')
}
