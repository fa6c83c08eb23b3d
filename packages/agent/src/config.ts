import { isAbsolute, resolve } from 'node:path'
import { DEFAULT_CHROMIUM_PATH, SCRIPT_SANDBOX_MODES, type ScriptSandboxMode } from '@svc/runner'

/** Every setting the agent reads from the environment, read once, validated, with defaults. */
export interface AgentConfig {
  /** The private-location key (API_KEY). */
  apiKey: string
  /** The svc server's base URL (SVC_API_URL). */
  apiUrl: string
  /** Runs at once (JOB_CONCURRENCY). */
  jobConcurrency: number
  /** Port of /-/readiness, /-/liveness and /health (AGENT_HEALTH_PORT). */
  healthPort: number
  /** Error-level events go to the server unless EXTERNAL_OBSERVABILITY=off. */
  externalObservability: boolean
  /** How long running jobs may take to finish after SIGTERM (SHUTDOWN_GRACE_SECONDS). */
  shutdownGraceMs: number
  /** Debian's Chromium for browser, multi-step and suite checks (SVC_CHROMIUM_PATH). */
  chromiumPath: string
  /** Browser runs at once (SVC_BROWSER_CONCURRENCY; each is a Chromium context and a test runner). */
  browserConcurrency: number
  /** Scripts and their Chromium in Linux namespaces (SVC_SCRIPT_SANDBOX: auto, on or off). */
  scriptSandbox: ScriptSandboxMode
  /** Directories and files hidden from scripts in the sandbox (SVC_SCRIPT_HIDDEN_PATHS). */
  scriptHiddenPaths: string[]
  /** HTTP_PROXY / HTTPS_PROXY / NO_PROXY (lower-case forms too): for API calls and HTTP checks. */
  proxy: ProxySettings
  /** Values of the agent's own SVC_SECRET_* variables: scrubbed from everything it sends. */
  secrets: string[]
}

export interface ProxySettings {
  httpProxy: string
  httpsProxy: string
  noProxy: string
}

export class ConfigError extends Error {}

export function loadAgentConfig(env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const apiKey = env.API_KEY?.trim()
  if (!apiKey) {
    throw new ConfigError(
      'API_KEY is not set: set it to a key of the private location this agent serves ' +
        '(POST /v1/private-locations/{id}/keys answers it once, as rawKey)',
    )
  }
  const apiUrl = (env.SVC_API_URL || 'http://localhost:3000').replace(/\/+$/, '')
  if (!/^https?:\/\//.test(apiUrl) || !URL.canParse(apiUrl)) {
    throw new ConfigError(`SVC_API_URL must be an http:// or https:// URL, got ${apiUrl}`)
  }
  // Only the two documented values: a typo must not leave error events on unnoticed.
  const observability = (env.EXTERNAL_OBSERVABILITY ?? '').trim().toLowerCase()
  if (!['', 'on', 'off'].includes(observability)) {
    throw new ConfigError(`EXTERNAL_OBSERVABILITY must be on or off, got ${env.EXTERNAL_OBSERVABILITY}`)
  }
  const proxy = {
    httpProxy: env.HTTP_PROXY || env.http_proxy || '',
    httpsProxy: env.HTTPS_PROXY || env.https_proxy || '',
    noProxy: env.NO_PROXY || env.no_proxy || '',
  }
  for (const [name, value] of [
    ['HTTP_PROXY', proxy.httpProxy],
    ['HTTPS_PROXY', proxy.httpsProxy],
  ] as const) {
    // The value may hold credentials: the message names the variable, never the value.
    if (value && !(/^https?:\/\//i.test(value) && URL.canParse(value)))
      throw new ConfigError(`${name} must be an http:// or https:// URL`)
  }
  return {
    apiKey,
    apiUrl,
    jobConcurrency: positiveInteger('JOB_CONCURRENCY', env.JOB_CONCURRENCY, 10),
    healthPort: port('AGENT_HEALTH_PORT', env.AGENT_HEALTH_PORT, 8081),
    externalObservability: observability !== 'off',
    shutdownGraceMs: positiveInteger('SHUTDOWN_GRACE_SECONDS', env.SHUTDOWN_GRACE_SECONDS, 60) * 1000,
    chromiumPath: env.SVC_CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH,
    browserConcurrency: positiveInteger('SVC_BROWSER_CONCURRENCY', env.SVC_BROWSER_CONCURRENCY, 2),
    scriptSandbox: scriptSandbox(env.SVC_SCRIPT_SANDBOX),
    scriptHiddenPaths: hiddenPaths(env.SVC_SCRIPT_HIDDEN_PATHS),
    proxy,
    secrets: Object.entries(env)
      .filter(([key, value]) => key.startsWith('SVC_SECRET_') && value)
      .map(([, value]) => value as string),
  }
}

function scriptSandbox(value: string | undefined): ScriptSandboxMode {
  const mode = (value ?? '').trim().toLowerCase() || 'auto'
  if (!(SCRIPT_SANDBOX_MODES as readonly string[]).includes(mode))
    throw new ConfigError(`SVC_SCRIPT_SANDBOX must be auto, on or off, got ${value}`)
  return mode as ScriptSandboxMode
}

/** Colon-separated absolute paths, as in PATH. */
function hiddenPaths(value: string | undefined): string[] {
  const paths = (value ?? '').split(':').filter((path) => path.trim())
  const relative = paths.find((path) => !isAbsolute(path))
  if (relative) throw new ConfigError(`SVC_SCRIPT_HIDDEN_PATHS must list absolute paths, got ${relative}`)
  return paths.map((path) => resolve(path))
}

function positiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1)
    throw new ConfigError(`${name} must be a positive integer, got ${value}`)
  return number
}

function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const number = Number(value)
  if (!Number.isInteger(number) || number < 0 || number > 65535)
    throw new ConfigError(`${name} must be a port (0-65535), got ${value}`)
  return number
}
