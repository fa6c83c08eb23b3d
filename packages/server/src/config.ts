import { isIPv4, isIPv6 } from 'node:net'
import { resolve } from 'node:path'
import type { ScriptSandboxMode } from '@svc/runner'
import {
  type DeliveryConfig,
  type LlmConfig,
  parseAlerting,
  parseArtifactsS3,
  parseLlm,
  type S3ArtifactsConfig,
} from './config/integrations.ts'
import {
  type AbuseLimits,
  parseAbuseLimits,
  parseAdminToken,
  parseBootstrapApiKey,
  parseEncryptionKey,
  parsePreviousEncryptionKeys,
  parseSessions,
  type SessionSettings,
} from './config/limits.ts'
import { parseAddresses, parseConnectionLimits, parseTrustProxy } from './config/network.ts'
import {
  parseDeploymentLease,
  parseHiddenPaths,
  parseLocations,
  parseResultCommitDelay,
  parseRunnerLease,
  parseRunnerLocations,
  parseScriptSandbox,
} from './config/runners.ts'
import {
  ConfigError,
  parseDatabaseUrl,
  parseLogFormat,
  parseLogLevel,
  parseNodeId,
  parsePort,
  parsePositiveInteger,
} from './config/values.ts'
import type { ConnectionLimits } from './http/connection-limits.ts'

// The settings' parts live in config/ by what they govern; these names are what the rest of svc imports.
export type { DeliveryConfig, LlmConfig, S3ArtifactsConfig } from './config/integrations.ts'
export { parseArtifactsS3 } from './config/integrations.ts'
export {
  type AbuseLimits,
  DEFAULT_ABUSE_LIMITS,
  DEFAULT_SESSION_SETTINGS,
  parseEncryptionKey,
  type SessionSettings,
} from './config/limits.ts'
export { parseRunnerLocations } from './config/runners.ts'
export { ConfigError } from './config/values.ts'

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
  /** At spread load, how long a run's result may wait for others to share its commit (SVC_RESULT_COMMIT_DELAY_MS). */
  resultCommitDelayMs: number
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

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  stdoutIsTerminal = process.stdout.isTTY === true,
): Config {
  const port = parsePort(env.PORT ?? '3000')
  const dataDir = resolve(env.SVC_DATA_DIR || './data')
  const databaseUrl = parseDatabaseUrl(env.DATABASE_URL, dataDir)
  const publicUrl = (env.SVC_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '')
  if (!URL.canParse(publicUrl)) throw new ConfigError(`SVC_PUBLIC_URL is not a URL: ${publicUrl}`)
  const adminToken = parseAdminToken(env.SVC_ADMIN_TOKEN)
  const bootstrapApiKey = parseBootstrapApiKey(env.SVC_BOOTSTRAP_API_KEY)
  const locations = parseLocations(env.SVC_LOCATIONS, env.SVC_DEFAULT_LOCATIONS)
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
    runnerLeaseMs: parseRunnerLease(env.SVC_RUNNER_LEASE_SECONDS),
    resultCommitDelayMs: parseResultCommitDelay(env.SVC_RESULT_COMMIT_DELAY_MS),
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
