import { api } from './api.ts'
import type { Check, CheckType } from './types.ts'

/** Per-type facts the pages share: analytics path, main metric, create path. */

export const ANALYTICS_PATH: Record<CheckType, string> = {
  URL: 'url-monitors',
  API: 'api-checks',
  BROWSER: 'browser-checks',
  MULTI_STEP: 'multistep-checks',
  AUTOMATION: 'playwright-checks',
  TCP: 'tcp-checks',
  DNS: 'dns',
  ICMP: 'icmp',
  HEARTBEAT: 'heartbeat-checks',
}

export function mainMetric(type: CheckType): string | null {
  if (type === 'TCP' || type === 'DNS') return 'total'
  if (type === 'ICMP') return 'latencyAvg'
  if (type === 'HEARTBEAT') return null
  return 'responseTime'
}

export const CREATE_PATH: Record<CheckType, string> = {
  URL: 'url',
  API: 'api',
  BROWSER: 'browser',
  MULTI_STEP: 'multistep',
  AUTOMATION: 'automation',
  TCP: 'tcp',
  DNS: 'dns',
  ICMP: 'icmp',
  HEARTBEAT: 'heartbeat',
}

export const RANGES = {
  '1h': { seconds: 3600, interval: 1 },
  '24h': { seconds: 86_400, interval: 30 },
  '7d': { seconds: 7 * 86_400, interval: 360 },
  '30d': { seconds: 30 * 86_400, interval: 1440 },
} as const
export type RangeKey = keyof typeof RANGES

/** Fields the API returns but refuses on create/update. */
const READ_ONLY_FIELDS = [
  'id',
  'checkType',
  'created_at',
  'updated_at',
  'createdAt',
  'updatedAt',
  'alertChannelSubscriptions',
  'projectBindings',
  'accountId',
]

export function writableBody(check: Partial<Check>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...check }
  for (const field of READ_ONLY_FIELDS) delete body[field]
  for (const [key, value] of Object.entries(body)) if (value === null || value === undefined) delete body[key]
  if (check.checkType === 'HEARTBEAT' && check.heartbeat) {
    const { pingUrl: _url, pingToken: _token, ...heartbeat } = check.heartbeat
    body.heartbeat = heartbeat
  }
  return body
}

export async function saveCheck(type: CheckType, body: Record<string, unknown>, id?: string): Promise<Check> {
  const path = `/v1/checks/${CREATE_PATH[type]}`
  return id ? api.put<Check>(`${path}/${id}`, body) : api.post<Check>(path, body)
}
