import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/** Passwords are hashed with scrypt (memory-hard), a random salt per hash, parameters stored beside it. */

export const MIN_PASSWORD_LENGTH = 12
export const MAX_PASSWORD_LENGTH = 1024

/** N = 2^15, r = 8: 32 MiB and ~0.1 s per hash, OWASP's floor for scrypt. */
const DEFAULTS = { log2N: 15, r: 8, p: 1 }
const KEY_LENGTH = 32
const SALT_BYTES = 16

function derive(password: string, salt: Buffer, params: typeof DEFAULTS): Promise<Buffer> {
  const N = 2 ** params.log2N
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 }
  return new Promise((done, fail) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? fail(error) : done(key),
    ),
  )
}

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, DEFAULTS)
  const { log2N, r, p } = DEFAULTS
  return ['scrypt', log2N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Whether `password` matches `stored`; a hash of another format never matches. Constant-time compare. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const params = { log2N: Number(log2N), r: Number(r), p: Number(p) }
  if (![params.log2N, params.r, params.p].every((n) => Number.isInteger(n) && n > 0 && n < 64)) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await derive(password, Buffer.from(salt, 'base64url'), params)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/**
 * A hash to verify against when no user has the email: a sign-in with an unknown email then takes as
 * long as one with a wrong password, so timing tells nobody which emails exist.
 */
let decoy: Promise<string> | undefined
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'))
  return decoy
}
