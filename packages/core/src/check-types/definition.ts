import type { TObject, TSchema } from 'typebox'
import type { MetricUnit } from '../analytics/metrics.ts'

/** What analytics serves of a type: `GET /v1/analytics/{segment}/{id}`. */
export interface CheckTypeAnalytics {
  segment: string
  /**
   * Base metrics besides `availability` and `retries`, with their units. Stored rollups refer to a metric by
   * its position here, so a type's list only ever grows at its end.
   */
  metrics: Record<string, MetricUnit>
  groupBy: readonly string[]
  /** The metric whose avg, p50, p95 and p99 a query naming none answers; null: availability and retries. */
  main: string | null
  /** Values of `filterByStatus` (default: success, failure). */
  statusFilters?: readonly string[]
}

/**
 * Everything the API, the runner and analytics need to know of one check type. Adding a type is one module
 * exporting one of these, listed in `CHECK_TYPE_DEFINITIONS`, plus its runner in `@svc/runner`'s run-job.ts.
 */
export interface CheckTypeDefinition {
  /** The path segment of `POST /v1/checks/{path}` and `PUT /v1/checks/{path}/{id}`. */
  path: string
  /** The create (and full update) body. */
  body: TObject
  /** The sources its assertions may read; null when the type takes no assertions. */
  assertionSources: readonly string[] | null
  /**
   * Where a stored result keeps the type's detail (API.md "Check results"), and what the server reads of an
   * agent's posted detail (agent-details.ts); null for a type no runner runs.
   */
  detail: { key: string; schema: TSchema } | null
  analytics: CheckTypeAnalytics
  /**
   * How it runs: `definition` hands the runner its stored definition (variables substituted), `script` a
   * Playwright job, null never (heartbeats are judged from their pings).
   */
  runs: 'definition' | 'script' | null
  /** Top-level fields of the body a `definition` run reads that defaults always fill in a stored definition. */
  jobFields: readonly string[]
}

/** Keeps the literal types of a definition (its body's static type above all) while checking its shape. */
export function defineCheckType<const D extends CheckTypeDefinition>(definition: D): D {
  return definition
}
