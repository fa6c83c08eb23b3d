import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ANALYTICS_KINDS } from '@svc/core'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import {
  AnalyticsParams,
  AnalyticsQuery,
  type AnalyticsQueryValue,
  AnalyticsResponse,
} from './analytics.schemas.ts'
import { queryAnalytics } from './analytics.service.ts'

const LABELS: Record<string, string> = {
  'url-monitors': 'a URL monitor',
  'api-checks': 'an API check',
  'browser-checks': 'a browser check',
  'multistep-checks': 'a multi-step check',
  'playwright-checks': 'a Playwright suite (AUTOMATION) check',
  'tcp-checks': 'a TCP check',
  dns: 'a DNS check',
  icmp: 'an ICMP check',
  'heartbeat-checks': 'a heartbeat check',
}

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  for (const kind of ANALYTICS_KINDS) {
    const metrics = ['availability', 'retries', ...Object.keys(kind.metrics)]
    app.get(
      `/v1/analytics/${kind.segment}/:id`,
      {
        config: { rateLimit: { group: 'analytics', max: 30 } },
        schema: {
          tags: ['analytics'],
          summary: `Metrics of ${LABELS[kind.segment] ?? kind.segment}`,
          description:
            `Base metrics: ${metrics.map((m) => `\`${m}\``).join(', ')}. ` +
            (Object.keys(kind.metrics).length > 0
              ? 'Each base takes a suffix `_avg`, `_max`, `_median`, `_min`, `_p50`, `_p90`, `_p95`, `_p99`, ' +
                '`_stddev` or `_sum` and is then aggregated per bucket from rollups kept as results are stored; ' +
                'percentiles come from mergeable sketches, within 1% relative error; the rest are exact. ' +
                'A bare base name returns the raw points, one per final result, paged. '
              : '') +
            `Default metrics: ${kind.defaultMetrics.map((m) => `\`${m}\``).join(', ')}.`,
          params: AnalyticsParams,
          querystring: AnalyticsQuery(kind),
          response: { 200: AnalyticsResponse },
        },
      },
      async (request, reply) => {
        const { body, total, shown, page } = await queryAnalytics(
          ctx,
          authOf(request).accountId,
          kind,
          request.params.id,
          request.query as AnalyticsQueryValue,
        )
        const range = shown === 0 ? '*' : `${page.offset}-${page.offset + shown - 1}`
        reply.header('content-range', `items ${range}/${total}`)
        return body
      },
    )
  }
}
