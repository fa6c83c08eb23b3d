import { CATALOG_CHECK_TYPES, CHECK_TYPE_CATALOG } from '@svc/core/check-type-catalog'
import { ApiError, api } from './api.ts'
import type { Check, CheckType } from './types.ts'

/** Per-type facts the pages share (analytics path, main metric, create path), from core's catalog. */

export const ANALYTICS_PATH = Object.fromEntries(
  CATALOG_CHECK_TYPES.map((type) => [type, CHECK_TYPE_CATALOG[type].analyticsSegment]),
) as Record<CheckType, string>

export function mainMetric(type: CheckType): string | null {
  return CHECK_TYPE_CATALOG[type].mainMetric
}

export const CREATE_PATH = Object.fromEntries(
  CATALOG_CHECK_TYPES.map((type) => [type, CHECK_TYPE_CATALOG[type].path]),
) as Record<CheckType, string>

export const RANGES = {
  '1h': { seconds: 3600, interval: 1 },
  '24h': { seconds: 86_400, interval: 30 },
  '7d': { seconds: 7 * 86_400, interval: 360 },
  '30d': { seconds: 30 * 86_400, interval: 1440 },
} as const
export type RangeKey = keyof typeof RANGES

/** The fields of each type's create/update body (core's CHECK_BODIES): a read check carries more. */
const COMMON_FIELDS = [
  'name',
  'activated',
  'muted',
  'doubleCheck',
  'shouldFail',
  'locations',
  'privateLocations',
  'tags',
  'alertSettings',
  'useGlobalAlertSettings',
  'groupId',
  'groupOrder',
  'alertChannelSubscriptions',
  'retryStrategy',
  'triggerIncident',
  'runParallel',
  'environmentVariables',
  'frequency',
  'frequencyOffset',
]
const RESPONSE_TIMES = ['request', 'degradedResponseTime', 'maxResponseTime']
const SCRIPT_FIELDS = ['runtimeId', 'scriptPath', 'dependencies', 'script']
const API_SCRIPT_FIELDS = ['localSetupScript', 'localTearDownScript', 'setupSnippetId', 'tearDownSnippetId']
const TYPE_FIELDS: Record<CheckType, string[]> = {
  API: [...RESPONSE_TIMES, ...API_SCRIPT_FIELDS],
  URL: RESPONSE_TIMES,
  TCP: RESPONSE_TIMES,
  DNS: RESPONSE_TIMES,
  ICMP: ['request', 'degradedPacketLossThreshold', 'maxPacketLossThreshold'],
  SSL: RESPONSE_TIMES,
  HEARTBEAT: ['heartbeat'],
  BROWSER: [...SCRIPT_FIELDS, 'sslCheckDomain'],
  MULTI_STEP: SCRIPT_FIELDS,
  AUTOMATION: [...SCRIPT_FIELDS, 'playwrightConfigPath', 'grep'],
}
const HEARTBEAT_FIELDS = ['period', 'periodUnit', 'grace', 'graceUnit']

function pick(value: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]]))
}

export function writableBody(check: Check): Record<string, unknown> {
  const body = pick(check, [...COMMON_FIELDS, ...TYPE_FIELDS[check.checkType]])
  if (check.heartbeat) body.heartbeat = pick(check.heartbeat as Record<string, unknown>, HEARTBEAT_FIELDS)
  return body
}

export async function saveCheck(type: CheckType, body: Record<string, unknown>, id?: string): Promise<Check> {
  const path = `/v1/checks/${CREATE_PATH[type]}`
  return id ? api.put<Check>(`${path}/${id}`, body) : api.post<Check>(path, body)
}

/**
 * Runs an unsaved definition once on the server, without saving it (`POST /v1/test-sessions/run`), and
 * answers its result (the whole result: request, response, assertions, artifact links) once it ran.
 */
export async function runUnsavedCheck(
  type: CheckType,
  body: Record<string, unknown>,
): Promise<DraftRunResult> {
  const session = await api.post<{ testSessionId: string; results: { testSessionResultId: string }[] }>(
    '/v1/test-sessions/run',
    { checkRunJobs: [{ ...body, checkType: type }] },
  )
  const path = `/v1/test-sessions/${session.testSessionId}`
  for (;;) {
    try {
      await api.get(`${path}/completion?maxWaitSeconds=30`)
      break
    } catch (error) {
      // 408: still running after the wait; ask again.
      if (!(error instanceof ApiError && error.status === 408)) throw error
    }
  }
  const resultId = session.results[0]?.testSessionResultId
  return api.get<DraftRunResult>(`${path}/results/${resultId}`)
}

/** What the form shows of a run of its unsaved definition. */
export interface DraftRunResult {
  hasFailures: boolean
  isDegraded: boolean
  responseTime: number | null
  runLocation: string
}
