import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Nullable, StrictObject, StringEnum } from '@svc/core'
import type { CheckResultsTable } from '@svc/db'
import { type Static, Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import { pageOf, sendPage } from '../../http/pagination.ts'
import { currentStatusSince, latestResults } from '../check-results/result-lookups.service.ts'
import { findCheck, listChecks } from '../checks/check-lookups.service.ts'
import { CheckStatusesQuery } from '../checks/checks.schemas.ts'

/** Current status per check, derived from its latest final result (no table of its own). */

const STATUSES = ['passing', 'degraded', 'failing'] as const

const CheckStatus = Type.Object(
  {
    checkId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    checkType: Type.String(),
    status: Nullable(StringEnum(STATUSES, { description: 'null until the check has run.' })),
    since: Nullable(Type.String({ format: 'date-time', description: 'When the current status began.' })),
    hasFailures: Type.Boolean(),
    hasErrors: Type.Boolean(),
    isDegraded: Type.Boolean(),
    lastRunAt: Nullable(Type.String({ format: 'date-time' })),
    lastRunLocation: Nullable(Type.String()),
    lastCheckRunId: Nullable(Type.String({ format: 'uuid' })),
  },
  { title: 'CheckStatus' },
)
type CheckStatus = Static<typeof CheckStatus>

/** The current status of each of `checks` (rows of one account), from their latest final results. */
export async function statusesOf(
  ctx: ServiceContext,
  checks: { id: string; name: string; check_type: string }[],
): Promise<CheckStatus[]> {
  const latest = new Map(
    (
      await latestResults(
        ctx,
        checks.map((c) => c.id),
      )
    ).map((r) => [r.check_id, r]),
  )
  return Promise.all(
    checks.map(async (check) => {
      const result = latest.get(check.id)
      const status = result ? statusOf(result) : null
      return {
        checkId: check.id,
        name: check.name,
        checkType: check.check_type,
        status,
        since: status ? await currentStatusSince(ctx, check.id, status) : null,
        hasFailures: Boolean(result?.has_failures),
        hasErrors: Boolean(result?.has_errors),
        isDegraded: Boolean(result?.is_degraded),
        lastRunAt: result?.started_at ?? null,
        lastRunLocation: result?.run_location ?? null,
        lastCheckRunId: result?.id ?? null,
      }
    }),
  )
}

export function statusOf(result: CheckResultsTable): (typeof STATUSES)[number] {
  if (result.has_failures) return 'failing'
  return result.is_degraded ? 'degraded' : 'passing'
}

export const checkStatusesRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  const tags = ['check-statuses']

  app.get(
    '/v1/check-statuses',
    {
      schema: {
        tags,
        summary: 'List the current status of every check',
        querystring: CheckStatusesQuery,
        response: { 200: Type.Array(CheckStatus) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query)
      const { checkType, tag, groupId, activated, name } = request.query
      const filter = { checkType, tag, groupId, activated, nameContains: name }
      const { rows, total } = await listChecks(ctx, authOf(request).accountId, filter, page)
      return sendPage(reply, page, await statusesOf(ctx, rows), total)
    },
  )

  app.get(
    '/v1/check-statuses/:checkId',
    {
      schema: {
        tags,
        summary: 'Retrieve the current status of a check',
        params: StrictObject({ checkId: Type.String({ format: 'uuid' }) }),
        response: { 200: CheckStatus },
      },
    },
    async (request) => {
      const check = await findCheck(ctx, authOf(request).accountId, request.params.checkId)
      if (!check) throw notFound(`Check ${request.params.checkId} not found`)
      const [status] = await statusesOf(ctx, [check])
      return status
    },
  )
}
