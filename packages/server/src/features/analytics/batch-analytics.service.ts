import {
  ANALYTICS_KINDS,
  CHECK_TYPE_DEFINITIONS,
  type CheckType,
  metricMetadata,
  parseMetric,
  type QuickRange,
  resolveWindow,
} from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import { getAccount } from '../accounts/accounts.service.ts'
import { findCheck } from '../checks/check-lookups.service.ts'
import { periodFigures } from './period-figures.ts'

/** The hosted API's `POST /v1/analytics/checks` and `GET /v1/analytics/metrics`, from svc's rollups. */

const BATCH_AGGREGATIONS = ['avg', 'p50', 'p95', 'p99'] as const
/** The hosted batch answer names a check's main metric `latency` (ICMP) or `responseTime` (the rest). */
const hostedMainName = (main: string) => (main === 'latencyAvg' ? 'latency' : 'responseTime')

/** Each check's availability and its main metric's average and percentiles over `quickRange`. */
export async function batchAnalytics(
  ctx: ServiceContext,
  accountId: string,
  checkIds: string[],
  quickRange: QuickRange,
) {
  const timeZone = (await getAccount(ctx, accountId)).settings.timezone
  const window = resolveWindow({ quickRange }, timeZone, ctx.clock.now().getTime())
  const answers = []
  for (const checkId of new Set(checkIds)) {
    const row = await findCheck(ctx, accountId, checkId)
    if (!row) throw notFound(`Check ${checkId} not found`)
    const [figures] = await periodFigures(ctx, { id: row.id, checkType: row.check_type }, [window], timeZone)
    const main = CHECK_TYPE_DEFINITIONS[row.check_type as CheckType].analytics.main
    const tail: Record<string, number | null> = {}
    if (main !== null)
      for (const aggregation of BATCH_AGGREGATIONS)
        tail[`${hostedMainName(main)}_${aggregation}`] = figures?.[aggregation] ?? null
    answers.push({ checkId, checkType: row.check_type, availability: figures?.availability ?? null, ...tail })
  }
  return answers
}

/** The metrics `GET /v1/analytics/{type}/{id}` serves for a check type: availability, retries, each base aggregated. */
export function metricsOfCheckType(checkType: string) {
  const type = checkType === 'PLAYWRIGHT' ? 'AUTOMATION' : checkType
  const kind = ANALYTICS_KINDS.find((k) => (k.checkTypes as string[]).includes(type))
  if (!kind) return []
  const names = ['availability', 'retries']
  for (const base of Object.keys(kind.metrics))
    names.push(base, ...BATCH_AGGREGATIONS.map((aggregation) => `${base}_${aggregation}`))
  return names.flatMap((name) => {
    const metric = parseMetric(kind, name)
    if (!metric) return []
    const { unit, label } = metricMetadata(metric)
    return [{ name, unit, label, type: 'Float', aggregated: metric.aggregation !== null }]
  })
}
