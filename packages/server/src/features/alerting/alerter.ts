import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import type { AlertChannelType, AlertType, CheckAlertSettings, TemplateVariables } from '@svc/core'
import type { AlertNotificationsTable, CheckResultsTable, ChecksTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import type { AlertSettings } from '../accounts/accounts.schemas.ts'
import { DEFAULT_ALERT_SETTINGS, foldedAccount } from '../accounts/accounts.service.ts'
import { type ChannelPolicy, policyOf } from '../alert-channels/alert-channels.service.ts'
import * as channelLookups from '../alert-channels/channel-lookups.service.ts'
import { foldedGroup } from '../check-groups/group-lookups.service.ts'
import { integerOf, isRecord, numberOf, parsedDetailOf, stringOf } from '../check-results/result-detail.ts'
import { findResult } from '../check-results/result-lookups.service.ts'
import { findCheckById } from '../checks/check-lookups.service.ts'
import type { EffectiveSettings } from '../checks/effective-check.ts'
import { type ResolvedCheck, resolveCheck } from '../checks/resolve-check.ts'
import { inMaintenance } from '../maintenance-windows/maintenance-windows.service.ts'
import { insertNotifications } from './alert-notifications.repo.ts'
import {
  type AlertDecision,
  type AlertState,
  emptyAlertState,
  type FoldOutput,
  foldAlertState,
  type RunStatus,
} from './alert-state.ts'
import * as states from './alert-states.repo.ts'

/**
 * Turns final results into alert notifications. The fold runs in the transaction that stores the
 * results (see runs/store.ts): a stored result is evaluated exactly once (a crash rolls
 * back both), and the notifications it decides are outbox rows committed with it, delivered later by
 * the dispatcher.
 */

/** Wakes in-process dispatchers when notifications were committed, so delivery starts at once. */
export const alertSignals = new EventEmitter()

type Channel = { policy: ChannelPolicy; type: AlertChannelType | 'INCIDENT' }
type Subscriptions = Awaited<ReturnType<typeof channelLookups.subscriptionsOf>>

/**
 * Folds newly stored results, in the order given, into their checks' alert states, inside the caller's
 * transaction; answers how many notifications it queued. Attempts are not folded. `check`, when the
 * caller has it resolved already, spares loading it again.
 */
export async function foldResultsIntoAlerts(
  ctx: ServiceContext,
  results: { row: CheckResultsTable; check?: ResolvedCheck }[],
): Promise<number> {
  const finals = results.filter((r) => r.row.result_type === 'FINAL')
  if (finals.length === 0) return 0
  const checks = await resolvedChecksOf(ctx, finals)
  const now = ctx.clock.now()
  const stored = await states.lockStates(ctx, [...checks.keys()], now.toISOString())
  const subscriptions = await subscriptionsOfChecks(ctx, [...checks.values()])
  const folded = new Map<string, Pick<FoldOutput, 'state' | 'wakeAtMs'>>()
  let enqueued = 0
  for (const { row } of finals) {
    const check = checks.get(row.check_id)
    if (!check) continue
    const previous = folded.get(row.check_id)?.state ?? parseState(stored.get(row.check_id))
    const channels = channelsFrom(subscriptions, check)
    const quiet = quietFold(previous, row, check, channels, now)
    if (quiet) {
      folded.set(row.check_id, { state: quiet, wakeAtMs: null })
      continue
    }
    const evaluated = await evaluate(ctx, check, row, previous, channels)
    enqueued += evaluated.enqueued
    folded.set(row.check_id, evaluated)
  }
  await states.saveStates(
    ctx,
    [...folded].map(([checkId, { state, wakeAtMs }]) => ({
      checkId,
      state: JSON.stringify(state),
      wakeAtMs,
    })),
    now.toISOString(),
  )
  return enqueued
}

/**
 * Locks the alert states of `checkIds` in check id order, as `foldResultsIntoAlerts` does first: the
 * store takes these locks before it reads leases, so writes of one check wait for each other there.
 */
export async function lockAlertStates(ctx: ServiceContext, checkIds: string[]): Promise<void> {
  await states.lockStates(ctx, checkIds, ctx.clock.now().toISOString())
}

async function resolvedChecksOf(
  ctx: ServiceContext,
  results: { row: CheckResultsTable; check?: ResolvedCheck }[],
): Promise<Map<string, ResolvedCheck>> {
  const checks = new Map<string, ResolvedCheck>()
  for (const { row, check } of results) {
    if (checks.has(row.check_id)) continue
    if (check) {
      checks.set(row.check_id, check)
      continue
    }
    const found = await findCheckById(ctx, row.check_id)
    if (found) checks.set(row.check_id, await resolveCheck(ctx, found))
  }
  return checks
}

const parseState = (stored: string | null | undefined): AlertState =>
  stored ? (JSON.parse(stored) as AlertState) : emptyAlertState()

/**
 * The fold of a passing result of a check with no open episode (nor recoveries held back), when it
 * alerts nobody: then neither the alert settings nor muting or maintenance can change the outcome, so
 * the queries for them are skipped. That is the outcome of almost every result. Answers undefined when
 * the full fold is needed.
 */
function quietFold(
  previous: AlertState,
  result: CheckResultsTable,
  check: ResolvedCheck,
  channels: Channel[],
  now: Date,
): AlertState | undefined {
  const parallel = Boolean(check.definition.runParallel) && check.runLocations.length > 1
  if (previous.episode || previous.owedRecoveries?.length || parallel || statusOf(result) !== 'passing')
    return undefined
  const { state, alerts } = foldAlertState(previous, {
    result: foldedResult(result),
    now,
    settings: DEFAULT_ALERT_SETTINGS,
    check: foldedCheck(check),
    suppressed: false,
    channels: channels.map((c) => c.policy),
  })
  return alerts.length === 0 && !state.episode ? state : undefined
}

const foldedResult = (result: CheckResultsTable) => ({
  id: result.id,
  startedAt: result.started_at,
  location: result.run_location,
  status: statusOf(result),
  sslDaysRemaining: sslDaysOf(result),
})

const foldedCheck = (check: ResolvedCheck) => ({
  periodMs: check.effective.periodMs,
  runParallel: Boolean(check.definition.runParallel),
  locations: check.runLocations,
})

/** Looks again at checks whose time-based escalation or reminders may be due; answers notifications queued. */
export async function sweepAlertStates(ctx: ServiceContext, limit = 100): Promise<number> {
  const nowMs = ctx.clock.now().getTime()
  let enqueued = 0
  for (const checkId of await states.dueStates(ctx, nowMs, limit)) {
    enqueued += await ctx.db.transaction().execute(async (db) => {
      const tx = { ...ctx, db }
      const row = await findCheckById(tx, checkId)
      if (!row || !(await states.stillDue(tx, checkId, nowMs))) return 0
      const check = await resolveCheck(tx, row)
      const nowIso = ctx.clock.now().toISOString()
      const stored = await states.lockStates(tx, [checkId], nowIso)
      const channels = channelsFrom(await subscriptionsOfChecks(tx, [check]), check)
      const evaluated = await evaluate(tx, check, null, parseState(stored.get(checkId)), channels)
      await states.saveStates(
        tx,
        [{ checkId, state: JSON.stringify(evaluated.state), wakeAtMs: evaluated.wakeAtMs }],
        nowIso,
      )
      return evaluated.enqueued
    })
  }
  if (enqueued > 0) alertSignals.emit('enqueued')
  return enqueued
}

/** What alert events show of a check's definition. */
interface EventDefinition {
  tags: string[]
  request?: { url?: string }
}

/** The full fold of one result (or a clock tick, `result` null): the new state and the notifications queued. */
async function evaluate(
  ctx: ServiceContext,
  resolvedCheck: ResolvedCheck,
  result: CheckResultsTable | null,
  previous: AlertState,
  channels: Channel[],
): Promise<Pick<FoldOutput, 'state' | 'wakeAtMs'> & { enqueued: number }> {
  const now = ctx.clock.now()
  const { row: check, definition, effective } = resolvedCheck
  const group = check.group_id === null ? undefined : await foldedGroup(ctx, check.account_id, check.group_id)
  const settings = await settingsOf(ctx, check.account_id, effective)
  const suppressed = effective.muted || (await inMaintenance(ctx, check.account_id, effective.tags, now))
  const { state, alerts, wakeAtMs } = foldAlertState(previous, {
    result: result && foldedResult(result),
    now,
    settings,
    check: foldedCheck(resolvedCheck),
    suppressed,
    channels: channels.map((c) => c.policy),
  })
  if (alerts.length === 0) return { state, wakeAtMs, enqueued: 0 }
  const source =
    result ?? (state.lastResultId ? await findResult(ctx, check.id, state.lastResultId) : undefined)
  const rows = alerts.map((alert, position): AlertNotificationsTable => {
    const channel = channels.find((c) => c.policy.id === alert.channelId)
    return {
      id: randomUUID(),
      account_id: check.account_id,
      channel_id: alert.channelId === INCIDENT_CHANNEL.policy.id ? null : alert.channelId,
      channel_type: channel?.type ?? 'WEBHOOK',
      check_id: check.id,
      alert_type: alert.alertType,
      event: JSON.stringify({
        groupId: check.group_id,
        variables: eventVariables(ctx, {
          check,
          definition: { tags: effective.tags, request: definition.request as EventDefinition['request'] },
          group: group?.name ?? '',
          result: source,
          alert,
        }),
      }),
      status: 'PENDING',
      attempts: 0,
      next_attempt_ms: now.getTime(),
      lease_owner: null,
      lease_until_ms: null,
      last_response: null,
      attempt_log: '[]',
      created_at: now.toISOString(),
      position,
      updated_at: now.toISOString(),
      delivered_at: null,
    }
  })
  await insertNotifications(ctx, rows)
  return { state, wakeAtMs, enqueued: rows.length }
}

/** The settings the check resolves to (its own, its group's), else the account's; defaults fill gaps. */
async function settingsOf(
  ctx: ServiceContext,
  accountId: string,
  effective: EffectiveSettings,
): Promise<AlertSettings> {
  const chosen: CheckAlertSettings | null | undefined = effective.useGlobalAlertSettings
    ? (await foldedAccount(ctx, accountId))?.alertSettings
    : effective.alertSettings
  const base = DEFAULT_ALERT_SETTINGS
  return {
    escalationType: chosen?.escalationType ?? base.escalationType,
    runBasedEscalation: { ...base.runBasedEscalation, ...chosen?.runBasedEscalation },
    timeBasedEscalation: { ...base.timeBasedEscalation, ...chosen?.timeBasedEscalation },
    reminders: { ...base.reminders, ...chosen?.reminders },
    parallelRunFailureThreshold: {
      ...base.parallelRunFailureThreshold,
      ...chosen?.parallelRunFailureThreshold,
    },
  }
}

/** The channels that alert for a check: its activated subscriptions and its group's, minus ones it turned off. */
/**
 * A check's `triggerIncident` acts as one more channel that takes failures and recoveries: its outbox
 * rows open and resolve the status-page incident outside the result's transaction, once each.
 */
export const INCIDENT_CHANNEL: { policy: ChannelPolicy; type: AlertChannelType | 'INCIDENT' } = {
  policy: {
    id: 0,
    sendFailure: true,
    sendRecovery: true,
    sendDegraded: false,
    sslExpiry: false,
    sslExpiryThreshold: 0,
  },
  type: 'INCIDENT',
}

/** The subscriptions of `checks` and of their groups, with their channels: one query for a batch. */
function subscriptionsOfChecks(ctx: ServiceContext, checks: ResolvedCheck[]): Promise<Subscriptions> {
  const groupIds = new Set(checks.flatMap(({ row }) => (row.group_id === null ? [] : [row.group_id])))
  return channelLookups.subscriptionsOf(
    ctx,
    checks.map(({ row }) => row.id),
    [...groupIds],
  )
}

/** The channels that alert for a check: its activated subscriptions and its group's, minus ones it turned off. */
function channelsFrom(subscriptions: Subscriptions, check: ResolvedCheck): Channel[] {
  const { id, group_id: groupId } = check.row
  const rows = subscriptions.filter((r) => r.check_id === id || (groupId !== null && r.group_id === groupId))
  const optedOut = new Set(rows.filter((r) => r.check_id === id && !r.activated).map((r) => r.id))
  const chosen = new Map<number, (typeof rows)[number]>()
  for (const row of rows) if (row.activated && !optedOut.has(row.id)) chosen.set(row.id, row)
  const channels: Channel[] = [...chosen.values()].map((row) => ({
    policy: policyOf(row),
    type: row.type as AlertChannelType,
  }))
  if (check.definition.triggerIncident) channels.push(INCIDENT_CHANNEL)
  return channels
}

function statusOf(result: CheckResultsTable): RunStatus {
  if (result.has_failures) return 'failing'
  return result.is_degraded ? 'degraded' : 'passing'
}

/** At most this many characters of a status text are shown (an HTTP reason phrase is a few words). */
const STATUS_TEXT_MAX = 200
/** At most this many characters of an error message are shown: the most the runner itself reports. */
const ERROR_MESSAGE_MAX = 4000
/** The longest DNS name. */
const HOST_NAME_MAX = 253

/** What alerts show of a result's detail; each value of its expected type, else absent (null). */
interface HttpDetail {
  status: number | null
  statusText: string | null
  sslDaysRemaining: number | null
  /** The checked certificate's: the request's host, or a browser check's `sslCheckDomain`. */
  sslDomain: string | null
}

function detailOf(result: CheckResultsTable | undefined): HttpDetail {
  const parsed = parsedDetailOf(result)
  const detail =
    [parsed.apiCheckResult, parsed.urlCheckResult, parsed.browserCheckResult].find(isRecord) ?? {}
  const response = isRecord(detail.response) ? detail.response : {}
  const tls = isRecord(detail.tls) ? detail.tls : {}
  const domain = stringOf(tls.domain)
  return {
    status: integerOf(response.status, 100, 999) ?? null,
    statusText: stringOf(response.statusText, STATUS_TEXT_MAX) ?? null,
    sslDaysRemaining: integerOf(tls.daysRemaining) ?? null,
    sslDomain: domain && domain.length <= HOST_NAME_MAX ? domain : null,
  }
}

const sslDaysOf = (result: CheckResultsTable): number | null => detailOf(result).sslDaysRemaining

function sslDomainOf(detail: HttpDetail, url: string | undefined): string | null {
  if (detail.sslDomain) return detail.sslDomain
  return url && URL.canParse(url) ? new URL(url).hostname : null
}

const TITLES: Record<AlertType, (name: string) => string> = {
  ALERT_FAILURE: (name) => `${name} has failed`,
  ALERT_RECOVERY: (name) => `${name} has recovered`,
  ALERT_DEGRADED: (name) => `${name} is degraded`,
  ALERT_DEGRADED_RECOVERY: (name) => `${name} has recovered from degradation`,
  ALERT_SSL: (name) => `The SSL certificate of ${name} expires soon`,
}

function eventVariables(
  ctx: ServiceContext,
  input: {
    check: ChecksTable
    definition: EventDefinition
    group: string
    result: CheckResultsTable | undefined
    alert: AlertDecision
  },
): TemplateVariables {
  const { check, definition, result, alert } = input
  const detail = detailOf(result)
  let title = TITLES[alert.alertType](check.name)
  if (alert.reminder) title = `${check.name} is still failing (reminder ${alert.reminder})`
  if (alert.alertType === 'ALERT_SSL') title = `${title}: ${alert.sslDaysRemaining} days left`
  const url = definition.request?.url
  return {
    CHECK_NAME: check.name,
    CHECK_ID: check.id,
    CHECK_TYPE: check.check_type,
    ALERT_TITLE: title,
    ALERT_TYPE: alert.alertType,
    CHECK_RESULT_ID: result?.id ?? '',
    CHECK_ERROR_MESSAGE: stringOf(result?.error_message, ERROR_MESSAGE_MAX) ?? '',
    RESPONSE_TIME: numberOf(result?.response_time) ?? null,
    API_CHECK_RESPONSE_STATUS_CODE: check.check_type === 'API' ? detail.status : null,
    API_CHECK_RESPONSE_STATUS_TEXT: check.check_type === 'API' ? detail.statusText : null,
    RUN_LOCATION: result?.run_location ?? '',
    RESULT_LINK: result ? `${ctx.publicUrl}/v1/check-results/${check.id}/${result.id}` : '',
    SSL_DAYS_REMAINING: alert.alertType === 'ALERT_SSL' ? (alert.sslDaysRemaining ?? null) : null,
    SSL_CHECK_DOMAIN: alert.alertType === 'ALERT_SSL' ? sslDomainOf(detail, url) : null,
    STARTED_AT: result?.started_at ?? '',
    TAGS: definition.tags,
    GROUP_NAME: input.group,
  }
}
