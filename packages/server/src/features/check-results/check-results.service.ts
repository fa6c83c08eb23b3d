import type { CheckResultsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { findCheck } from '../checks/checks.repo.ts'
import * as repo from './check-results.repo.ts'
import type { CheckResult, ListResultsQuery } from './check-results.schemas.ts'

export async function listResults(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  query: ListResultsQuery,
  page: Page,
) {
  await ownCheckOrThrow(ctx, accountId, checkId)
  const filter = {
    fromIso: query.from === undefined ? undefined : new Date(query.from * 1000).toISOString(),
    toIso: query.to === undefined ? undefined : new Date(query.to * 1000).toISOString(),
    location: query.location,
    hasFailures: query.hasFailures,
    resultType: query.resultType,
  }
  const { rows, total } = await repo.listResults(ctx, checkId, filter, page)
  return { items: rows.map(toResult), total }
}

export async function getResult(ctx: ServiceContext, accountId: string, checkId: string, resultId: string) {
  await ownCheckOrThrow(ctx, accountId, checkId)
  const row = await repo.findResult(ctx, checkId, resultId)
  if (!row) throw notFound(`Result ${resultId} not found`)
  return toResult(row)
}

async function ownCheckOrThrow(ctx: ServiceContext, accountId: string, checkId: string) {
  if (!(await findCheck(ctx, accountId, checkId))) throw notFound(`Check ${checkId} not found`)
}

function toResult(row: CheckResultsTable): CheckResult {
  return {
    id: row.id,
    checkId: row.check_id,
    checkType: row.check_type,
    runLocation: row.run_location,
    startedAt: row.started_at,
    stoppedAt: row.stopped_at,
    responseTime: Number(row.response_time),
    hasFailures: Boolean(row.has_failures),
    hasErrors: Boolean(row.has_errors),
    isDegraded: Boolean(row.is_degraded),
    overMaxResponseTime: Boolean(row.over_max_response_time),
    attempts: row.attempts,
    resultType: row.result_type as 'FINAL' | 'ATTEMPT',
    error: row.error_type ? { type: row.error_type, message: row.error_message ?? '' } : null,
    ...(JSON.parse(row.detail) as Record<string, unknown>),
    created_at: row.created_at,
  }
}
