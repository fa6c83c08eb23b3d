import { randomBytes, randomUUID } from 'node:crypto'
import { type CheckType, referencedVariableKeys } from '@svc/core'
import type { ChecksTable } from '@svc/db'
import type { SchedulableCheck } from '../../runs/check-schedule.ts'
import type { HeartbeatSettings } from '../../runs/heartbeat-window.ts'
import type { StoredVariable } from './check-variables.ts'
import type { Definition, ResolvedCheck } from './resolve-check.ts'

/** What a check's saves (one check or many) derive the same way from its definition. */

export function schedulable({
  row,
  definition,
  effective,
  runLocations,
  groupActivated,
}: ResolvedCheck): SchedulableCheck {
  const checkType = row.check_type as CheckType
  return {
    id: row.id,
    checkType,
    activated: definition.activated,
    periodMs: effective.periodMs,
    locations: runLocations,
    runParallel: Boolean(definition.runParallel),
    groupActivated,
    heartbeat: checkType === 'HEARTBEAT' ? (definition.heartbeat as HeartbeatSettings) : undefined,
  }
}

export const HEARTBEAT_FIELDS = ['period', 'periodUnit', 'grace', 'graceUnit'] as const

/** Columns kept beside the JSON for filters and lookups. */
export function columnsOf(definition: Definition) {
  return {
    name: definition.name,
    activated: definition.activated,
    muted: definition.muted,
    group_id: definition.groupId,
    group_order: definition.groupOrder,
  }
}

/**
 * The account variables a check definition refers to, for the variables' `usage`: `{{KEY}}` and
 * `process.env.KEY`, except keys it defines itself.
 */
export function referencedKeysOf(definition: { environmentVariables: StoredVariable[] }): string[] {
  const { environmentVariables, ...rest } = definition
  const own = new Set(environmentVariables.map((variable) => variable.key))
  return referencedVariableKeys(rest).filter((key) => !own.has(key))
}

/** The row of a check saved for the first time. */
export function newCheckRow(
  accountId: string,
  checkType: CheckType,
  definition: Definition,
  now: string,
): ChecksTable {
  return {
    id: randomUUID(),
    account_id: accountId,
    check_type: checkType,
    ...columnsOf(definition),
    heartbeat_token: checkType === 'HEARTBEAT' ? randomBytes(18).toString('base64url') : null,
    definition: JSON.stringify(definition),
    created_at: now,
    updated_at: now,
  }
}
