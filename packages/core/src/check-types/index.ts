import type { Static } from 'typebox'
import type { AnalyticsKind } from '../analytics/metrics.ts'
import type { CheckType } from '../checks/check-fields.ts'
import { apiCheckType } from './api.ts'
import { automationCheckType } from './automation.ts'
import { browserCheckType } from './browser.ts'
import type { CheckTypeAnalytics, CheckTypeDefinition } from './definition.ts'
import { dnsCheckType } from './dns.ts'
import { heartbeatCheckType } from './heartbeat.ts'
import { icmpCheckType } from './icmp.ts'
import { multiStepCheckType } from './multi-step.ts'
import { sslCheckType } from './ssl.ts'
import { tcpCheckType } from './tcp.ts'
import { urlCheckType } from './url.ts'

export { API_ASSERTION_SOURCES, ApiRequest } from './api.ts'
export {
  ApiCheckDefaults,
  applyApiCheckDefaults,
  completeApiCheckDefaults,
  GROUP_BASE_URL,
} from './api-check-defaults.ts'
export { type ApiScript, type ApiScripts, apiScriptFields, MAX_API_SCRIPT_LENGTH } from './api-scripts.ts'
export { CATALOG_CHECK_TYPES, CHECK_TYPE_CATALOG, type CheckTypeEntry } from './catalog.ts'
export { type CheckTypeAnalytics, type CheckTypeDefinition, defineCheckType } from './definition.ts'
export { DNS_PROTOCOLS, DNS_RECORD_TYPES, DnsRequest } from './dns.ts'
export { HEARTBEAT_UNITS, Heartbeat } from './heartbeat.ts'
export { IcmpRequest } from './icmp.ts'
export {
  BODY_TYPES,
  EXTENDED_MAX_RESPONSE_TIME_MS,
  HTTP_METHODS,
  IP_FAMILIES,
  MAX_RESPONSE_TIME_MS,
} from './shared.ts'
export {
  BASELINE_SEVERITIES,
  CLIENT_CERTIFICATE_MODES,
  SSL_ASSERTION_SOURCES,
  SslConfig,
  SslRequest,
  SslSecurityBaseline,
  TLS_VERSIONS,
} from './ssl.ts'
export { TcpRequest } from './tcp.ts'
export { UrlRequest } from './url.ts'

/**
 * Every check type, one module each: the tables below (and the runner's in `@svc/runner`) derive from it,
 * so a type missing anywhere is a compile error. The order is the order analytics lists its kinds in.
 */
export const CHECK_TYPE_DEFINITIONS = {
  URL: urlCheckType,
  API: apiCheckType,
  BROWSER: browserCheckType,
  MULTI_STEP: multiStepCheckType,
  AUTOMATION: automationCheckType,
  TCP: tcpCheckType,
  DNS: dnsCheckType,
  ICMP: icmpCheckType,
  HEARTBEAT: heartbeatCheckType,
  SSL: sslCheckType,
} as const satisfies Record<CheckType, CheckTypeDefinition>

type Definitions = typeof CHECK_TYPE_DEFINITIONS
type TypesWhere<Condition> = {
  [T in CheckType]: Definitions[T] extends Condition ? T : never
}[CheckType]

/** Types whose runner reads their stored definition: API, URL, TCP, DNS, ICMP, SSL. */
export type DefinitionCheckType = TypesWhere<{ runs: 'definition' }>
/** Types whose definition is a Playwright script (run by the Playwright runner). */
export type ScriptCheckType = TypesWhere<{ runs: 'script' }>
/** Types that take assertions. */
export type AssertionCheckType = TypesWhere<{ assertionSources: readonly string[] }>
/** Types whose runs store a detail. */
export type DetailCheckType = TypesWhere<{ detail: object }>

const checkTypes = Object.keys(CHECK_TYPE_DEFINITIONS) as CheckType[]
const typesWhere = <T extends CheckType>(keep: (definition: CheckTypeDefinition) => boolean) =>
  checkTypes.filter((type) => keep(CHECK_TYPE_DEFINITIONS[type])) as T[]

/** The create (and full update) body of each check type. */
export const CHECK_BODIES = Object.fromEntries(
  checkTypes.map((type) => [type, CHECK_TYPE_DEFINITIONS[type].body]),
) as {
  [T in CheckType]: Definitions[T]['body']
}

export type CheckBody<T extends CheckType> = Static<Definitions[T]['body']>

/**
 * A stored definition as a runner receives it: the body with defaults applied, so the fields the type's
 * module lists in `jobFields` are always set.
 */
export type CheckJob<T extends DefinitionCheckType> = CheckBody<T> & {
  [K in Definitions[T]['jobFields'][number] & keyof CheckBody<T>]-?: Exclude<CheckBody<T>[K], undefined>
}

/** The path segment of `POST /v1/checks/{segment}` for each type. */
export const CHECK_PATHS = Object.fromEntries(
  checkTypes.map((type) => [CHECK_TYPE_DEFINITIONS[type].path, type]),
) as { [T in CheckType as Definitions[T]['path']]: T }

/** Where an assertion reads its value, per check type (API.md "Assertions"). */
export const ASSERTION_SOURCES = Object.fromEntries(
  typesWhere<AssertionCheckType>((d) => d.assertionSources !== null).map((type) => [
    type,
    CHECK_TYPE_DEFINITIONS[type].assertionSources,
  ]),
) as { [T in AssertionCheckType]: Definitions[T]['assertionSources'] }

/** The key of each type's detail in a stored result (API.md "Check results"). */
export const DETAIL_KEYS = Object.fromEntries(
  typesWhere<DetailCheckType>((d) => d.detail !== null).map((type) => [
    type,
    CHECK_TYPE_DEFINITIONS[type].detail.key,
  ]),
) as { [T in DetailCheckType]: Definitions[T]['detail']['key'] }

/**
 * A posted detail's schema by its check's type (whatever `detailKey` says: it is stored under its type's
 * key). Null is taken for every type: an agent whose run threw posts no detail.
 */
export const AGENT_DETAILS = Object.fromEntries(
  typesWhere<DetailCheckType>((d) => d.detail !== null).map((type) => [
    type,
    CHECK_TYPE_DEFINITIONS[type].detail.schema,
  ]),
) as { [T in DetailCheckType]: Definitions[T]['detail']['schema'] }

export const DEFINITION_CHECK_TYPES = typesWhere<DefinitionCheckType>((d) => d.runs === 'definition')
export const SCRIPT_CHECK_TYPES = typesWhere<ScriptCheckType>((d) => d.runs === 'script')

/** The analytics contract per check type (spec "Analytics", extended to every type by API.md). */
export const ANALYTICS_KINDS: AnalyticsKind[] = checkTypes.map((type) => {
  const analytics: CheckTypeAnalytics = CHECK_TYPE_DEFINITIONS[type].analytics
  const { segment, metrics, groupBy, main, statusFilters } = analytics
  const aggregates = main === null ? ['retries'] : ['avg', 'p50', 'p95', 'p99'].map((a) => `${main}_${a}`)
  return {
    segment,
    checkTypes: [type],
    metrics,
    groupBy: [...groupBy],
    statusFilters: [...(statusFilters ?? ['success', 'failure'])],
    defaultMetrics: ['availability', ...aggregates],
  }
})
