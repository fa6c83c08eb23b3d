// Settings of the outside services svc talks to: mail, SMS and chat providers, an S3 bucket, an LLM.
import { refusedHeaderValue, refusedRequestHeader } from '@svc/core'
import { ConfigError } from './values.ts'

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

export function parseLlm(env: NodeJS.ProcessEnv): LlmConfig | undefined {
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

export function parseAlerting(env: NodeJS.ProcessEnv): DeliveryConfig {
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
