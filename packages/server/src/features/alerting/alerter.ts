import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import type { AlertChannelType, AlertType, CheckAlertSettings, TemplateVariables } from '@svc/core'
import type { AlertNotificationsTable, CheckResultsTable, ChecksTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import type { AlertSettings } from '../accounts/accounts.schemas.ts'
import { DEFAULT_ALERT_SETTINGS, getAccount } from '../accounts/accounts.service.ts'
import * as channelsRepo from '../alert-channels/alert-channels.repo.ts'
import { type ChannelPolicy, policyOf } from '../alert-channels/alert-channels.service.ts'
import { foldResultIntoAnalytics } from '../analytics/fold.ts'
import * as groupsRepo from '../check-groups/check-groups.repo.ts'
import { findResult } from '../check-results/check-results.repo.ts'
import { findCheckById } from '../checks/checks.repo.ts'
import { type ResolvedCheck, resolveCheck } from '../checks/checks.service.ts'
import type { EffectiveSettings } from '../checks/effective-check.ts'
import { inMaintenance } from '../maintenance-windows/maintenance-windows.service.ts'
import { insertNotifications } from './alert-notifications.repo.ts'
import {
  type AlertDecision,
  type AlertState,
  emptyAlertState,
  foldAlertState,
  type RunStatus,
} from './alert-state.ts'
import * as states from './alert-states.repo.ts'

/**
 * Turns final results into alert notifications. The fold runs in the transaction that stores the
 * result: a stored result is evaluated exactly once (a crash rolls back both), and the notifications
 * it decides are outbox rows committed with it, delivered later by the dispatcher.
 */

/** Wakes in-process dispatchers when notifications were committed, so delivery starts at once. */
export const alertSignals = new EventEmitter()

type Db = ServiceContext['db']

/**
 * Runs `insert` (which stores one result and says whether it was new) and, for a new final result,
 * the alert fold, in one transaction. Every result write goes through here.
 */
export async function storeResultWithAlerts(
  ctx: ServiceContext,
  row: CheckResultsTable,
  check: ResolvedCheck | undefined,
  insert: (db: Db) => Promise<boolean>,
): Promise<boolean> {
  let enqueued = 0
  const run = async (db: Db) => {
    const inserted = await insert(db)
    if (inserted && row.result_type === 'FINAL') enqueued = await foldResult({ ...ctx, db }, row, check)
    if (inserted) await foldResultIntoAnalytics({ ...ctx, db }, row)
    return inserted
  }
  const inserted = ctx.db.isTransaction ? await run(ctx.db) : await ctx.db.transaction().execute(run)
  if (enqueued > 0) alertSignals.emit('enqueued')
  return inserted
}

/** Folds one final result into its check's alert state; answers how many notifications it queued. */
async function foldResult(
  ctx: ServiceContext,
  result: CheckResultsTable,
  resolved: ResolvedCheck | undefined,
): Promise<number> {
  if (resolved) return evaluate(ctx, resolved.row, result, resolved)
  const check = await findCheckById(ctx, result.check_id)
  if (!check) return 0
  return evaluate(ctx, check, result)
}

/** Looks again at checks whose time-based escalation or reminders may be due; answers notifications queued. */
export async function sweepAlertStates(ctx: ServiceContext, limit = 100): Promise<number> {
  const nowMs = ctx.clock.now().getTime()
  let enqueued = 0
  for (const checkId of await states.dueStates(ctx, nowMs, limit)) {
    enqueued += await ctx.db.transaction().execute(async (db) => {
      const tx = { ...ctx, db }
      const check = await findCheckById(tx, checkId)
      if (!check || !(await states.stillDue(tx, checkId, nowMs))) return 0
      return evaluate(tx, check, null)
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

async function evaluate(
  ctx: ServiceContext,
  check: ChecksTable,
  result: CheckResultsTable | null,
  resolved?: ResolvedCheck,
): Promise<number> {
  const now = ctx.clock.now()
  const resolvedCheck = resolved ?? (await resolveCheck(ctx, check))
  const { definition, effective } = resolvedCheck
  const group =
    check.group_id === null ? undefined : await groupsRepo.findGroup(ctx, check.account_id, check.group_id)
  const settings = await settingsOf(ctx, check.account_id, effective)
  const channels = await channelsOf(ctx, check)
  if (definition.triggerIncident) channels.push(INCIDENT_CHANNEL)
  const suppressed = effective.muted || (await inMaintenance(ctx, check.account_id, effective.tags, now))

  const stored = await states.lockState(ctx, check.id, now.toISOString())
  const previous: AlertState = stored ? (JSON.parse(stored) as AlertState) : emptyAlertState()
  const sslDaysRemaining = result ? sslDaysOf(result) : null
  const { state, alerts, wakeAtMs } = foldAlertState(previous, {
    result: result && {
      id: result.id,
      startedAt: result.started_at,
      location: result.run_location,
      status: statusOf(result),
      sslDaysRemaining,
    },
    now,
    settings,
    check: {
      frequencyMinutes: effective.frequency,
      runParallel: Boolean(definition.runParallel),
      locations: resolvedCheck.runLocations,
    },
    suppressed,
    channels: channels.map((c) => c.policy),
  })
  await states.saveState(ctx, check.id, JSON.stringify(state), wakeAtMs, now.toISOString())
  if (alerts.length === 0) return 0

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
  return rows.length
}

/** The settings the check resolves to (its own, its group's), else the account's; defaults fill gaps. */
async function settingsOf(
  ctx: ServiceContext,
  accountId: string,
  effective: EffectiveSettings,
): Promise<AlertSettings> {
  const chosen: CheckAlertSettings | null | undefined = effective.useGlobalAlertSettings
    ? (await getAccount(ctx, accountId)).alertSettings
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

async function channelsOf(
  ctx: ServiceContext,
  check: ChecksTable,
): Promise<{ policy: ChannelPolicy; type: AlertChannelType | 'INCIDENT' }[]> {
  const rows = await channelsRepo.subscriptionsOf(
    ctx,
    [check.id],
    check.group_id === null ? [] : [check.group_id],
  )
  const optedOut = new Set(rows.filter((r) => r.check_id === check.id && !r.activated).map((r) => r.id))
  const chosen = new Map<number, (typeof rows)[number]>()
  for (const row of rows) if (row.activated && !optedOut.has(row.id)) chosen.set(row.id, row)
  return [...chosen.values()].map((row) => ({ policy: policyOf(row), type: row.type as AlertChannelType }))
}

function statusOf(result: CheckResultsTable): RunStatus {
  if (result.has_failures) return 'failing'
  return result.is_degraded ? 'degraded' : 'passing'
}

interface HttpDetail {
  response?: { status?: number; statusText?: string } | null
  /** The checked certificate: the request's host, or a browser check's `sslCheckDomain`. */
  tls?: { daysRemaining?: number; domain?: string } | null
}

function detailOf(result: CheckResultsTable | undefined): HttpDetail {
  if (!result) return {}
  const detail = JSON.parse(result.detail) as Record<string, HttpDetail | undefined>
  return detail.apiCheckResult ?? detail.urlCheckResult ?? detail.browserCheckResult ?? {}
}

function sslDaysOf(result: CheckResultsTable): number | null {
  const days = detailOf(result).tls?.daysRemaining
  return typeof days === 'number' ? days : null
}

function sslDomainOf(result: CheckResultsTable | undefined, url: string | undefined): string | null {
  const domain = detailOf(result).tls?.domain
  if (domain) return domain
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
  const response = detailOf(result).response
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
    CHECK_ERROR_MESSAGE: result?.error_message ?? '',
    RESPONSE_TIME: result?.response_time ?? null,
    API_CHECK_RESPONSE_STATUS_CODE: check.check_type === 'API' ? (response?.status ?? null) : null,
    API_CHECK_RESPONSE_STATUS_TEXT: check.check_type === 'API' ? (response?.statusText ?? null) : null,
    RUN_LOCATION: result?.run_location ?? '',
    RESULT_LINK: result ? `${ctx.publicUrl}/v1/check-results/${check.id}/${result.id}` : '',
    SSL_DAYS_REMAINING: alert.alertType === 'ALERT_SSL' ? (alert.sslDaysRemaining ?? null) : null,
    SSL_CHECK_DOMAIN: alert.alertType === 'ALERT_SSL' ? sslDomainOf(result, url) : null,
    STARTED_AT: result?.started_at ?? '',
    TAGS: definition.tags,
    GROUP_NAME: input.group,
  }
}
