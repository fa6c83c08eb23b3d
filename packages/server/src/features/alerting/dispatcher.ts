import { randomUUID } from 'node:crypto'
import type { AlertNotificationsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { fallbackMsOf, onWakeup } from '../../wakeups.ts'
import { deliverableChannel } from '../alert-channels/alert-channels.service.ts'
import { findChannelById } from '../alert-channels/channel-lookups.service.ts'
import { findCheckById } from '../checks/check-lookups.service.ts'
import {
  type IncidentTrigger,
  openIncidentFromCheck,
  resolveIncidentFromCheck,
} from '../incidents/incident-triggers.ts'
import {
  claimDue,
  endLeasesOf,
  nextNotificationDueMs,
  recordAttempt,
  releaseClaim,
} from './alert-notifications.repo.ts'
import { nextStateWakeMs } from './alert-states.repo.ts'
import { alertSignals, sweepAlertStates } from './alerter.ts'
import { type AlertEvent, type AttemptOutcome, deliver } from './delivery.ts'

/** The first attempt and up to 5 retries, 20 s apart (the spec's "Delivery and retries"). */
export const MAX_ATTEMPTS = 6
/** Exported because the tests move the clock past it. */
export const RETRY_DELAY_MS = 20_000
/** Passes with attempts in flight at once on one node (each claims at most `batch` notifications). */
const MAX_PASSES = 20
/** How soon it looks again at a notification due but not claimable (another node's, or behind one in flight). */
const HELD_ELSEWHERE_MS = 1000

export interface DispatcherOptions {
  /** The life of the node (node-life.ts) whose leases this dispatcher's carry; default: its own. */
  lifeId?: string
  /** How long a claimed notification stays ours; a node that dies mid-attempt loses it after this. */
  leaseMs?: number
  /** The longest it sleeps with nothing due (default: the store's wake-up fallback, wakeups.ts). */
  fallbackMs?: number
  batch?: number
  log?: { error(details: object, message: string): void }
}

export interface Dispatcher {
  start(): void
  stop(): Promise<void>
  /** One pass: looks at due alert states, then makes every due delivery attempt. Resolves when they are recorded. */
  runDue(): Promise<number>
}

/**
 * Delivers the outbox. Every node runs one; leases keep two nodes from making one attempt, and the
 * attempt is counted when claimed, so a crash mid-attempt never repeats that attempt.
 */
export function createDispatcher(ctx: ServiceContext, options: DispatcherOptions = {}): Dispatcher {
  const owner = dispatcherOwner(options.lifeId ?? randomUUID())
  const leaseMs = options.leaseMs ?? 120_000
  const batch = options.batch ?? 50
  return createPassLoop(ctx, {
    fallbackMs: options.fallbackMs ?? fallbackMsOf(ctx),
    log: options.log ?? { error: (details: object, message: string) => console.error(message, details) },
    claim: async () => {
      await sweepAlertStates(ctx)
      const claimed = await claimDue(ctx, { owner, nowMs: ctx.clock.now().getTime(), leaseMs, limit: batch })
      // A full batch leaves more due behind it: claim again at once.
      return { claimed, more: claimed.length === batch }
    },
    deliver: (claimed) => deliverInOrder(ctx, owner, claimed),
    // Wakes on an alert queued here (after its commit) or, through the store, on any node.
    subscribe: (trigger) => {
      alertSignals.on('enqueued', trigger)
      const stopWaking = onWakeup('alerts', trigger)
      return () => {
        alertSignals.off('enqueued', trigger)
        stopWaking()
      }
    },
  })
}

interface PassLoopOptions {
  fallbackMs: number
  log: { error(details: object, message: string): void }
  claim(): Promise<{ claimed: AlertNotificationsTable[]; more: boolean }>
  deliver(claimed: AlertNotificationsTable[]): Promise<void>
  subscribe(trigger: () => void): () => void
}

/**
 * When passes run. Claims one at a time (a wake-up while claiming claims again right after), but a
 * pass's attempts don't hold up the next pass: a hung receiver waits out its timeout alone. Claimed rows
 * are leased and an alert never overtakes an earlier one of its check and channel in flight (see claimDue).
 * Kept as one closure (over 60 lines): runDue, trigger and the plan share the flags that keep one claim
 * at a time and the latest plan the only one to set the timer.
 */
function createPassLoop(ctx: ServiceContext, options: PassLoopOptions): Dispatcher {
  let timer: NodeJS.Timeout | undefined
  let unsubscribe: (() => void) | undefined
  /** Counts plans, so that only the latest one sets the timer. */
  let plans = 0
  /** Passes whose attempts are still running: a receiver that hangs holds up only its own pass. */
  const passes = new Set<Promise<number>>()
  let claiming = false
  let again = false
  let started = false
  /** The look for the next due time in flight: stop() waits for it. */
  let planning: Promise<void> | undefined

  async function runDue(): Promise<number> {
    claiming = true
    let claimed: AlertNotificationsTable[]
    try {
      const batch = await options.claim()
      claimed = batch.claimed
      if (batch.more) again = true
    } finally {
      claiming = false
      if (again) {
        again = false
        queueMicrotask(trigger)
      }
    }
    await options.deliver(claimed)
    return claimed.length
  }

  function trigger(): void {
    if (!started) return
    if (claiming || passes.size >= MAX_PASSES) {
      again = true
      return
    }
    const pass = runDue()
    passes.add(pass)
    pass
      .catch((error: unknown) => options.log.error({ err: error }, 'alert delivery pass failed'))
      .finally(() => {
        passes.delete(pass)
        if (again && !claiming) {
          again = false
          trigger()
        } else if (!claiming) {
          planNextPass()
        }
      })
  }

  /** Sleeps until the next retry, lease end or alert state wake-up is due, or a wake-up comes. */
  function planNextPass(): void {
    // Stopped: a pass ending after stop() must not read a store its owner may be closing.
    if (!started) return
    const plan = ++plans
    const sleep = (ms: number) => {
      if (!started || plan !== plans) return
      clearTimeout(timer)
      timer = setTimeout(trigger, ms)
    }
    planning = delayUntilDue(ctx, options.fallbackMs).then(sleep, (error: unknown) => {
      options.log.error({ err: error }, 'looking for the next alert delivery failed')
      sleep(options.fallbackMs)
    })
  }

  return {
    runDue,
    start() {
      started = true
      unsubscribe = options.subscribe(trigger)
      trigger()
    },
    async stop() {
      started = false
      clearTimeout(timer)
      unsubscribe?.()
      again = false
      await Promise.all([...passes].map((pass) => pass.catch(() => undefined)))
      await planning
    },
  }
}

/** How long to sleep: until the next retry, lease end or alert state wake-up, at most `fallbackMs`. */
async function delayUntilDue(ctx: ServiceContext, fallbackMs: number): Promise<number> {
  const [notificationMs, stateMs] = await Promise.all([nextNotificationDueMs(ctx), nextStateWakeMs(ctx)])
  const dueMs = Math.min(notificationMs ?? Number.POSITIVE_INFINITY, stateMs ?? Number.POSITIVE_INFINITY)
  const untilDueMs = dueMs - ctx.clock.now().getTime()
  return Math.min(fallbackMs, untilDueMs > 0 ? untilDueMs : HELD_ELSEWHERE_MS)
}

/**
 * Alerts of one check to one channel go out in the order they were decided; the rest in parallel.
 * Once one stays pending (its retry is 20 s away), the later ones wait for it.
 */
async function deliverInOrder(ctx: ServiceContext, owner: string, claimed: AlertNotificationsTable[]) {
  const queues = new Map<string, AlertNotificationsTable[]>()
  for (const row of claimed) {
    const key = `${row.channel_type}:${row.channel_id}:${row.check_id}`
    queues.set(key, [...(queues.get(key) ?? []), row])
  }
  await Promise.all(
    [...queues.values()].map(async (queue) => {
      let waiting = false
      for (const row of queue) {
        if (waiting && row.check_id !== null) await releaseClaim(ctx, row.id, owner)
        else waiting = (await attempt(ctx, owner, row)) === 'PENDING'
      }
    }),
  )
}

/** Makes and records one attempt; answers the notification's status after it. */
async function attempt(ctx: ServiceContext, owner: string, row: AlertNotificationsTable): Promise<string> {
  const { outcome, status } = await makeAttempt(ctx, row)
  const now = ctx.clock.now()
  const log = JSON.parse(row.attempt_log) as object[]
  const { permanent: _permanent, ...recorded } = outcome
  const entry = { attempt: row.attempts, at: now.toISOString(), ...recorded }
  if (status !== 'CANCELLED' && row.attempts <= MAX_ATTEMPTS) log.push(entry)
  await recordAttempt(ctx, row.id, owner, {
    status,
    next_attempt_ms: status === 'PENDING' ? now.getTime() + RETRY_DELAY_MS : row.next_attempt_ms,
    last_response: JSON.stringify(entry),
    attempt_log: JSON.stringify(log),
    updated_at: now.toISOString(),
    delivered_at: status === 'DELIVERED' ? now.toISOString() : null,
  })
  return status
}

/** The outcome of one attempt and the notification's status after it. */
async function makeAttempt(
  ctx: ServiceContext,
  row: AlertNotificationsTable,
): Promise<{ outcome: AttemptOutcome; status: string }> {
  const channelRow = row.channel_id === null ? undefined : await findChannelById(ctx, row.channel_id)
  if (row.channel_type === 'INCIDENT' && row.attempts <= MAX_ATTEMPTS) {
    const outcome = await applyIncidentTrigger(ctx, row)
    return { outcome, status: outcome.ok ? 'DELIVERED' : row.attempts < MAX_ATTEMPTS ? 'PENDING' : 'FAILED' }
  }
  if (row.attempts > MAX_ATTEMPTS) {
    // The last attempt was claimed by a node that died before recording it: it may have gone out.
    const outcome = { ok: false, statusCode: null, body: null, error: 'the last attempt was interrupted' }
    return { outcome, status: 'FAILED' }
  }
  if (!channelRow) {
    const outcome = { ok: false, statusCode: null, body: null, error: 'the alert channel was deleted' }
    return { outcome, status: 'CANCELLED' }
  }
  // The notification's id is the delivery id: the same on every retry, for receivers to deduplicate.
  const event = JSON.parse(row.event) as AlertEvent
  const outcome = await deliver(ctx, deliverableChannel(ctx, channelRow), event, row.id)
  const retry = row.attempts < MAX_ATTEMPTS && !outcome.permanent
  return { outcome, status: outcome.ok ? 'DELIVERED' : retry ? 'PENDING' : 'FAILED' }
}

const dispatcherOwner = (lifeId: string) => `dispatcher-${lifeId}`

/** Ends the delivery leases of a dead life of this node, so that they go out now, not after the lease. */
export async function takeBackDeliveries(ctx: ServiceContext, lifeId: string): Promise<void> {
  await endLeasesOf(ctx, dispatcherOwner(lifeId))
}

/** Opens (on failure) or resolves (on recovery) the status-page incident of a check's `triggerIncident`. */
async function applyIncidentTrigger(
  ctx: ServiceContext,
  row: AlertNotificationsTable,
): Promise<AttemptOutcome> {
  try {
    const check = row.check_id ? await findCheckById(ctx, row.check_id) : undefined
    const trigger =
      check && (JSON.parse(check.definition) as { triggerIncident?: IncidentTrigger | null }).triggerIncident
    if (!check || !trigger)
      return { ok: true, statusCode: null, body: 'the check no longer triggers incidents', error: null }
    const triggering = { id: check.id, accountId: check.account_id }
    if (row.alert_type === 'ALERT_FAILURE') {
      const opened = await openIncidentFromCheck(ctx, triggering, trigger)
      return { ok: true, statusCode: null, body: `opened ${opened.length} incident(s)`, error: null }
    }
    const resolved = await resolveIncidentFromCheck(ctx, triggering, {
      notifySubscribers: trigger.notifySubscribers,
    })
    return { ok: true, statusCode: null, body: `resolved ${resolved.length} incident(s)`, error: null }
  } catch (error) {
    return {
      ok: false,
      statusCode: null,
      body: null,
      error: error instanceof Error ? error.message : String(error),
    }
  }
}
