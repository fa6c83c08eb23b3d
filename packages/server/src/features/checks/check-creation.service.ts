import type { CheckType } from '@svc/core'
import { isoNow, type ServiceContext } from '../../context.ts'
import { scheduleNewChecks } from '../../runs/check-schedule.ts'
import { inTransaction } from '../../transactions.ts'
import * as alerting from '../alert-channels/check-subscriptions.ts'
import { recordReferencesOfNew } from '../variables/variables.service.ts'
import { newDefinitionLookups, normalizeDefinition } from './check-definition-rules.ts'
import { newCheckRow, referencedKeysOf, schedulable } from './check-rows.ts'
import * as repo from './checks.repo.ts'
import { type ResolvedCheck, resolveChecks } from './resolve-check.ts'

export interface NewCheck {
  checkType: CheckType
  body: Record<string, unknown>
  sentFields: ReadonlySet<string>
}

/**
 * Creates many checks in a few statements for all: a deploy of a project makes hundreds at once. What
 * they name (groups, private locations, channels) is looked up once per thing named, and each table is
 * written in multi-row inserts. Answers the new ids in the order of `checks`, for callers that need the
 * ids alone (a route answers with `createCheck`, which is this for one check).
 */
export async function createChecks(
  ctx: ServiceContext,
  accountId: string,
  checks: NewCheck[],
  options: { autoAssignAlerts: boolean },
): Promise<string[]> {
  if (checks.length === 0) return []
  const created = await inTransaction(ctx, (tx) => insertNewChecks(tx, accountId, checks, options))
  return created.map((check) => check.row.id)
}

/** Saves `checks` in the caller's transaction; answers them resolved, in the order given. */
export async function insertNewChecks(
  tx: ServiceContext,
  accountId: string,
  checks: NewCheck[],
  options: { autoAssignAlerts: boolean },
): Promise<ResolvedCheck[]> {
  const lookups = newDefinitionLookups()
  const now = isoNow(tx)
  const saved = []
  for (const { checkType, body, sentFields } of checks) {
    const definition = await normalizeDefinition(tx, accountId, checkType, body, [], sentFields, lookups)
    saved.push({ row: newCheckRow(accountId, checkType, definition, now), definition, body })
  }
  await repo.insertChecks(
    tx,
    saved.map(({ row, definition }) => ({ row, tags: definition.tags })),
  )
  await recordReferencesOfNew(
    tx,
    accountId,
    saved.map(({ row, definition }) => ({
      owner: { type: 'check', id: row.id },
      keys: referencedKeysOf(definition),
    })),
  )
  await alerting.subscribeNewChecks(
    tx,
    accountId,
    saved.map(({ row, body }) => ({
      checkId: row.id,
      given: body.alertChannelSubscriptions as alerting.SubscriptionInput[] | undefined,
    })),
    options.autoAssignAlerts,
  )
  const resolved = await resolveChecks(
    tx,
    accountId,
    saved.map(({ row }) => row),
  )
  await scheduleNewChecks(tx, resolved.map(schedulable))
  return resolved
}
