import { ANALYTICS_KINDS, type AnalyticsKind } from '@svc/core'
import type { CheckResultsTable } from '@svc/db'

/**
 * What analytics reads from one stored result: the value of each of its type's base metrics, and for
 * browser results each page's own values. Metrics are identified by their slot, the position of the base
 * name in the kind's catalog (`@svc/core` metrics.ts): stored rollups refer to slots, so a catalog only
 * ever grows at its end.
 */
export interface ResultMetrics {
  /** [slot, value] samples of the run; a slot may repeat (a browser run's vitals, one per page). */
  run: Sample[]
  pages: { pageIndex: number; samples: Sample[] }[]
}

export type Sample = [slot: number, value: number]

export function kindOfCheckType(checkType: string): AnalyticsKind | undefined {
  return ANALYTICS_KINDS.find((kind) => (kind.checkTypes as string[]).includes(checkType))
}

export function kindOfSegment(segment: string): AnalyticsKind | undefined {
  return ANALYTICS_KINDS.find((kind) => kind.segment === segment)
}

export function metricSlots(kind: AnalyticsKind): string[] {
  return Object.keys(kind.metrics)
}

type Detail = Record<string, Record<string, unknown> | undefined>

const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined

/** The base metric values of `row` (a stored result of a check of `kind`). */
export function resultMetrics(kind: AnalyticsKind, row: CheckResultsTable, parsed?: Detail): ResultMetrics {
  const slots = metricSlots(kind)
  const detail = parsed ?? (JSON.parse(row.detail) as Detail)
  const valuesOf = (named: Record<string, number | undefined>): Sample[] => {
    const samples: Sample[] = []
    slots.forEach((name, slot) => {
      const value = named[name]
      if (value !== undefined) samples.push([slot, value])
    })
    return samples
  }
  const responseTime = Number(row.response_time)
  switch (row.check_type) {
    case 'URL':
    case 'API': {
      const phases = (detail.urlCheckResult ?? detail.apiCheckResult)?.timingPhases as
        | Record<string, unknown>
        | undefined
      return {
        run: valuesOf({
          responseTime,
          wait: num(phases?.wait),
          dns: num(phases?.dns),
          tcp: num(phases?.tcp),
          firstByte: num(phases?.firstByte),
          download: num(phases?.download),
        }),
        pages: [],
      }
    }
    case 'TCP': {
      const phases = detail.tcpCheckResult?.timingPhases as Record<string, unknown> | undefined
      return {
        run: valuesOf({
          total: num(phases?.total) ?? responseTime,
          dns: num(phases?.dns),
          connection: num(phases?.connection),
          data: num(phases?.data),
        }),
        pages: [],
      }
    }
    case 'DNS': {
      const phases = detail.dnsCheckResult?.timingPhases as Record<string, unknown> | undefined
      return { run: valuesOf({ total: num(phases?.total) ?? responseTime }), pages: [] }
    }
    case 'ICMP': {
      const summary = detail.icmpCheckResult?.summary as
        | { packetLoss?: unknown; latency?: Record<string, unknown> | null }
        | null
        | undefined
      return {
        run: valuesOf({
          packetLoss: num(summary?.packetLoss),
          latencyMin: num(summary?.latency?.min),
          latencyMax: num(summary?.latency?.max),
          latencyAvg: num(summary?.latency?.avg),
          latencyStdDev: num(summary?.latency?.stdDev),
        }),
        pages: [],
      }
    }
    case 'BROWSER':
      return browserMetrics(detail.browserCheckResult, responseTime, valuesOf)
    case 'MULTI_STEP':
    case 'AUTOMATION':
      return { run: valuesOf({ responseTime }), pages: [] }
    default:
      return { run: [], pages: [] }
  }
}

interface BrowserDetail {
  errors?: unknown[]
  logs?: { level?: string; text?: string; pageIndex?: number | null }[]
  network?: { pageIndex?: number | null; status?: number | null; failure?: string | null }[]
  pages?: { pageIndex?: number; webVitals?: Record<string, { value?: unknown } | null> }[]
}

const VITALS = ['TTFB', 'FCP', 'LCP', 'CLS', 'TBT'] as const
/** Uncaught exceptions of a page are logged as errors starting like this (runner preload). */
const UNCAUGHT = 'Uncaught '

/**
 * Browser runs: web vitals per page; console errors (the page's `console.error`), document errors (its
 * uncaught exceptions), network errors (failed requests and responses of 400 or more) per page; user
 * script errors of the run. A run takes every page's vitals (so its vitals aggregate over all pages);
 * each page takes its own, with the run's response time and script errors.
 */
function browserMetrics(
  raw: unknown,
  responseTime: number,
  valuesOf: (named: Record<string, number | undefined>) => Sample[],
): ResultMetrics {
  const detail = (raw ?? {}) as BrowserDetail
  const logs = detail.logs ?? []
  const network = detail.network ?? []
  const pages = (detail.pages ?? []).map((page, position) => ({
    pageIndex: page.pageIndex ?? position,
    vitals: Object.fromEntries(VITALS.map((name) => [name, num(page.webVitals?.[name]?.value)])),
  }))
  const userScriptErrors = detail.errors?.length ?? 0
  const counts = (pageIndex: number | null) => {
    const onPage = (entry: { pageIndex?: number | null }) =>
      pageIndex === null
        ? entry.pageIndex !== null && entry.pageIndex !== undefined
        : entry.pageIndex === pageIndex
    const errors = logs.filter((log) => onPage(log) && log.level === 'error')
    const documentErrors = errors.filter((log) => log.text?.startsWith(UNCAUGHT)).length
    return {
      consoleErrors: errors.length - documentErrors,
      documentErrors,
      networkErrors: network.filter(
        (entry) => onPage(entry) && (Boolean(entry.failure) || (entry.status ?? 0) >= 400),
      ).length,
    }
  }
  return {
    run: [
      ...valuesOf({ responseTime, userScriptErrors, ...counts(null) }),
      ...pages.flatMap((page) => valuesOf(page.vitals)),
    ],
    pages: pages.map((page) => ({
      pageIndex: page.pageIndex,
      samples: valuesOf({ responseTime, userScriptErrors, ...counts(page.pageIndex), ...page.vitals }),
    })),
  }
}
