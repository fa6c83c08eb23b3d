import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import {
  BatchAnalyticsBody,
  BatchAnalyticsItem,
  BatchAnalyticsQuery,
  MetricDescriptor,
  MetricsQuery,
} from './batch-analytics.schemas.ts'
import { batchAnalytics, metricsOfCheckType } from './batch-analytics.service.ts'

/** The hosted API's analytics of many checks at once, and its catalog of metrics per check type. */
export const batchAnalyticsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  app.post(
    '/v1/analytics/checks',
    {
      config: { rateLimit: { group: 'analytics', max: 30 } },
      schema: {
        tags: ['analytics'],
        summary: 'Availability and response times of up to 100 checks',
        description:
          'Over `quickRange`, from the rollups: `availability` (percent of final results that passed) and ' +
          'the main metric’s `_avg`, `_p50`, `_p95`, `_p99` (`latency_*` for ICMP, `responseTime_*` for the ' +
          'others, none for heartbeats); null without results. A check not of the account is a 404.',
        querystring: BatchAnalyticsQuery,
        body: BatchAnalyticsBody,
        response: { 200: Type.Array(BatchAnalyticsItem) },
      },
    },
    async (request) =>
      batchAnalytics(
        ctx,
        authOf(request).accountId,
        request.body.checkIds,
        request.query.quickRange ?? 'last24Hours',
      ),
  )

  app.get(
    '/v1/analytics/metrics',
    {
      schema: {
        tags: ['analytics'],
        summary: 'The metrics of a check type',
        description: 'What `metrics` of `GET /v1/analytics/{type}/{id}` takes for checks of `checkType`.',
        querystring: MetricsQuery,
        response: { 200: Type.Array(MetricDescriptor) },
      },
    },
    async (request) => metricsOfCheckType(request.query.checkType),
  )
}
