import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import {
  AcceptedAnalysis,
  AnalysisParams,
  CreateAnalysisBody,
  CreateAnalysisParams,
  PendingAnalysis,
  RootCauseAnalysis,
} from './root-cause-analyses.schemas.ts'
import * as analyses from './root-cause-analyses.service.ts'

export const rootCauseAnalysesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  const tags = ['root-cause-analyses']

  app.post(
    '/v1/root-cause-analyses/error-groups/:errorGroupId',
    {
      config: { rateLimit: { group: 'root-cause-analyses', max: 10 } },
      schema: {
        tags,
        summary: 'Generate a root cause analysis for an error group',
        description:
          'Accepted at once; the analysis runs in the background. Poll `GET /v1/root-cause-analyses/{id}` ' +
          'until its status is `COMPLETED` or `FAILED`.',
        params: CreateAnalysisParams,
        body: CreateAnalysisBody,
        response: { 202: AcceptedAnalysis },
      },
    },
    async (request, reply) => {
      const accepted = await analyses.requestAnalysis(
        ctx,
        authOf(request).accountId,
        request.params.errorGroupId,
        request.body?.userContext,
      )
      return reply.status(202).send(accepted)
    },
  )

  app.get(
    '/v1/root-cause-analyses/:id',
    {
      schema: {
        tags,
        summary: 'Retrieve a root cause analysis',
        description:
          '202 with status `PENDING` until it finishes (`running` once a worker has it), then 200 with ' +
          '`COMPLETED` (with `analysis`) or `FAILED` (with `failureReason`).',
        params: AnalysisParams,
        response: { 200: RootCauseAnalysis, 202: PendingAnalysis },
      },
    },
    async (request, reply) => {
      const analysis = await analyses.getAnalysis(ctx, authOf(request).accountId, request.params.id)
      return reply.status(analysis.status === 'PENDING' ? 202 : 200).send(analysis)
    },
  )
}
