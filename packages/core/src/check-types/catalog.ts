import type { CheckType } from '../checks/check-fields.ts'

/**
 * Each check type's names and where the API serves it, without schemas: the dashboard imports this module
 * alone (`@svc/core/check-type-catalog`), which keeps typebox and every body schema out of its bundle. The
 * type modules take their path, analytics segment and main metric from here, so the two can't differ.
 * The order is the order people are offered the types in (and analytics lists its kinds in).
 */
export const CHECK_TYPE_CATALOG = {
  URL: {
    label: 'URL monitor',
    short: 'URL',
    path: 'url',
    analyticsSegment: 'url-monitors',
    mainMetric: 'responseTime',
  },
  API: {
    label: 'API check',
    short: 'API',
    path: 'api',
    analyticsSegment: 'api-checks',
    mainMetric: 'responseTime',
  },
  BROWSER: {
    label: 'Browser check',
    short: 'Browser',
    path: 'browser',
    analyticsSegment: 'browser-checks',
    mainMetric: 'responseTime',
  },
  MULTI_STEP: {
    label: 'Multi-step check',
    short: 'Multi-step',
    path: 'multistep',
    analyticsSegment: 'multistep-checks',
    mainMetric: 'responseTime',
  },
  AUTOMATION: {
    label: 'Playwright suite',
    short: 'Suite',
    path: 'automation',
    analyticsSegment: 'playwright-checks',
    mainMetric: 'responseTime',
  },
  TCP: {
    label: 'TCP monitor',
    short: 'TCP',
    path: 'tcp',
    analyticsSegment: 'tcp-checks',
    mainMetric: 'total',
  },
  DNS: { label: 'DNS monitor', short: 'DNS', path: 'dns', analyticsSegment: 'dns', mainMetric: 'total' },
  ICMP: {
    label: 'ICMP (ping) monitor',
    short: 'ICMP',
    path: 'icmp',
    analyticsSegment: 'icmp',
    mainMetric: 'latencyAvg',
  },
  HEARTBEAT: {
    label: 'Heartbeat',
    short: 'Heartbeat',
    path: 'heartbeat',
    analyticsSegment: 'heartbeat-checks',
    mainMetric: null,
  },
  SSL: {
    label: 'SSL certificate monitor',
    short: 'SSL',
    path: 'ssl',
    analyticsSegment: 'ssl',
    mainMetric: 'handshakeTimeMs',
  },
} as const satisfies Record<CheckType, CheckTypeEntry>

export interface CheckTypeEntry {
  /** What people are offered ("New check" menu, form titles). */
  label: string
  /** A column's width of it (the overview's type column, filters). */
  short: string
  /** The segment of `POST /v1/checks/{path}`. */
  path: string
  /** The segment of `GET /v1/analytics/{segment}/{id}`. */
  analyticsSegment: string
  /** The metric analytics answers when a query names none; null: availability only. */
  mainMetric: string | null
}

/** The check types in the catalog's order. */
export const CATALOG_CHECK_TYPES = Object.keys(CHECK_TYPE_CATALOG) as CheckType[]
