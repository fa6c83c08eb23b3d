import type { CheckType } from '../types.ts'

/** The create form's starting values per type: the API's defaults (core's CHECK_BODIES). */

export const FREQUENCIES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]
/** The types that may run every 10, 20 or 30 s (`frequency: 0` with `frequencyOffset`). */
export const SUB_MINUTE_TYPES: readonly CheckType[] = ['API', 'URL', 'TCP', 'DNS', 'ICMP', 'SSL']
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS']
export const BODY_TYPES = ['NONE', 'JSON', 'FORM', 'RAW', 'GRAPHQL']
export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'SRV', 'CAA', 'HTTPS']
export const HEARTBEAT_UNITS = ['seconds', 'minutes', 'hours', 'days']
export const COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'HAS_KEY',
  'NOT_HAS_KEY',
  'HAS_VALUE',
  'NOT_HAS_VALUE',
  'IS_EMPTY',
  'NOT_EMPTY',
  'GREATER_THAN',
  'LESS_THAN',
  'CONTAINS',
  'NOT_CONTAINS',
  'IS_NULL',
  'NOT_NULL',
]
export const ASSERTION_SOURCES: Partial<Record<CheckType, string[]>> = {
  API: ['STATUS_CODE', 'JSON_BODY', 'TEXT_BODY', 'HEADERS', 'RESPONSE_TIME'],
  URL: ['STATUS_CODE'],
  TCP: ['RESPONSE_DATA', 'RESPONSE_TIME'],
  DNS: ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'],
  ICMP: ['LATENCY', 'JSON_RESPONSE'],
  SSL: ['CERTIFICATE', 'CONNECTION', 'RESPONSE_TIME', 'JSON_RESPONSE', 'TEXT_RESPONSE'],
}

const BROWSER_SCRIPT = `import { test, expect } from '@playwright/test'

test('home page loads', async ({ page }) => {
  const response = await page.goto('https://example.com')
  expect(response?.status()).toBeLessThan(400)
  await expect(page).toHaveTitle(/Example/)
  await page.screenshot({ path: 'home.png' })
})
`

const MULTI_STEP_SCRIPT = `import { test, expect } from '@playwright/test'

test('API flow', async ({ request }) => {
  await test.step('list items', async () => {
    const response = await request.get('https://example.com/')
    expect(response.status()).toBe(200)
  })
})
`

/** Each type's own fields of a new check, beside the ones every type but heartbeats shares. */
const TYPE_DEFAULTS: Record<CheckType, Record<string, unknown>> = {
  API: {
    request: { method: 'GET', url: 'https://', bodyType: 'NONE', followRedirects: true, assertions: [] },
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
  },
  URL: {
    request: { url: 'https://', followRedirects: true, assertions: [] },
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
  },
  TCP: {
    request: { hostname: '', port: 443, assertions: [] },
    degradedResponseTime: 4000,
    maxResponseTime: 5000,
  },
  DNS: {
    request: { query: '', recordType: 'A', protocol: 'UDP', assertions: [] },
    degradedResponseTime: 1000,
    maxResponseTime: 2000,
  },
  ICMP: {
    request: { hostname: '', pingCount: 10, assertions: [] },
    degradedPacketLossThreshold: 10,
    maxPacketLossThreshold: 20,
  },
  SSL: {
    request: { sslConfig: { hostname: '', port: 443, alertDaysBeforeExpiry: 20 }, assertions: [] },
    degradedResponseTime: 3000,
    maxResponseTime: 10_000,
  },
  HEARTBEAT: {},
  BROWSER: { script: BROWSER_SCRIPT },
  MULTI_STEP: { script: MULTI_STEP_SCRIPT },
  AUTOMATION: { script: BROWSER_SCRIPT, scriptPath: 'tests/home.spec.ts' },
}

export function defaultsFor(type: CheckType): Record<string, unknown> {
  if (type === 'HEARTBEAT') {
    return {
      name: '',
      activated: true,
      muted: false,
      tags: [],
      heartbeat: { period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' },
    }
  }
  // A fresh copy each time: forms edit what they are given.
  return structuredClone({
    name: '',
    activated: true,
    muted: false,
    frequency: 10,
    tags: [] as string[],
    ...TYPE_DEFAULTS[type],
  })
}
