import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { reportCsv } from './report-csv.ts'
import { ReportingQuery, ReportRow } from './reporting.schemas.ts'
import { buildReport } from './reporting.service.ts'

export const reportingRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/reporting',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Report availability and response times of checks over a window',
        description:
          'One entry per check (all of the account, or filtered), from the analytics rollups. ' +
          'Send `Accept: text/csv` for the same report as CSV, one line per check (and bucket).',
        querystring: ReportingQuery,
        response: {
          200: {
            description: 'The report',
            content: {
              'application/json': { schema: Type.Array(ReportRow) },
              'text/csv': { schema: Type.String() },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const report = await buildReport(ctx, authOf(request).accountId, request.query)
      if (wantsCsv(request.headers.accept)) {
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="report.csv"')
          .send(reportCsv(report.rows, report))
      }
      return reply.type('application/json; charset=utf-8').send(report.rows)
    },
  )
}

/** CSV when the client asks for it before (or instead of) JSON. */
function wantsCsv(accept: string | undefined): boolean {
  const types = String(accept ?? '')
    .split(',')
    .map((part) => part.split(';')[0]?.trim().toLowerCase())
  const csv = types.indexOf('text/csv')
  const json = types.indexOf('application/json')
  return csv >= 0 && (json < 0 || csv < json)
}
