import { ANALYTICS_KINDS, type AnalyticsKind, type CheckType } from '@svc/core'
import type { CheckResultsTable } from '@svc/db'
import { integerOf, isRecord, numberOf, parsedDetailOf, stringOf } from '../check-results/result-detail.ts'

/**
 * What analytics reads from one stored result: the value of each of its type's base metrics, and for
 * browser results each page's own values. Metrics are identified by their slot, the position of the base
 * name in the kind's catalog (`@svc/core` metrics.ts): stored rollups refer to slots, so a catalog only
 * ever grows at its end.
 */
export interface ResultMetrics {
  /** [slot, value] samples of the run; a slot may repeat (a browser run's vitals, one per page). */
  run: Sample[]
  /** One entry per page rolled up (`PAGES_ROLLED_UP`). */
  pages: { pageIndex: number; samples: Sample[] }[]
}

export type Sample = [slot: number, value: number]

export function kindOfCheckType(checkType: string): AnalyticsKind | undefined {
  return ANALYTICS_KINDS.find((kind) => (kind.checkTypes as string[]).includes(checkType))
}

export function metricSlots(kind: AnalyticsKind): string[] {
  return Object.keys(kind.metrics)
}

/** The base metric values of `row` (a stored result of a check of `kind`). */
export function resultMetrics(kind: AnalyticsKind, row: CheckResultsTable): ResultMetrics {
  const slots = metricSlots(kind)
  const parsed = parsedDetailOf(row)
  const valuesOf = (named: NamedValues): Sample[] => {
    const samples: Sample[] = []
    slots.forEach((name, slot) => {
      const value = named[name]
      if (value !== undefined) samples.push([slot, value])
    })
    return samples
  }
  const responseTime = Number(row.response_time)
  const checkType = row.check_type as CheckType
  const run = (named: NamedValues): ResultMetrics => ({ run: valuesOf(named), pages: [] })
  switch (checkType) {
    case 'URL':
    case 'API':
      return run(httpValues(parsed, responseTime))
    case 'TCP':
      return run(tcpValues(parsed, responseTime))
    case 'DNS': {
      const phases = detailField(parsed, ['dnsCheckResult'], 'timingPhases')
      return run({ total: numberOf(phases.total) ?? responseTime })
    }
    case 'ICMP':
      return run(icmpValues(parsed))
    case 'SSL':
      return run(sslValues(parsed))
    case 'BROWSER':
      return browserMetrics(parsed.browserCheckResult, responseTime, valuesOf)
    case 'MULTI_STEP':
    case 'AUTOMATION':
      return run({ responseTime })
    case 'HEARTBEAT':
      return { run: [], pages: [] }
    default:
      return unreadType(checkType)
  }
}

/** A run's values by base metric name; a metric it has no value of is left undefined. */
type NamedValues = Record<string, number | undefined>

type ParsedDetail = Record<string, unknown>

/**
 * `field` of the first of the detail's `keys` present, or an empty record. Each value of the detail is
 * checked where it is read (see check-results/result-detail.ts).
 */
function detailField(parsed: ParsedDetail, keys: string[], field: string): Record<string, unknown> {
  const detail = keys.map((key) => parsed[key]).find(isRecord)
  return detail && isRecord(detail[field]) ? detail[field] : {}
}

function httpValues(parsed: ParsedDetail, responseTime: number): NamedValues {
  const phases = detailField(parsed, ['urlCheckResult', 'apiCheckResult'], 'timingPhases')
  return {
    responseTime,
    wait: numberOf(phases.wait),
    dns: numberOf(phases.dns),
    tcp: numberOf(phases.tcp),
    firstByte: numberOf(phases.firstByte),
    download: numberOf(phases.download),
  }
}

function tcpValues(parsed: ParsedDetail, responseTime: number): NamedValues {
  const phases = detailField(parsed, ['tcpCheckResult'], 'timingPhases')
  return {
    total: numberOf(phases.total) ?? responseTime,
    dns: numberOf(phases.dns),
    connection: numberOf(phases.connection),
    data: numberOf(phases.data),
  }
}

function icmpValues(parsed: ParsedDetail): NamedValues {
  const summary = detailField(parsed, ['icmpCheckResult'], 'summary')
  const latency = isRecord(summary.latency) ? summary.latency : {}
  return {
    packetLoss: numberOf(summary.packetLoss),
    latencyMin: numberOf(latency.min),
    latencyMax: numberOf(latency.max),
    latencyAvg: numberOf(latency.avg),
    latencyStdDev: numberOf(latency.stdDev),
  }
}

function sslValues(parsed: ParsedDetail): NamedValues {
  const ssl = isRecord(parsed.sslCheckResult) ? parsed.sslCheckResult : {}
  const response = detailField(parsed, ['sslCheckResult'], 'response')
  const certificate = isRecord(response.certificate) ? response.certificate : {}
  const share = (value: unknown) => (typeof value === 'boolean' ? (value ? 100 : 0) : undefined)
  const version = /^TLS(\d\.\d)$/.exec(stringOf(ssl.tlsVersion) ?? '')?.[1]
  return {
    handshakeTimeMs: numberOf(ssl.handshakeTimeMs),
    daysUntilExpiry: numberOf(ssl.daysUntilExpiry),
    keySizeBits: numberOf(certificate.keySizeBits),
    hostnameVerified: share(ssl.hostnameVerified),
    chainTrusted: share(ssl.chainTrusted),
    ocspStapled: share(response.ocspStapled),
    tlsVersion: version === undefined ? undefined : Number(version),
  }
}

/** A check type of `@svc/core` with no case above fails tsc here: its metrics would never be read. */
function unreadType(_checkType: never): ResultMetrics {
  return { run: [], pages: [] }
}

const VITALS = ['TTFB', 'FCP', 'LCP', 'CLS', 'TBT'] as const
/** Uncaught exceptions of a page are logged as errors starting like this (runner preload). */
const UNCAUGHT = 'Uncaught '
/**
 * The page indexes a detail may name: others read as absent. -1 is the run's own rollup row, and the
 * store's column holds 32 bits.
 */
const MAX_PAGE_INDEX = 2 ** 31 - 1

/**
 * Pages 0 to 49 have rollup rows of their own; a page after them counts only in its run's. Each page rolled
 * up is a row per resolution and bucket, and a script (or an agent) may report any number of pages: bounding
 * the indexes bounds a bucket's rows however many results it holds. A user journey visits far fewer.
 */
export const PAGES_ROLLED_UP = 50

const pageIndexOf = (value: unknown) => integerOf(value, 0, MAX_PAGE_INDEX)
const isRolledUp = (pageIndex: number) => pageIndex < PAGES_ROLLED_UP
/** The objects of `value`, a list; anything else (and each entry of another type) reads as absent. */
const entriesOf = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter(isRecord) : []

interface ErrorCounts {
  consoleErrors: number
  documentErrors: number
  networkErrors: number
}

/**
 * Browser runs: web vitals per page; console errors (the page's `console.error`), document errors (its
 * uncaught exceptions), network errors (failed requests and responses of 400 or more) per page; user
 * script errors of the run. A run takes every page's vitals (so its vitals aggregate over all pages) and
 * the errors of every page (not the script's own output, which names no page); each page rolled up takes
 * its own, with the run's response time and script errors, once however often `pages` lists it.
 */
function browserMetrics(
  raw: unknown,
  responseTime: number,
  valuesOf: (named: Record<string, number | undefined>) => Sample[],
): ResultMetrics {
  const detail = isRecord(raw) ? raw : {}
  const vitals: Sample[] = []
  /** The vitals of each page rolled up, by page index, in the order `pages` first lists them. */
  const vitalsByPage = new Map<number, Sample[]>()
  ;(Array.isArray(detail.pages) ? detail.pages : []).forEach((page: unknown, position) => {
    if (!isRecord(page)) return
    const webVitals = isRecord(page.webVitals) ? page.webVitals : {}
    const vitalOf = (name: string) => {
      const vital = webVitals[name]
      return isRecord(vital) ? numberOf(vital.value) : undefined
    }
    const samples = valuesOf(Object.fromEntries(VITALS.map((name) => [name, vitalOf(name)])))
    vitals.push(...samples)
    const pageIndex = pageIndexOf(page.pageIndex) ?? position
    if (!isRolledUp(pageIndex)) return
    const pageVitals = vitalsByPage.get(pageIndex)
    if (pageVitals) pageVitals.push(...samples)
    else vitalsByPage.set(pageIndex, samples)
  })
  const userScriptErrors = entriesOf(detail.errors).length
  // Counted in one pass per list: a page's counts are looked up, never by scanning the lists again.
  const run: ErrorCounts = { consoleErrors: 0, documentErrors: 0, networkErrors: 0 }
  const byPage = new Map<number, ErrorCounts>()
  const add = (pageIndex: unknown, counted: keyof ErrorCounts) => {
    const index = pageIndexOf(pageIndex)
    if (index === undefined) return
    run[counted]++
    if (!isRolledUp(index)) return
    let page = byPage.get(index)
    if (!page) {
      page = { consoleErrors: 0, documentErrors: 0, networkErrors: 0 }
      byPage.set(index, page)
    }
    page[counted]++
  }
  for (const log of entriesOf(detail.logs)) {
    if (stringOf(log.level) !== 'error') continue
    add(log.pageIndex, stringOf(log.text)?.startsWith(UNCAUGHT) ? 'documentErrors' : 'consoleErrors')
  }
  for (const entry of entriesOf(detail.network)) {
    if (stringOf(entry.failure) || (numberOf(entry.status) ?? 0) >= 400) add(entry.pageIndex, 'networkErrors')
  }
  const none: ErrorCounts = { consoleErrors: 0, documentErrors: 0, networkErrors: 0 }
  return {
    run: [...valuesOf({ responseTime, userScriptErrors, ...run }), ...vitals],
    pages: [...vitalsByPage].map(([pageIndex, pageVitals]) => ({
      pageIndex,
      samples: [
        ...valuesOf({ responseTime, userScriptErrors, ...(byPage.get(pageIndex) ?? none) }),
        ...pageVitals,
      ],
    })),
  }
}
