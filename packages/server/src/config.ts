import { isIPv4, isIPv6 } from 'node:net'
import { isAbsolute, resolve } from 'node:path'
import { refusedHeaderValue, refusedRequestHeader } from '@svc/core'
import { SCRIPT_SANDBOX_MODES, type ScriptSandboxMode } from '@svc/runner'
import { decodeEncryptionKey } from './crypto/secret-box.ts'
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  LONGEST_SILENT_ANSWER_MS,
} from './http/connection-limits.ts'

/** How svc reaches mail, SMS and chat providers (SVC_SMTP_URL, SVC_SMS_*, SVC_SLACK_*); webhooks need nothing. */
export interface DeliveryConfig {
  smtp?: { url: string; from: string }
  sms?: { url: string; method: string; headers: Record<string, string>; body: string }
  /** The bot token of the Slack app SLACK_APP channels post with; apiUrl: https://slack.com/api. */
  slackApp?: { botToken: string; apiUrl?: string }
  /** Base URLs in place of PagerDuty's and Opsgenie's own: a proxy (or a test's receiver). */
  pagerDutyUrl?: string
  opsgenieUrl?: string
  /** Per attempt; default 10 s. */
  timeoutMs?: number
  /** `{{REGION}}`: the region of the node sending the alert (SVC_REGION, else the first served location). */
  region?: string
}

/** An S3-compatible bucket for artifacts (SVC_ARTIFACTS_S3_*). */
export interface S3ArtifactsConfig {
  bucket: string
  /** For S3-compatible servers (addressed path-style); unset: AWS, `<bucket>.s3.<region>.amazonaws.com`. */
  endpoint: string | undefined
  region: string
  accessKeyId: string
  secretAccessKey: string
  sessionToken: string | undefined
  /** Put before every key, e.g. `svc/`; empty for none. */
  prefix: string
}

/** An OpenAI-compatible chat completions endpoint (SVC_LLM_URL, SVC_LLM_MODEL, SVC_LLM_API_KEY). */
export interface LlmConfig {
  url: string
  model: string
  apiKey?: string
  timeoutMs?: number
}

/** Every setting svc reads from the environment, read once, validated, with defaults that let `npm start` just work. */
export interface Config {
  port: number
  host: string
  /** Where the embedded store, the generated encryption key and artifacts live. */
  dataDir: string
  /** `postgres://...` for PostgreSQL; otherwise the SQLite file in `dataDir`. */
  databaseUrl: string
  /** The base URL svc shows the world: OpenAPI servers, ping URLs, result links. */
  publicUrl: string
  /** Enables the admin API under /admin/v1 when set (at least ADMIN_TOKEN_MIN_LENGTH characters). */
  adminToken: string | undefined
  /**
   * Fastify's trustProxy (SVC_TRUST_PROXY): false (the default) takes the TCP peer as the client; true
   * or proxy addresses make X-Forwarded-For name it. Failed sign-ins are counted per client.
   */
  trustProxy: boolean | string[]
  /** Key caps, the per-account rate limit and the failed sign-in limit. */
  limits: AbuseLimits
  /** 32-byte AES-256-GCM key for locked and secret values; generated into `dataDir` when unset. */
  encryptionKey: Buffer | undefined
  /** Keys being rotated away from (SVC_ENCRYPTION_KEY_PREVIOUS): they open values until all are re-sealed. */
  previousEncryptionKeys: Buffer[]
  /** Presets the value of the API key created on first start. */
  bootstrapApiKey: string | undefined
  logLevel: string
  /** `pretty`: one line per entry for people; `json`: for collectors; LOG_FORMAT, default pretty only on a terminal. */
  logFormat: 'pretty' | 'json'
  /** Data-center locations this deployment serves (SVC_LOCATIONS) and the default for new checks. */
  locations: { served: string[]; defaults: string[] }
  /** Check runs at once in this process's in-process runner (SVC_RUNNER_CONCURRENCY). */
  runnerConcurrency: number
  /** Served locations whose checks this process runs (SVC_RUNNER_LOCATIONS; `none` for an API-only node). */
  runnerLocations: string[]
  /** How long a dead node's claimed runs wait before another node takes them (SVC_RUNNER_LEASE_SECONDS). */
  runnerLeaseMs: number
  /** How long a dead node's project deployment stays running before it counts as failed (SVC_DEPLOYMENT_LEASE_SECONDS). */
  deploymentLeaseMs: number
  /** This node's id (SVC_NODE_ID); unset, the one kept in `dataDir/node-id`. Names whose leases a restart takes back. */
  nodeId: string | undefined
  /** Header, request and idle timeouts and the connection cap of the HTTP server (SVC_HTTP_*). */
  connectionLimits: ConnectionLimits
  /** SIGTERM: how long runs and requests in flight get to finish before the process exits anyway. */
  shutdownGraceMs: number
  /** Debian's Chromium for browser checks (SVC_CHROMIUM_PATH). */
  chromiumPath: string
  /** Browser, multi-step and suite runs at once in this process (SVC_BROWSER_CONCURRENCY). */
  browserConcurrency: number
  /** Scripts and their Chromium in Linux namespaces (SVC_SCRIPT_SANDBOX: auto, on or off). */
  scriptSandbox: ScriptSandboxMode
  /** Hidden from scripts in the sandbox: `dataDir` and SVC_SCRIPT_HIDDEN_PATHS. */
  scriptHiddenPaths: string[]
  /** Source addresses of check runs, as GET /v1/static-ips.txt and static-ipv6s.txt list them. */
  staticAddresses: { ipv4: string[]; ipv6: string[] }
  /** Artifacts go to this S3-compatible bucket instead of `dataDir/artifacts` (SVC_ARTIFACTS_S3_*). */
  artifactsS3: S3ArtifactsConfig | undefined
  /** Results are never kept longer than this many days (SVC_RESULT_RETENTION_DAYS). */
  resultRetentionDays: number
  /** Email over SMTP (SVC_SMTP_URL, SVC_SMTP_FROM) and SMS through an HTTP provider (SVC_SMS_*). */
  alerting: DeliveryConfig
  /** Dashboard sign-in: session lifetime and idle timeout, and how long a set-password link works. */
  sessions: SessionSettings
  /** An OpenAI-compatible endpoint that writes root cause summaries (SVC_LLM_URL, SVC_LLM_MODEL, SVC_LLM_API_KEY). */
  llm: LlmConfig | undefined
}

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

export class ConfigError extends Error {}

/** A token an attacker can't exhaust by guessing, even unthrottled: 32 characters. */
export const ADMIN_TOKEN_MIN_LENGTH = 32

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  stdoutIsTerminal = process.stdout.isTTY === true,
): Config {
  const port = parsePort(env.PORT ?? '3000')
  const dataDir = resolve(env.SVC_DATA_DIR || './data')
  const databaseUrl = env.DATABASE_URL || `sqlite:${resolve(dataDir, 'svc.db')}`
  if (env.DATABASE_URL && !/^postgres(ql)?:\/\//.test(env.DATABASE_URL)) {
    throw new ConfigError(
      'DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite store)',
    )
  }
  const publicUrl = (env.SVC_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '')
  if (!URL.canParse(publicUrl)) throw new ConfigError(`SVC_PUBLIC_URL is not a URL: ${publicUrl}`)
  const adminToken = env.SVC_ADMIN_TOKEN || undefined
  if (adminToken !== undefined && adminToken.length < ADMIN_TOKEN_MIN_LENGTH) {
    throw new ConfigError(
      `SVC_ADMIN_TOKEN must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (e.g. openssl rand -hex 32)`,
    )
  }
  const bootstrapApiKey = env.SVC_BOOTSTRAP_API_KEY || undefined
  if (bootstrapApiKey !== undefined && !/^svc_[A-Za-z0-9_-]{32,}$/.test(bootstrapApiKey)) {
    throw new ConfigError(
      'SVC_BOOTSTRAP_API_KEY must look like svc_ followed by at least 32 letters, digits, - or _',
    )
  }
  const locations = parseLocations(env.SVC_LOCATIONS, env.SVC_DEFAULT_LOCATIONS)
  const leaseSeconds = parsePositiveInteger('SVC_RUNNER_LEASE_SECONDS', env.SVC_RUNNER_LEASE_SECONDS ?? '30')
  if (leaseSeconds < 3) throw new ConfigError('SVC_RUNNER_LEASE_SECONDS must be at least 3')
  return {
    port,
    host: env.HOST || '0.0.0.0',
    dataDir,
    databaseUrl,
    publicUrl,
    adminToken,
    trustProxy: parseTrustProxy(env.SVC_TRUST_PROXY),
    limits: parseAbuseLimits(env),
    encryptionKey: env.SVC_ENCRYPTION_KEY ? parseEncryptionKey(env.SVC_ENCRYPTION_KEY) : undefined,
    previousEncryptionKeys: parsePreviousEncryptionKeys(
      env.SVC_ENCRYPTION_KEY_PREVIOUS,
      env.SVC_ENCRYPTION_KEY,
    ),
    bootstrapApiKey,
    logLevel: parseLogLevel(env.LOG_LEVEL),
    logFormat: parseLogFormat(env.LOG_FORMAT, stdoutIsTerminal),
    locations,
    runnerConcurrency: parsePositiveInteger('SVC_RUNNER_CONCURRENCY', env.SVC_RUNNER_CONCURRENCY ?? '20'),
    runnerLocations: parseRunnerLocations(env.SVC_RUNNER_LOCATIONS, locations.served),
    runnerLeaseMs: leaseSeconds * 1000,
    deploymentLeaseMs: parseDeploymentLease(env.SVC_DEPLOYMENT_LEASE_SECONDS),
    connectionLimits: parseConnectionLimits(env),
    nodeId: parseNodeId(env.SVC_NODE_ID),
    shutdownGraceMs:
      parsePositiveInteger('SVC_SHUTDOWN_GRACE_SECONDS', env.SVC_SHUTDOWN_GRACE_SECONDS ?? '25') * 1000,
    chromiumPath: env.SVC_CHROMIUM_PATH || '/usr/bin/chromium',
    staticAddresses: {
      ipv4: parseAddresses('SVC_STATIC_IPS', env.SVC_STATIC_IPS, isIPv4),
      ipv6: parseAddresses('SVC_STATIC_IPV6S', env.SVC_STATIC_IPV6S, isIPv6),
    },
    browserConcurrency: parsePositiveInteger('SVC_BROWSER_CONCURRENCY', env.SVC_BROWSER_CONCURRENCY ?? '2'),
    scriptSandbox: parseScriptSandbox(env.SVC_SCRIPT_SANDBOX),
    scriptHiddenPaths: [dataDir, ...parseHiddenPaths(env.SVC_SCRIPT_HIDDEN_PATHS)],
    resultRetentionDays: parsePositiveInteger(
      'SVC_RESULT_RETENTION_DAYS',
      env.SVC_RESULT_RETENTION_DAYS ?? '400',
    ),
    alerting: { ...parseAlerting(env), region: env.SVC_REGION?.trim() || locations.served[0] || 'local' },
    llm: parseLlm(env),
    sessions: parseSessions(env),
    artifactsS3: parseArtifactsS3(env),
  }
}

function parseNodeId(value: string | undefined): string | undefined {
  if (!value) return undefined
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(value)) {
    throw new ConfigError(`SVC_NODE_ID must be 1-100 letters, digits, ., _ or -, got ${value}`)
  }
  return value
}

/** SVC_HTTP_*: how long clients may take to send requests, how long a silent connection lasts, how many. */
export function parseConnectionLimits(env: NodeJS.ProcessEnv): ConnectionLimits {
  const seconds = (name: string, defaultMs: number) =>
    parsePositiveInteger(name, env[name] ?? String(defaultMs / 1000)) * 1000
  const defaults = DEFAULT_CONNECTION_LIMITS
  const limits: ConnectionLimits = {
    headersTimeoutMs: seconds('SVC_HTTP_HEADERS_TIMEOUT_SECONDS', defaults.headersTimeoutMs),
    requestTimeoutMs: seconds('SVC_HTTP_REQUEST_TIMEOUT_SECONDS', defaults.requestTimeoutMs),
    idleTimeoutMs: seconds('SVC_HTTP_IDLE_TIMEOUT_SECONDS', defaults.idleTimeoutMs),
    maxConnections: parsePositiveInteger(
      'SVC_HTTP_MAX_CONNECTIONS',
      env.SVC_HTTP_MAX_CONNECTIONS ?? String(defaults.maxConnections),
    ),
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      'SVC_HTTP_HEADERS_TIMEOUT_SECONDS must not be more than SVC_HTTP_REQUEST_TIMEOUT_SECONDS (headers are part of the request)',
    )
  }
  if (limits.idleTimeoutMs <= LONGEST_SILENT_ANSWER_MS) {
    throw new ConfigError(
      `SVC_HTTP_IDLE_TIMEOUT_SECONDS must be more than ${LONGEST_SILENT_ANSWER_MS / 1000}: agents' long-polls wait that long in silence`,
    )
  }
  return limits
}

/**
 * The artifacts bucket: SVC_ARTIFACTS_S3_BUCKET turns it on. Credentials are SVC_ARTIFACTS_S3_ACCESS_KEY_ID
 * and SVC_ARTIFACTS_S3_SECRET_ACCESS_KEY, else the standard AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
 * (and AWS_SESSION_TOKEN); the region likewise falls back to AWS_REGION.
 */
export function parseArtifactsS3(env: NodeJS.ProcessEnv): S3ArtifactsConfig | undefined {
  const bucket = env.SVC_ARTIFACTS_S3_BUCKET
  if (!bucket) {
    const stray = Object.keys(env).find((name) => name.startsWith('SVC_ARTIFACTS_S3_') && env[name])
    if (stray) throw new ConfigError(`${stray} is set but SVC_ARTIFACTS_S3_BUCKET is not: set the bucket too`)
    return undefined
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError(
      `SVC_ARTIFACTS_S3_BUCKET must be an S3 bucket name (3-63 of a-z, 0-9, . and -), got ${bucket}`,
    )
  }
  const endpoint = env.SVC_ARTIFACTS_S3_ENDPOINT?.replace(/\/+$/, '') || undefined
  if (endpoint !== undefined && (!/^https?:\/\//.test(endpoint) || !URL.canParse(endpoint))) {
    throw new ConfigError(
      `SVC_ARTIFACTS_S3_ENDPOINT must be an http:// or https:// URL of an S3-compatible server, got ${endpoint}`,
    )
  }
  const own = Boolean(env.SVC_ARTIFACTS_S3_ACCESS_KEY_ID || env.SVC_ARTIFACTS_S3_SECRET_ACCESS_KEY)
  const accessKeyId = own ? env.SVC_ARTIFACTS_S3_ACCESS_KEY_ID : env.AWS_ACCESS_KEY_ID
  const secretAccessKey = own ? env.SVC_ARTIFACTS_S3_SECRET_ACCESS_KEY : env.AWS_SECRET_ACCESS_KEY
  if (!accessKeyId || !secretAccessKey) {
    throw new ConfigError(
      own
        ? 'SVC_ARTIFACTS_S3_ACCESS_KEY_ID and SVC_ARTIFACTS_S3_SECRET_ACCESS_KEY must be set together'
        : 'SVC_ARTIFACTS_S3_BUCKET needs credentials: SVC_ARTIFACTS_S3_ACCESS_KEY_ID and ' +
            'SVC_ARTIFACTS_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)',
    )
  }
  const prefix = (env.SVC_ARTIFACTS_S3_PREFIX ?? '').replace(/^\/+|\/+$/g, '')
  if (prefix.split('/').some((segment) => segment === '.' || segment === '..') || /[\\\0]/.test(prefix)) {
    throw new ConfigError(
      `SVC_ARTIFACTS_S3_PREFIX must be a plain key prefix like svc/artifacts, got ${prefix}`,
    )
  }
  return {
    bucket,
    endpoint,
    region: env.SVC_ARTIFACTS_S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    sessionToken: own ? undefined : env.AWS_SESSION_TOKEN || undefined,
    prefix: prefix ? `${prefix}/` : '',
  }
}

function parseAbuseLimits(env: NodeJS.ProcessEnv): AbuseLimits {
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

/** proxy-addr's names for ranges, as Fastify's trustProxy takes them. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * SVC_TRUST_PROXY: unset or `false` trusts no proxy; `true` trusts every hop (only when every request
 * passes a proxy that sets X-Forwarded-For); else the proxies' addresses, CIDR ranges or proxy-addr's
 * names (loopback, linklocal, uniquelocal), comma-separated. (Fastify 5 refuses hop counts.)
 */
export function parseTrustProxy(value: string | undefined): boolean | string[] {
  const trimmed = (value ?? '').trim().toLowerCase()
  if (trimmed === '' || trimmed === 'false') return false
  if (trimmed === 'true') return true
  const list = trimmed
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const invalid = list.find((entry) => !PROXY_RANGE_NAMES.has(entry) && !isAddressRange(entry))
  if (invalid !== undefined) {
    throw new ConfigError(
      `SVC_TRUST_PROXY must be true, false or comma-separated proxy addresses (CIDR, loopback, linklocal, uniquelocal allowed), got ${invalid}`,
    )
  }
  return list
}

function isAddressRange(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/')
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0
  if (family === 0 || rest.length > 0) return false
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
}

function parseSessions(env: NodeJS.ProcessEnv): SessionSettings {
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

function parseLlm(env: NodeJS.ProcessEnv): LlmConfig | undefined {
  if (!env.SVC_LLM_URL) return undefined
  if (!/^https?:\/\//.test(env.SVC_LLM_URL) || !URL.canParse(env.SVC_LLM_URL)) {
    throw new ConfigError('SVC_LLM_URL must be an http:// or https:// URL of an OpenAI-compatible API')
  }
  return {
    url: env.SVC_LLM_URL,
    model: env.SVC_LLM_MODEL || 'gpt-4o-mini',
    apiKey: env.SVC_LLM_API_KEY || undefined,
  }
}

function parseAlerting(env: NodeJS.ProcessEnv): DeliveryConfig {
  const alerting: DeliveryConfig = {}
  if (env.SVC_SMTP_URL) {
    if (!/^smtps?:\/\/[^/]/.test(env.SVC_SMTP_URL))
      throw new ConfigError('SVC_SMTP_URL must be an smtp:// or smtps:// URL')
    alerting.smtp = { url: env.SVC_SMTP_URL, from: env.SVC_SMTP_FROM || 'svc <alerts@localhost>' }
  }
  if (env.SVC_SMS_URL) {
    let headers: Record<string, string> = {}
    try {
      headers = JSON.parse(env.SVC_SMS_HEADERS || '{}')
    } catch {
      throw new ConfigError('SVC_SMS_HEADERS must be a JSON object of header names to string values')
    }
    if (
      typeof headers !== 'object' ||
      headers === null ||
      Array.isArray(headers) ||
      Object.values(headers).some((value) => typeof value !== 'string')
    )
      throw new ConfigError('SVC_SMS_HEADERS must be a JSON object of header names to string values')
    for (const [key, value] of Object.entries(headers)) {
      const refusal = refusedRequestHeader(key, value) ?? refusedHeaderValue(key, value)
      if (refusal) throw new ConfigError(`SVC_SMS_HEADERS: ${refusal.message}`)
    }
    alerting.sms = {
      url: env.SVC_SMS_URL,
      method: (env.SVC_SMS_METHOD || 'POST').toUpperCase(),
      headers,
      body: env.SVC_SMS_BODY || '{"to": "{{NUMBER}}", "message": "{{MESSAGE}}"}',
    }
  }
  const httpUrl = (name: string) => {
    const value = env[name]?.trim()
    if (!value) return undefined
    if (!/^https?:\/\//.test(value) || !URL.canParse(value))
      throw new ConfigError(`${name} must be an http(s) URL`)
    return value
  }
  if (env.SVC_SLACK_BOT_TOKEN?.trim())
    alerting.slackApp = { botToken: env.SVC_SLACK_BOT_TOKEN.trim(), apiUrl: httpUrl('SVC_SLACK_API_URL') }
  alerting.pagerDutyUrl = httpUrl('SVC_PAGERDUTY_URL')
  alerting.opsgenieUrl = httpUrl('SVC_OPSGENIE_URL')
  return alerting
}

function parseLocations(served = 'local', defaults?: string) {
  const list = (value: string) => [
    ...new Set(
      value
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ]
  const servedList = list(served)
  if (servedList.length === 0 || servedList.some((l) => !/^[a-z0-9-]{1,64}$/.test(l))) {
    throw new ConfigError('SVC_LOCATIONS must be a comma-separated list of names of a-z, 0-9 and -')
  }
  if (servedList.includes('heartbeat'))
    throw new ConfigError('SVC_LOCATIONS: "heartbeat" is reserved for heartbeat deadlines')
  const defaultList = defaults ? list(defaults) : servedList
  const unknown = defaultList.filter((l) => !servedList.includes(l))
  if (unknown.length > 0)
    throw new ConfigError(`SVC_DEFAULT_LOCATIONS names unserved locations: ${unknown.join(', ')}`)
  return { served: servedList, defaults: defaultList }
}

/** A comma-separated subset of the served locations; `none` for none; unset for all of them. */
export function parseRunnerLocations(value: string | undefined, served: string[]): string[] {
  if (value === undefined || value.trim() === '') return [...served]
  if (value.trim() === 'none') return []
  const list = [
    ...new Set(
      value
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ]
  const unserved = list.filter((l) => !served.includes(l))
  if (unserved.length > 0) {
    throw new ConfigError(
      `runner locations must be served (SVC_LOCATIONS=${served.join(',')}); not served: ${unserved.join(', ')}`,
    )
  }
  return list
}

function parseAddresses(name: string, value: string | undefined, valid: (address: string) => boolean) {
  const list = (value ?? '')
    .split(',')
    .map((address) => address.trim())
    .filter(Boolean)
  const invalid = list.find((address) => !valid(address))
  if (invalid) throw new ConfigError(`${name}: ${invalid} is not a valid address`)
  return list
}

export function parseScriptSandbox(value: string | undefined): ScriptSandboxMode {
  const mode = (value ?? '').trim().toLowerCase() || 'auto'
  if (!(SCRIPT_SANDBOX_MODES as readonly string[]).includes(mode))
    throw new ConfigError(`SVC_SCRIPT_SANDBOX must be auto, on or off, got ${value}`)
  return mode as ScriptSandboxMode
}

/** Colon-separated absolute paths (as in PATH), hidden from scripts besides the data directory. */
export function parseHiddenPaths(value: string | undefined): string[] {
  const paths = (value ?? '').split(':').filter((path) => path.trim())
  const relative = paths.find((path) => !isAbsolute(path))
  if (relative) throw new ConfigError(`SVC_SCRIPT_HIDDEN_PATHS must list absolute paths, got ${relative}`)
  return paths.map((path) => resolve(path))
}

function parsePositiveInteger(name: string, value: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1)
    throw new ConfigError(`${name} must be a positive integer, got ${value}`)
  return number
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** pino's levels, in any case (pino itself would stop the start with a stack trace). */
function parseLogLevel(value: string | undefined): string {
  if (!value) return 'info'
  const level = value.toLowerCase()
  if (!LOG_LEVELS.includes(level))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${value}`)
  return level
}

function parseLogFormat(value: string | undefined, terminal: boolean): 'pretty' | 'json' {
  const format = (value ?? '').trim().toLowerCase() || 'auto'
  if (format === 'auto') return terminal ? 'pretty' : 'json'
  if (format !== 'pretty' && format !== 'json')
    throw new ConfigError(`LOG_FORMAT must be auto, pretty or json, got ${value}`)
  return format
}

function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be 0-65535, got ${value}`)
  return port
}

/** Accepts 64 hex characters or the base64 of 32 bytes. */
export function parseEncryptionKey(value: string, name = 'SVC_ENCRYPTION_KEY'): Buffer {
  const key = decodeEncryptionKey(value)
  if (!key) throw new ConfigError(`${name} must be 32 bytes: 64 hex characters or base64`)
  return key
}

/**
 * PostgreSQL renews a running deployment's lease every third of it; SQLite can't while the apply holds
 * the only writer, but there one process serves, and it knows its own deployments.
 */
function parseDeploymentLease(value: string | undefined): number {
  const seconds = parsePositiveInteger('SVC_DEPLOYMENT_LEASE_SECONDS', value ?? '600')
  if (seconds < 3) throw new ConfigError('SVC_DEPLOYMENT_LEASE_SECONDS must be at least 3')
  return seconds * 1000
}

/** A comma-separated list of old keys; rotating needs the new key set in SVC_ENCRYPTION_KEY too. */
function parsePreviousEncryptionKeys(value: string | undefined, current: string | undefined): Buffer[] {
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
