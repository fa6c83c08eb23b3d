import type { CHECK_TYPE_CATALOG } from '@svc/core/check-type-catalog'
/** The shapes of the API payloads the pages read (API.md and the product spec). */

export type Role = 'OWNER' | 'ADMIN' | 'READ_WRITE' | 'READ_ONLY'

export interface Session {
  /** null for a service key's session: it acts as the account, not as a person. */
  user: { id: string; email: string; name: string } | null
  accounts: { id: string; name: string; role: Role }[]
  csrfToken: string
}

export type CheckStatus = 'passing' | 'degraded' | 'failing' | 'paused' | 'no-data'

/** Every check type core knows (its catalog): a type added there is a compile error here until handled. */
export type CheckType = keyof typeof CHECK_TYPE_CATALOG

export interface OverviewCheck {
  id: string
  name: string
  checkType: CheckType
  activated: boolean
  muted: boolean
  tags: string[]
  groupId: number | null
  locations: string[]
  privateLocations: string[]
  frequency: number
  status: CheckStatus
  statusSince: string | null
  lastRunAt: string | null
  lastResponseTime: number | null
  availability24h: number | null
  responseTimes24h: (number | null)[]
}

/** GET /v1/dashboard/overview: one page of the checks that match the filters, and what is around it. */
export interface Overview {
  checks: OverviewCheck[]
  total: number
  page: number
  limit: number
  counts: Record<CheckStatus, number>
  tags: string[]
  groupIds: number[]
  locations: string[]
}

export interface Assertion {
  source: string
  property?: string
  comparison: string
  target: string
  regex?: string | null
}

export interface AssertionResult extends Assertion {
  actual?: unknown
  passed?: boolean
}

export interface Check {
  id: string
  name: string
  checkType: CheckType
  activated: boolean
  muted: boolean
  tags: string[]
  groupId?: number | null
  locations: string[]
  privateLocations?: string[]
  frequency: number
  /** Seconds between runs when `frequency` is 0. */
  frequencyOffset?: number
  script?: string | null
  request?: Record<string, unknown>
  heartbeat?: {
    period: number
    periodUnit: string
    grace: number
    graceUnit: string
    pingUrl?: string
    pingToken?: string
  }
  [key: string]: unknown
}

export interface CheckResult {
  id: string
  checkId: string
  checkType: CheckType
  runLocation: string
  startedAt: string
  stoppedAt: string
  responseTime: number
  hasFailures: boolean
  hasErrors: boolean
  isDegraded: boolean
  overMaxResponseTime?: boolean
  attempts: number
  resultType: string
  created_at?: string
  /** A passing URL/API run stored with its timings (and TLS) only. */
  detailOmitted?: boolean
  /** The result kept in full whose request, response and assertions such a run shows. */
  detailCopiedFrom?: string
  error?: { type: string; message: string } | null
  apiCheckResult?: HttpResult | null
  urlCheckResult?: HttpResult | null
  tcpCheckResult?: Record<string, unknown> | null
  dnsCheckResult?: Record<string, unknown> | null
  icmpCheckResult?: Record<string, unknown> | null
  sslCheckResult?: Record<string, unknown> | null
  browserCheckResult?: BrowserResult | null
  multiStepCheckResult?: BrowserResult | null
  [key: string]: unknown
}

export interface HttpResult {
  request?: { method?: string; url?: string; headers?: Record<string, string>; data?: string; body?: string }
  response?: { status?: number; statusText?: string; headers?: Record<string, string>; body?: string }
  timingPhases?: Record<string, number | null>
  assertions?: AssertionResult[]
  [key: string]: unknown
}

export interface BrowserResult {
  errors?: unknown[]
  logs?: { level?: string; type?: string; message?: string; text?: string; time?: number }[]
  pages?: { url: string; webVitals?: Record<string, { value?: number; score?: string } | number | null> }[]
  traceUrl?: string | null
  videoUrl?: string | null
  screenshots?: (string | { url?: string; name?: string })[]
  steps?: unknown[]
  [key: string]: unknown
}
