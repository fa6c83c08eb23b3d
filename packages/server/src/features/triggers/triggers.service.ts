import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { TriggerTokensTable } from '@svc/db'
import type { Selectable } from 'kysely'
import { isoNow, type ServiceContext } from '../../context.ts'
import { notFound, unauthorized } from '../../http/errors.ts'
import { inTransaction } from '../../transactions.ts'
import { getGroup } from '../check-groups/check-groups.service.ts'
import { triggerCheckSessions } from '../check-sessions/check-sessions.service.ts'
import { getCheck } from '../checks/checks.service.ts'
import type { TriggerOf } from './triggers.repo.ts'
import * as repo from './triggers.repo.ts'

export type { TriggerOf }

/** 404 unless the check or group exists in the account. */
async function assertTarget(ctx: ServiceContext, accountId: string, target: TriggerOf) {
  if ('checkId' in target) await getCheck(ctx, accountId, target.checkId)
  else await getGroup(ctx, accountId, target.groupId)
}

function triggerOut(row: Selectable<TriggerTokensTable>) {
  const base = {
    id: Number(row.id),
    token: row.token,
    created_at: row.created_at,
    called_at: row.called_at,
    updated_at: row.updated_at,
  }
  return row.check_id ? { ...base, checkId: row.check_id } : { ...base, groupId: Number(row.group_id) }
}

/** The trigger token of a check or group, made when it has none (one per check or group). */
export async function createTrigger(ctx: ServiceContext, accountId: string, target: TriggerOf) {
  await assertTarget(ctx, accountId, target)
  return inTransaction(ctx, async (tx) => {
    const existing = await repo.findTrigger(tx, accountId, target)
    if (existing) return triggerOut(existing)
    const row = await repo.insertTrigger(tx, {
      account_id: accountId,
      check_id: 'checkId' in target ? target.checkId : null,
      group_id: 'groupId' in target ? target.groupId : null,
      // 12 URL-safe characters, as the hosted product's tokens; 72 random bits.
      token: randomBytes(9).toString('base64url'),
      created_at: isoNow(ctx),
      called_at: null,
      updated_at: null,
    })
    return triggerOut(row)
  })
}

export async function getTrigger(ctx: ServiceContext, accountId: string, target: TriggerOf) {
  await assertTarget(ctx, accountId, target)
  const row = await repo.findTrigger(ctx, accountId, target)
  if (!row) throw notFound('This check or group has no trigger: create one with POST')
  return triggerOut(row)
}

export async function deleteTrigger(ctx: ServiceContext, accountId: string, target: TriggerOf) {
  await assertTarget(ctx, accountId, target)
  await repo.deleteTrigger(ctx, accountId, target)
}

/** The account a trigger token belongs to; 401 for a wrong one (the caller counts the failure). */
export async function accountOfToken(ctx: ServiceContext, target: TriggerOf, token: string) {
  const row = await repo.findTriggerByTarget(ctx, target)
  if (!row || !sameToken(row.token, token)) throw unauthorized('Bad trigger token')
  await repo.markCalled(ctx, row.id, isoNow(ctx))
  return row.account_id
}

function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Runs the check, or every check of the group, once now in each of its locations: check sessions. */
export async function runTrigger(ctx: ServiceContext, accountId: string, target: TriggerOf) {
  await assertTarget(ctx, accountId, target)
  const sessionTarget = 'checkId' in target ? { checkId: [target.checkId] } : { groupId: target.groupId }
  return triggerCheckSessions(ctx, accountId, sessionTarget, 'TRIGGER_API')
}
