// Settings that guard the service: key caps, rate and sign-in limits, sessions, the admin token and keys.
import { decodeEncryptionKey } from '../crypto/secret-box.ts'
import { ConfigError, parsePositiveInteger } from './values.ts'

export interface SessionSettings {
  /** A session ends this long after sign-in, however busy (SVC_SESSION_MAX_AGE_HOURS). */
  maxAgeMs: number
  /** A session unused this long ends (SVC_SESSION_IDLE_MINUTES). */
  idleMs: number
  /** A one-time set-password link works this long (SVC_PASSWORD_LINK_HOURS). */
  passwordLinkMs: number
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = {
  maxAgeMs: 7 * 24 * 3_600_000,
  idleMs: 24 * 3_600_000,
  passwordLinkMs: 24 * 3_600_000,
}

/** Caps and limits against abuse (most tunable here); docs/security.md explains each. */
export interface AbuseLimits {
  /** Requests per 60 s of one account, all its keys together (SVC_ACCOUNT_RATE_LIMIT). */
  accountRateLimit: number
  /** Live user keys one user may hold (SVC_MAX_KEYS_PER_USER). */
  keysPerUser: number
  /** Live service keys one account may hold (SVC_MAX_SERVICE_KEYS_PER_ACCOUNT). */
  serviceKeysPerAccount: number
  /** Failed sign-ins of one kind from one client address before it gets 429 (SVC_FAILED_AUTH_*). */
  failedAuth: { max: number; windowSeconds: number }
  /** Subscribe, confirm and unsubscribe requests of one client address: far more than a person sends. */
  statusForms: { max: number; windowSeconds: number }
}

export const DEFAULT_ABUSE_LIMITS: AbuseLimits = {
  accountRateLimit: 1200,
  keysPerUser: 100,
  serviceKeysPerAccount: 100,
  failedAuth: { max: 10, windowSeconds: 300 },
  statusForms: { max: 20, windowSeconds: 600 },
}

/** A token an attacker can't exhaust by guessing, even unthrottled: 32 characters. */
const ADMIN_TOKEN_MIN_LENGTH = 32

export function parseAbuseLimits(env: NodeJS.ProcessEnv): AbuseLimits {
  const setting = (name: string, fallback: number) =>
    env[name] === undefined || env[name] === '' ? fallback : parsePositiveInteger(name, env[name])
  const defaults = DEFAULT_ABUSE_LIMITS
  const accountRateLimit = setting('SVC_ACCOUNT_RATE_LIMIT', defaults.accountRateLimit)
  const windowSeconds = setting('SVC_FAILED_AUTH_WINDOW_SECONDS', defaults.failedAuth.windowSeconds)
  // Counters not hit for a day are pruned: a longer window would end early.
  if (windowSeconds > 86_400)
    throw new ConfigError(
      `SVC_FAILED_AUTH_WINDOW_SECONDS must be at most 86400 (a day), got ${windowSeconds}`,
    )
  return {
    accountRateLimit,
    keysPerUser: setting('SVC_MAX_KEYS_PER_USER', defaults.keysPerUser),
    serviceKeysPerAccount: setting('SVC_MAX_SERVICE_KEYS_PER_ACCOUNT', defaults.serviceKeysPerAccount),
    failedAuth: {
      max: setting('SVC_FAILED_AUTH_LIMIT', defaults.failedAuth.max),
      windowSeconds,
    },
    statusForms: defaults.statusForms,
  }
}

export function parseSessions(env: NodeJS.ProcessEnv): SessionSettings {
  const hours = 3_600_000
  const defaults = DEFAULT_SESSION_SETTINGS
  const setting = (name: string, unitMs: number, fallbackMs: number) =>
    env[name] ? parsePositiveInteger(name, env[name]) * unitMs : fallbackMs
  const sessions = {
    maxAgeMs: setting('SVC_SESSION_MAX_AGE_HOURS', hours, defaults.maxAgeMs),
    idleMs: setting('SVC_SESSION_IDLE_MINUTES', 60_000, defaults.idleMs),
    passwordLinkMs: setting('SVC_PASSWORD_LINK_HOURS', hours, defaults.passwordLinkMs),
  }
  if (sessions.idleMs > sessions.maxAgeMs)
    throw new ConfigError('SVC_SESSION_IDLE_MINUTES must not be longer than SVC_SESSION_MAX_AGE_HOURS')
  return sessions
}

/** Accepts 64 hex characters or the base64 of 32 bytes. */
export function parseEncryptionKey(value: string, name = 'SVC_ENCRYPTION_KEY'): Buffer {
  const key = decodeEncryptionKey(value)
  if (!key) throw new ConfigError(`${name} must be 32 bytes: 64 hex characters or base64`)
  return key
}

/** A comma-separated list of old keys; rotating needs the new key set in SVC_ENCRYPTION_KEY too. */
export function parsePreviousEncryptionKeys(
  value: string | undefined,
  current: string | undefined,
): Buffer[] {
  const keys = (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item, index) => parseEncryptionKey(item, `SVC_ENCRYPTION_KEY_PREVIOUS (key ${index + 1})`))
  if (keys.length > 0 && !current) {
    throw new ConfigError(
      'SVC_ENCRYPTION_KEY_PREVIOUS is set but SVC_ENCRYPTION_KEY is not: set the new key in SVC_ENCRYPTION_KEY',
    )
  }
  return keys
}

export function parseAdminToken(value: string | undefined): string | undefined {
  const adminToken = value || undefined
  if (adminToken !== undefined && adminToken.length < ADMIN_TOKEN_MIN_LENGTH) {
    throw new ConfigError(
      `SVC_ADMIN_TOKEN must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (e.g. openssl rand -hex 32)`,
    )
  }
  return adminToken
}

export function parseBootstrapApiKey(value: string | undefined): string | undefined {
  const bootstrapApiKey = value || undefined
  if (bootstrapApiKey !== undefined && !/^svc_[A-Za-z0-9_-]{32,}$/.test(bootstrapApiKey)) {
    throw new ConfigError(
      'SVC_BOOTSTRAP_API_KEY must look like svc_ followed by at least 32 letters, digits, - or _',
    )
  }
  return bootstrapApiKey
}
