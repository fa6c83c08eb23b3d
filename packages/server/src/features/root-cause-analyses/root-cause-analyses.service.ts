import { randomUUID } from 'node:crypto'
import type { RootCauseAnalysesTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import { inTransaction } from '../../transactions.ts'
import { raiseWakeup } from '../../wakeups.ts'
import { findCheck, lockCheck } from '../checks/check-lookups.service.ts'
import { findGroup, lockGroupById } from '../error-groups/error-group-lookups.service.ts'
import * as repo from './root-cause-analyses.repo.ts'
import type { PendingAnalysis, RootCauseAnalysis } from './root-cause-analyses.schemas.ts'

/** Accepts an analysis of an error group: a PENDING job the background worker picks up. */
export async function requestAnalysis(
  ctx: ServiceContext,
  accountId: string,
  errorGroupId: string,
  userContext: string | null | undefined,
) {
  const group = await findGroup(ctx, accountId, errorGroupId)
  if (!group) throw notFound(`Error group ${errorGroupId} not found`)
  const now = isoNow(ctx)
  const row: RootCauseAnalysesTable = {
    id: randomUUID(),
    account_id: accountId,
    error_group_id: group.id,
    check_id: group.check_id,
    status: 'PENDING',
    user_context: userContext ?? '',
    analysis: null,
    failure_reason: null,
    provider: null,
    model: null,
    duration_ms: null,
    attempts: 0,
    lease_owner: null,
    lease_until_ms: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  }
  // Its check locked, then it: their deletion waits for the analysis, or went first (404).
  await inTransaction(ctx, async (tx) => {
    const gone = () => notFound(`Error group ${errorGroupId} not found`)
    if (!(await lockCheck(tx, accountId, group.check_id, 'referenced'))) throw gone()
    if (!(await lockGroupById(tx, accountId, group.id, 'referenced'))) throw gone()
    await repo.insertAnalysis(tx, row)
  })
  await raiseWakeup(ctx, 'root-cause-analyses')
  return { id: row.id, status: 'PENDING' as const }
}

/** A finished analysis, or a pending one (waiting or running) in the hosted 202 shape. */
export async function getAnalysis(
  ctx: ServiceContext,
  accountId: string,
  id: string,
): Promise<RootCauseAnalysis | PendingAnalysis> {
  const row = await repo.findAnalysis(ctx, accountId, id)
  if (!row) throw notFound(`Root cause analysis ${id} not found`)
  const check = await findCheck(ctx, accountId, row.check_id)
  const common = {
    id: row.id,
    checkId: row.check_id,
    errorGroupId: row.error_group_id,
    checkType: check?.check_type ?? '',
    userContext: row.user_context,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
  if (row.status === 'PENDING' || row.status === 'RUNNING')
    return { ...common, status: 'PENDING', running: row.status === 'RUNNING' }
  return {
    ...common,
    status: row.status as RootCauseAnalysis['status'],
    provider: row.provider,
    model: row.model,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    analysis: row.analysis ? JSON.parse(row.analysis) : null,
    failureReason: row.failure_reason,
    completedAt: row.completed_at,
  }
}
