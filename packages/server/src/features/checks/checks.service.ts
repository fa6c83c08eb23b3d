import { randomBytes, randomUUID } from 'node:crypto'
import {
  CHECK_BODIES,
  type CheckEnvironmentVariable,
  type CheckType,
  EXTENDED_MAX_RESPONSE_TIME_MS,
  MAX_RESPONSE_TIME_MS,
} from '@svc/core'
import type { ChecksTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { compileBodyValidator } from '../../http/validation.ts'
import { type SchedulableCheck, syncCheckSchedule } from '../../scheduler/check-schedule.ts'
import type { HeartbeatSettings } from '../../scheduler/heartbeat-window.ts'
import { runAndStore } from '../../scheduler/run-and-store.ts'
import { RUNNABLE_CHECK_TYPES } from '../../scheduler/run-check.ts'
import { DEFAULT_ALERT_SETTINGS, getAccount } from '../accounts/accounts.service.ts'
import * as alerting from '../alert-channels/check-subscriptions.ts'
import { getResult } from '../check-results/check-results.service.ts'
import { publicVariables, type StoredVariable, sealVariables } from './check-variables.ts'
import * as repo from './checks.repo.ts'
import type { AnyCheck } from './checks.schemas.ts'

/** A check's definition as stored: the accepted body with defaults, variable values sealed when hidden. */
type Definition = Record<string, unknown> & {
  name: string
  activated: boolean
  muted: boolean
  frequency: number
  tags: string[]
  environmentVariables: StoredVariable[]
  groupId: number | null
  groupOrder: number | null
}

const PERIOD_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const
const RESPONSE_TIME_CHECK_TYPES: readonly CheckType[] = ['API', 'URL', 'TCP', 'DNS']
const validators = Object.fromEntries(
  Object.entries(CHECK_BODIES).map(([type, schema]) => [type, compileBodyValidator(schema)]),
) as Record<CheckType, (body: unknown) => void>

export async function createCheck(
  ctx: ServiceContext,
  accountId: string,
  checkType: CheckType,
  body: Record<string, unknown>,
  options: { autoAssignAlerts?: boolean } = {},
): Promise<AnyCheck> {
  const definition = await normalize(ctx, accountId, checkType, body, [])
  const now = isoNow(ctx)
  const row: ChecksTable = {
    id: randomUUID(),
    account_id: accountId,
    check_type: checkType,
    ...columnsOf(definition),
    heartbeat_token: checkType === 'HEARTBEAT' ? randomBytes(18).toString('base64url') : null,
    definition: JSON.stringify(definition),
    created_at: now,
    updated_at: now,
  }
  await repo.insertCheck(ctx, row, definition.tags)
  await alerting.subscribeNewCheck(
    ctx,
    accountId,
    row.id,
    subscriptionsIn(body),
    options.autoAssignAlerts ?? true,
  )
  await syncCheckSchedule(ctx, await schedulable(ctx, accountId, row.id, checkType, definition))
  return respond(ctx, row)
}

export async function getCheck(ctx: ServiceContext, accountId: string, id: string): Promise<AnyCheck> {
  const row = await repo.findCheck(ctx, accountId, id)
  if (!row) throw notFound(`Check ${id} not found`)
  return respond(ctx, row)
}

export async function listChecks(
  ctx: ServiceContext,
  accountId: string,
  filter: repo.CheckFilter,
  page: Page,
) {
  const { rows, total } = await repo.listChecks(ctx, accountId, filter, page)
  return {
    items: await alerting.withAlertChannels(
      ctx,
      rows.map((row) => toResponse(ctx, row)),
    ),
    total,
  }
}

/**
 * Replaces a check's definition (`PUT /v1/checks/{type}/{id}`, `mode: 'replace'`) or merges the given
 * top-level fields onto it (`PUT /v1/checks/{id}`, `mode: 'merge'`). Either way the result is validated
 * as a whole and takes effect on the check's next run.
 */
export async function updateCheck(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  body: Record<string, unknown>,
  options: { mode: 'replace' | 'merge'; checkType?: CheckType },
): Promise<AnyCheck> {
  const row = await repo.findCheck(ctx, accountId, id)
  if (!row) throw notFound(`Check ${id} not found`)
  const checkType = row.check_type as CheckType
  if (options.checkType && options.checkType !== checkType) {
    throw badRequest(`Check ${id} is a ${checkType} check, not ${options.checkType}`)
  }
  const current = JSON.parse(row.definition) as Definition
  let input = body
  if (options.mode === 'merge') {
    input = { ...publicDefinition(current), ...body }
    validators[checkType](input)
  }
  const definition = await normalize(ctx, accountId, checkType, input, current.environmentVariables)
  const updated = {
    ...columnsOf(definition),
    definition: JSON.stringify(definition),
    updated_at: isoNow(ctx),
  }
  await repo.replaceCheck(ctx, id, updated, definition.tags)
  await alerting.replaceSubscriptionsIfGiven(ctx, { checkId: id }, subscriptionsIn(body))
  await syncCheckSchedule(ctx, await schedulable(ctx, accountId, id, checkType, definition))
  return respond(ctx, { ...row, ...updated })
}

export async function deleteCheck(ctx: ServiceContext, accountId: string, id: string): Promise<void> {
  const row = await repo.findCheck(ctx, accountId, id)
  if (!row) throw notFound(`Check ${id} not found`)
  await repo.deleteCheck(ctx, id)
}

/** Applies defaults and the rules a schema can't express; seals hidden variable values. */
async function normalize(
  ctx: ServiceContext,
  accountId: string,
  checkType: CheckType,
  body: Record<string, unknown>,
  previousVariables: StoredVariable[],
): Promise<Definition> {
  const definition = { ...body } as Record<string, unknown>
  definition.tags = [...new Set((body.tags as string[] | undefined) ?? [])]
  definition.privateLocations = [...new Set((body.privateLocations as string[] | undefined) ?? [])]
  definition.locations = resolveLocations(ctx, body.locations as string[] | undefined, checkType)
  // Subscriptions live in the alert channels' table (see alert-channels/check-subscriptions.ts).
  delete definition.alertChannelSubscriptions
  definition.alertSettings = mergeAlertSettings(body.alertSettings as Record<string, object> | undefined)
  definition.groupId = body.groupId ?? null
  definition.groupOrder = body.groupOrder ?? null
  definition.retryStrategy = body.retryStrategy ?? null
  definition.triggerIncident = body.triggerIncident ?? null
  if ('runtimeId' in CHECK_BODIES[checkType].properties) definition.runtimeId = body.runtimeId ?? null

  const privateLocations = definition.privateLocations as string[]
  if (privateLocations.length > 0) {
    // Private locations arrive with the private-location feature; until then none can exist.
    throw invalid('body.privateLocations', `unknown private location ${privateLocations[0]}`)
  }
  if (checkType !== 'HEARTBEAT' && (definition.locations as string[]).length === 0) {
    throw invalid('body.locations', 'must name at least one location when privateLocations is empty')
  }
  await alerting.assertChannelsOfAccount(
    ctx,
    accountId,
    subscriptionsIn(body),
    'body.alertChannelSubscriptions',
  )
  if (
    definition.groupId !== null &&
    (await repo.groupActivation(ctx, accountId, definition.groupId as number)) === undefined
  ) {
    throw invalid('body.groupId', `check group ${definition.groupId} not found`)
  }
  if (RESPONSE_TIME_CHECK_TYPES.includes(checkType)) await checkResponseTimes(ctx, accountId, definition)
  if (checkType === 'HEARTBEAT') checkHeartbeat(definition.heartbeat as Record<string, number | string>)
  definition.environmentVariables = sealVariables(
    ctx,
    (body.environmentVariables as CheckEnvironmentVariable[] | undefined) ?? [],
    previousVariables,
  )
  return definition as Definition
}

function resolveLocations(
  ctx: ServiceContext,
  locations: string[] | undefined,
  checkType: CheckType,
): string[] {
  if (checkType === 'HEARTBEAT') return []
  if (locations === undefined) return [...ctx.locations.defaults]
  const unique = [...new Set(locations)]
  const unserved = unique.find((location) => !ctx.locations.served.includes(location))
  if (unserved) {
    throw invalid(
      'body.locations',
      `location ${unserved} is not served here (served: ${ctx.locations.served.join(', ')})`,
    )
  }
  return unique
}

function mergeAlertSettings(given: Record<string, object> | undefined) {
  const base = DEFAULT_ALERT_SETTINGS as unknown as Record<string, object | string>
  const merged: Record<string, unknown> = { ...base, ...given }
  for (const [key, value] of Object.entries(base)) {
    if (typeof value === 'object') merged[key] = { ...value, ...(given?.[key] ?? {}) }
  }
  return merged
}

async function checkResponseTimes(
  ctx: ServiceContext,
  accountId: string,
  definition: Record<string, unknown>,
) {
  const degraded = definition.degradedResponseTime as number
  const max = definition.maxResponseTime as number
  if (max > MAX_RESPONSE_TIME_MS) {
    const account = await getAccount(ctx, accountId)
    if (!account.settings.extendedUptimeResponseTime || max > EXTENDED_MAX_RESPONSE_TIME_MS) {
      throw invalid(
        'body.maxResponseTime',
        `must be at most ${MAX_RESPONSE_TIME_MS} ms (${EXTENDED_MAX_RESPONSE_TIME_MS} with the account's extendedUptimeResponseTime)`,
      )
    }
  }
  if (degraded > max) throw invalid('body.degradedResponseTime', 'must not exceed maxResponseTime')
}

function checkHeartbeat(heartbeat: Record<string, number | string>) {
  const seconds = (value: string, unit: string) =>
    Number(heartbeat[value]) * PERIOD_SECONDS[heartbeat[unit] as keyof typeof PERIOD_SECONDS]
  const yearSeconds = 365 * 86_400
  const period = seconds('period', 'periodUnit')
  if (period < 30 || period > yearSeconds)
    throw invalid('body.heartbeat.period', 'must be between 30 seconds and 365 days')
  if (seconds('grace', 'graceUnit') > yearSeconds)
    throw invalid('body.heartbeat.grace', 'must be at most 365 days')
}

/**
 * Runs one attempt now (activated or not, no retries) in the check's first location and stores it as
 * an ordinary result; answers that result.
 */
export async function triggerCheck(ctx: ServiceContext, accountId: string, id: string) {
  const row = await repo.findCheck(ctx, accountId, id)
  if (!row) throw notFound(`Check ${id} not found`)
  const checkType = row.check_type as CheckType
  if (!RUNNABLE_CHECK_TYPES.includes(checkType)) {
    throw badRequest(`${checkType} checks can't run yet: this build has no runner for them`)
  }
  const definition = JSON.parse(row.definition) as Definition
  const location = (definition.locations as string[])[0] ?? ctx.locations.defaults[0] ?? 'local'
  const resultId = await runAndStore(ctx, row, location, `trigger:${randomUUID()}`)
  if (!resultId) throw new Error('a fresh trigger job id stored no result')
  return getResult(ctx, accountId, id, resultId)
}

/** Re-plans the runs of every check of a group, e.g. after the group was (de)activated. */
export async function resyncGroupChecks(
  ctx: ServiceContext,
  accountId: string,
  groupId: number,
): Promise<void> {
  for (const row of await repo.listChecksOfGroup(ctx, accountId, groupId)) {
    const definition = JSON.parse(row.definition) as Definition
    await syncCheckSchedule(
      ctx,
      await schedulable(ctx, accountId, row.id, row.check_type as CheckType, definition),
    )
  }
}

async function schedulable(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  checkType: CheckType,
  definition: Definition,
): Promise<SchedulableCheck> {
  const groupActivated =
    definition.groupId === null || (await repo.groupActivation(ctx, accountId, definition.groupId)) === true
  return {
    id,
    checkType,
    activated: definition.activated,
    frequency: definition.frequency,
    locations: definition.locations as string[],
    runParallel: Boolean(definition.runParallel),
    groupActivated,
    heartbeat: checkType === 'HEARTBEAT' ? (definition.heartbeat as HeartbeatSettings) : undefined,
  }
}

function columnsOf(definition: Definition) {
  return {
    name: definition.name,
    activated: definition.activated,
    muted: definition.muted,
    frequency: definition.frequency,
    group_id: definition.groupId,
    group_order: definition.groupOrder,
  }
}

/** The definition as clients see it: hidden values masked, sealed ones never leave. */
function publicDefinition(definition: Definition): Record<string, unknown> {
  return {
    ...definition,
    environmentVariables: publicVariables(definition.environmentVariables),
  }
}

function toResponse(ctx: ServiceContext, row: ChecksTable): AnyCheck {
  const definition = JSON.parse(row.definition) as Definition
  return {
    ...publicDefinition(definition),
    name: definition.name,
    activated: definition.activated,
    muted: definition.muted,
    frequency: definition.frequency,
    id: row.id,
    checkType: row.check_type as CheckType,
    alertChannels: { email: [], webhook: [], slack: [], sms: [] }, // filled by respond()
    ...(row.heartbeat_token
      ? { pingToken: row.heartbeat_token, pingUrl: `${ctx.publicUrl}/ping/${row.heartbeat_token}` }
      : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

async function respond(ctx: ServiceContext, row: ChecksTable): Promise<AnyCheck> {
  return (await alerting.withAlertChannels(ctx, [toResponse(ctx, row)]))[0] as AnyCheck
}

const subscriptionsIn = (body: Record<string, unknown>) =>
  body.alertChannelSubscriptions as alerting.SubscriptionInput[] | undefined

export function invalid(path: string, message: string) {
  return badRequest(`${path} ${message}`, { errors: [{ path, message }] })
}
