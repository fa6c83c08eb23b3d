import type { AlertType } from '@svc/core'
import type { AlertSettings } from '../accounts/accounts.schemas.ts'
import type { ChannelPolicy } from '../alert-channels/alert-channels.service.ts'

/**
 * The alerter's memory of one check, folded from its final results (and from clock ticks, for
 * time-based escalation and reminders). Pure: the caller stores it with the result, in one transaction.
 */
export interface AlertState {
  episode: Episode | null
  /** Parallel runs: the latest status per location. */
  locations: Record<string, RunStatus>
  /** Parallel runs: when the run that the latest results belong to started. */
  runStartedAt: string | null
  /** ALERT_SSL at most once a day per channel: channel id → when it last went. */
  sslAlertedAt: Record<string, string>
  lastResultId: string | null
  /**
   * Recoveries that came while muted or in maintenance, of alerts that had gone out: sent when that
   * ends, if they still hold, so that a channel told of a failure hears that it is over. Absent in
   * states stored before it existed.
   */
  owedRecoveries?: AlertDecision[]
}

export type RunStatus = 'passing' | 'degraded' | 'failing'

/** One stretch of failing (or degraded) runs: it gives at most one alert and one recovery. */
export interface Episode {
  kind: 'failing' | 'degraded'
  startedAt: string
  /** Failing runs counted so far (RUN_BASED escalation). */
  runs: number
  countedRunAt: string | null
  /** The escalation threshold was met. */
  alerted: boolean
  /** The alert went out (false while muted or in maintenance). */
  notified: boolean
  /** Where the alert went: the recovery goes to the same channels. */
  channelIds: number[]
  /**
   * Channels told of an earlier degraded stretch that ran straight into this one (degraded → failing
   * → …): they hear ALERT_DEGRADED_RECOVERY when the check is passing again, unless the failure's own
   * alert reached them. Absent in states stored before it existed.
   */
  degradedNotifiedIds?: number[]
  remindersSent: number
  lastNotifiedAt: string | null
}

export interface FoldInput {
  /** null for a clock tick (no new result). */
  result: {
    id: string
    startedAt: string
    location: string
    status: RunStatus
    sslDaysRemaining: number | null
  } | null
  now: Date
  settings: AlertSettings
  check: { periodMs: number; runParallel: boolean; locations: string[] }
  /** Muted, or in a maintenance window: decisions go on, nothing is sent. */
  suppressed: boolean
  channels: ChannelPolicy[]
}

export interface AlertDecision {
  channelId: number
  alertType: AlertType
  /** 1-based, for reminders of a failure. */
  reminder?: number
  sslDaysRemaining?: number
}

export interface FoldOutput {
  state: AlertState
  alerts: AlertDecision[]
  /** When to look again without a new result (time-based escalation, reminders); null when not needed. */
  wakeAtMs: number | null
}

const DAY_MS = 86_400_000
const SUPPRESSED_RECHECK_MS = 60_000

export function emptyAlertState(): AlertState {
  return { episode: null, locations: {}, runStartedAt: null, sslAlertedAt: {}, lastResultId: null }
}

/** One fold under way: the state it changes, the alerts it decides, and what it was given. */
interface Fold {
  state: AlertState
  alerts: AlertDecision[]
  input: FoldInput
}

export function foldAlertState(previous: AlertState, input: FoldInput): FoldOutput {
  const fold: Fold = { state: structuredClone(previous), alerts: [], input }
  if (input.result) foldResult(fold, input.result)
  if (fold.state.owedRecoveries && !input.suppressed) payOwedRecoveries(fold, fold.state.owedRecoveries)
  let wakeAtMs = fold.state.episode ? escalate(fold, fold.state.episode) : null
  if (input.suppressed && fold.state.owedRecoveries?.length) {
    const recheckMs = input.now.getTime() + SUPPRESSED_RECHECK_MS
    wakeAtMs = wakeAtMs === null ? recheckMs : Math.min(wakeAtMs, recheckMs)
  }
  return { state: fold.state, alerts: fold.alerts, wakeAtMs }
}

const channelOf = (fold: Fold, id: number) => fold.input.channels.find((c) => c.id === id)

/** A recovery goes out now, or once the suppression ends. */
function recover(fold: Fold, channelId: number, alertType: 'ALERT_RECOVERY' | 'ALERT_DEGRADED_RECOVERY') {
  if (!fold.input.suppressed) {
    fold.alerts.push({ channelId, alertType })
    return
  }
  const state = fold.state
  state.owedRecoveries = (state.owedRecoveries ?? []).filter(
    (owed) => owed.channelId !== channelId || owed.alertType !== alertType,
  )
  state.owedRecoveries.push({ channelId, alertType })
}

/**
 * Ends the episode with its recoveries. `stillDegraded` (it turns into the other kind rather than
 * passing): the channels told the check is degraded are not told it recovered from that, but handed on
 * to the next episode.
 */
function closeEpisode(fold: Fold, stillDegraded = false): number[] {
  const episode = fold.state.episode
  fold.state.episode = null
  if (!episode) return []
  const toldDegraded = new Set(episode.degradedNotifiedIds ?? [])
  if (episode.kind === 'degraded' && episode.notified)
    for (const id of episode.channelIds) toldDegraded.add(id)
  if (episode.kind === 'failing' && episode.notified) {
    for (const id of episode.channelIds) {
      // A failure's recovery also ends the degradation the channel may have been told of before it.
      toldDegraded.delete(id)
      if (channelOf(fold, id)?.sendRecovery) recover(fold, id, 'ALERT_RECOVERY')
    }
  }
  if (stillDegraded) return [...toldDegraded]
  for (const id of toldDegraded) {
    if (channelOf(fold, id)?.sendDegraded) recover(fold, id, 'ALERT_DEGRADED_RECOVERY')
  }
  return []
}

type FoldResult = NonNullable<FoldInput['result']>

function foldResult(fold: Fold, result: FoldResult) {
  const state = fold.state
  state.lastResultId = result.id
  const status = runStatusOf(fold, result)
  if (status === 'passing') {
    closeEpisode(fold)
  } else {
    // failing → degraded is a recovery from the failure; degraded → failing simply escalates.
    const toldDegraded = state.episode && state.episode.kind !== status ? closeEpisode(fold, true) : []
    state.episode ??= {
      kind: status,
      startedAt: result.startedAt,
      runs: 0,
      countedRunAt: null,
      alerted: false,
      notified: false,
      channelIds: [],
      degradedNotifiedIds: toldDegraded,
      remindersSent: 0,
      lastNotifiedAt: null,
    }
    if (state.episode.countedRunAt !== state.runStartedAt) {
      state.episode.runs += 1
      state.episode.countedRunAt = state.runStartedAt
    }
  }
  if (result.sslDaysRemaining !== null && !fold.input.suppressed) alertSsl(fold, result.sslDaysRemaining)
}

/**
 * The status of the run the result belongs to, and whether it starts a new run. Parallel runs: of the
 * latest result of every location, against the account's failure threshold.
 */
function runStatusOf(fold: Fold, result: FoldResult): RunStatus {
  const { state, input } = fold
  const parallel = input.check.runParallel && input.check.locations.length > 1
  if (!parallel) {
    state.runStartedAt = result.startedAt
    return result.status
  }
  state.locations[result.location] = result.status
  const seen = input.check.locations.map((l) => state.locations[l]).filter((s): s is RunStatus => !!s)
  const failing = seen.filter((s) => s === 'failing').length
  const threshold = input.settings.parallelRunFailureThreshold
  const runFails = threshold.enabled
    ? (failing * 100) / input.check.locations.length >= threshold.percentage
    : failing > 0
  // Results of one parallel run arrive close together; the next run is a period later.
  const halfPeriodMs = input.check.periodMs / 2
  const newRun =
    !state.runStartedAt || Date.parse(result.startedAt) - Date.parse(state.runStartedAt) >= halfPeriodMs
  if (newRun) state.runStartedAt = result.startedAt
  return runFails ? 'failing' : seen.includes('degraded') ? 'degraded' : 'passing'
}

/** ALERT_SSL to each channel that asks for it under its threshold, at most once a day. */
function alertSsl(fold: Fold, days: number) {
  const now = fold.input.now
  for (const policy of fold.input.channels) {
    if (!policy.sslExpiry || days > policy.sslExpiryThreshold) continue
    const last = fold.state.sslAlertedAt[policy.id]
    if (last && now.getTime() - Date.parse(last) < DAY_MS) continue
    fold.state.sslAlertedAt[policy.id] = now.toISOString()
    fold.alerts.push({ channelId: policy.id, alertType: 'ALERT_SSL', sslDaysRemaining: days })
  }
}

function payOwedRecoveries(fold: Fold, owed: AlertDecision[]) {
  const state = fold.state
  delete state.owedRecoveries
  // Failing again: the channels hear of this failure instead. Degraded: the failure is over, not the degradation.
  for (const recovery of owed) {
    const holds =
      recovery.alertType === 'ALERT_RECOVERY'
        ? state.episode?.kind !== 'failing' && channelOf(fold, recovery.channelId)?.sendRecovery
        : !state.episode && channelOf(fold, recovery.channelId)?.sendDegraded
    if (holds) fold.alerts.push(recovery)
  }
}

/** Alerts once the escalation threshold is met, then reminds; answers when to look again. */
function escalate(fold: Fold, episode: Episode): number | null {
  const { now, settings, suppressed } = fold.input
  const timeThresholdMs = settings.timeBasedEscalation.minutesFailingThreshold * 60_000
  if (!episode.alerted) {
    episode.alerted =
      settings.escalationType === 'TIME_BASED'
        ? now.getTime() - Date.parse(episode.startedAt) >= timeThresholdMs
        : episode.runs >= settings.runBasedEscalation.failedRunThreshold
  }
  let wakeAtMs: number | null = null
  if (episode.alerted && !episode.notified) {
    if (suppressed) wakeAtMs = now.getTime() + SUPPRESSED_RECHECK_MS
    else notifyEpisode(fold, episode)
  } else if (remindersLeft(fold, episode)) {
    remindIfDue(fold, episode)
  }
  if (!episode.alerted && settings.escalationType === 'TIME_BASED') {
    return Date.parse(episode.startedAt) + timeThresholdMs
  }
  if (remindersLeft(fold, episode)) {
    const next = nextReminderMs(fold, episode)
    return suppressed ? Math.max(next, now.getTime() + SUPPRESSED_RECHECK_MS) : next
  }
  return wakeAtMs
}

function notifyEpisode(fold: Fold, episode: Episode) {
  const failing = episode.kind === 'failing'
  const toldDegraded = new Set(episode.degradedNotifiedIds ?? [])
  const recipients = fold.input.channels.filter((c) =>
    failing ? c.sendFailure : c.sendDegraded && !toldDegraded.has(c.id),
  )
  for (const c of recipients)
    fold.alerts.push({ channelId: c.id, alertType: failing ? 'ALERT_FAILURE' : 'ALERT_DEGRADED' })
  episode.notified = true
  episode.channelIds = recipients.map((c) => c.id)
  episode.lastNotifiedAt = fold.input.now.toISOString()
}

const remindersLeft = (fold: Fold, episode: Episode) =>
  episode.notified &&
  episode.kind === 'failing' &&
  episode.remindersSent < fold.input.settings.reminders.amount

const nextReminderMs = (fold: Fold, episode: Episode) =>
  Date.parse(episode.lastNotifiedAt ?? episode.startedAt) + fold.input.settings.reminders.interval * 60_000

function remindIfDue(fold: Fold, episode: Episode) {
  const now = fold.input.now
  if (now.getTime() < nextReminderMs(fold, episode) || fold.input.suppressed) return
  episode.remindersSent += 1
  episode.lastNotifiedAt = now.toISOString()
  for (const id of episode.channelIds) {
    if (channelOf(fold, id)?.sendFailure)
      fold.alerts.push({ channelId: id, alertType: 'ALERT_FAILURE', reminder: episode.remindersSent })
  }
}
