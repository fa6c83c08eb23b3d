import type { ServiceContext } from '../context.ts'
import { onWakeup } from '../wakeups.ts'
import { type Claimed, claimDue } from './claim.ts'
import { HEARTBEAT_LOCATION } from './heartbeat-window.ts'
import { type Finished, startClaimed } from './local-run.ts'
import { deleteRunnerNode, pruneRunnerNodes, saveRunnerNode } from './runner-nodes.repo.ts'
import { type Loop, loopOf, type SchedulerOptions } from './scheduler-loop.ts'
import { type ClaimedSlot, nextDueMs, renewLeases } from './schedules.repo.ts'
import { GRAIN_WINDOW_MS, slotGrainFor } from './slot-grain.ts'
import { CheckDeletedError } from './store.ts'

export interface Scheduler {
  /** The id this process's leases carry. */
  readonly owner: string
  start(): void
  /** Stops claiming and waits for the runs in flight to finish and be stored. */
  stop(): Promise<void>
  /** One pass: claims what is due now (retries first) and runs it. Resolves when those runs are stored. */
  runDue(): Promise<number>
}

/**
 * The shortest sleep between claims: slots falling due in a steady stream (thousands of checks) are
 * claimed in batches this far apart rather than one claim each, and start at most this late.
 */
const MIN_CLAIM_GAP_MS = 50
/**
 * Claiming ahead, the scheduler wakes this long before the next slot falls due: the claim's statements
 * run before it, and the slot starts on its timer at its due time.
 */
const CLAIM_LEAD_MS = 100
/**
 * How often a running scheduler tells the store it is alive (GET /v1/locations reads it: a runner is
 * gone after three missed beats).
 */
export const PRESENCE_INTERVAL_MS = 30_000

/**
 * The local runner loop: claims due slots and retries from the store, runs them in-process and stores
 * each result once. Every node runs one; the store's leases keep two nodes from running one slot.
 */
export function createScheduler(ctx: ServiceContext, options: SchedulerOptions): Scheduler {
  const loop = loopOf(ctx, options)
  return {
    owner: loop.owner,
    async runDue() {
      const runs = (await claimAndStart(loop, 0)).runs
      await Promise.all(runs)
      return runs.length
    },
    start: () => startLoop(loop),
    stop: () => stopLoop(loop),
  }
}

/**
 * Claims as much due work (and work due within `aheadMs`) as there is free concurrency and starts it,
 * each slot at its due time; answers the runs started and whether they filled every free slot (then
 * more may be due right now).
 */
async function claimAndStart(loop: Loop, aheadMs: number): Promise<{ runs: Promise<void>[]; full: boolean }> {
  // The free slots as of now: runs finishing during the claims' awaits make room for the next pass.
  const free = freePlaces(loop)
  if (free <= 0) return { runs: [], full: false }
  const { ctx, owner, leaseMs, options } = loop
  const claimed = await claimDue(ctx, {
    owner,
    nowMs: ctx.clock.now().getTime(),
    leaseMs,
    locations: options.locations,
    limit: free,
    aheadMs,
  })
  const runner = { ctx, owner, beforeMissedDeadlineStored: options.beforeMissedDeadlineStored }
  const start = (slots: ClaimedSlot[], retries: Claimed['retries'] = []) =>
    startClaimed(runner, { ...claimed, retries, slots }, (run, checkId, location) =>
      track(loop, run, checkId, location),
    )
  const nowMs = ctx.clock.now().getTime()
  countForGrain(loop, claimed.slots, nowMs)
  const runs = [
    ...start(
      claimed.slots.filter((slot) => slot.dueMs <= nowMs),
      claimed.retries,
    ),
    ...claimed.slots
      .filter((slot) => slot.dueMs > nowMs)
      .map((slot) => startWhenDue(loop, slot, nowMs, start)),
  ]
  // Filled with slots due later, the claim took what is due now: wake before the next falls due.
  return { runs, full: runs.length === free && claimed.slots.every((slot) => slot.dueMs <= nowMs) }
}

/**
 * Counts the check runs claimed by due time, a `GRAIN_WINDOW_MS` at a time, and at the end of each sets
 * the grain this process plans slots on to suit their rate (slot-grain.ts). A run moves onto the new
 * grain when it plans its next slot. By due time, not claim time: a one-minute check falls due once in
 * any minute, so the count is exact. Slots due before the first claim (they fell due while the process
 * was down, and run again within the minute) are not counted.
 */
function countForGrain(loop: Loop, slots: ClaimedSlot[], nowMs: number): void {
  const window = loop.grainWindow
  if (!window) return
  window.startMs ??= nowMs
  for (const slot of slots) {
    if (slot.location === HEARTBEAT_LOCATION || slot.dueMs < window.startMs) continue
    const windowsPassed = Math.floor((slot.dueMs - window.startMs) / GRAIN_WINDOW_MS)
    if (windowsPassed > 0) {
      const grain = loop.ctx.slotGrain
      // Windows with nothing due in them count as none run.
      const runsPerMinute = windowsPassed === 1 ? (window.runs * 60_000) / GRAIN_WINDOW_MS : 0
      grain.ms = slotGrainFor(grain.ms, runsPerMinute, loop.options.concurrency)
      window.startMs += windowsPassed * GRAIN_WINDOW_MS
      window.runs = 0
    }
    window.runs++
  }
}

/**
 * Starts a slot claimed ahead at its due time. It holds its place meanwhile, and `stop()` waits for it
 * as for a run in flight. A pass after the clock moved (`pump`) starts it sooner if due by then.
 */
function startWhenDue(
  loop: Loop,
  slot: ClaimedSlot,
  claimedAtMs: number,
  start: (slots: ClaimedSlot[]) => Promise<void>[],
): Promise<void> {
  loop.running++
  const started = new Promise<void>((due) => {
    // Slots due together get the same delay, so Node fires their timers in one wake-up. A millisecond
    // more: a timer may fire up to one early by the clock's reckoning.
    const timer = setTimeout(() => startNow(), slot.dueMs - claimedAtMs + 1)
    const startNow = () => {
      clearTimeout(timer)
      loop.waiting.delete(slot)
      due()
    }
    loop.waiting.set(slot, startNow)
  })
  const run = started.then(() => {
    // `track` counts the run from here.
    loop.running--
    return start([slot])[0]
  })
  loop.inFlight.add(run)
  void run.finally(() => loop.inFlight.delete(run))
  return run
}

/** Starts the slots claimed ahead that are due by the clock's time now (a test's clock moved on). */
function startWaitingDue(loop: Loop): void {
  const nowMs = loop.ctx.clock.now().getTime()
  for (const [slot, startNow] of loop.waiting) if (slot.dueMs <= nowMs) startNow()
}

/** Runs that can start now: places left of `concurrency`, none while the store is far behind. */
function freePlaces(loop: Loop): number {
  return loop.unstored >= loop.maxUnstored ? 0 : loop.options.concurrency - loop.running
}

/**
 * Counts a job's attempt against concurrency until it finishes, then its result as unstored until it
 * commits. A run's place frees when the run ends, not when its result commits: runs go on while a
 * batch commits, and the next batch is bigger for it (one commit and one statement each per batch).
 */
function track(loop: Loop, attempt: Promise<Finished>, checkId: string, location: string): Promise<void> {
  // A bug, not a failing target: leave the lease to expire so another pass retries the job. A check
  // deleted while it ran took its slots with it: nothing to retry, nothing wrong.
  const failed = (error: unknown) => {
    if (error instanceof CheckDeletedError) return
    loop.log.error({ err: error, checkId, location }, 'check run failed')
  }
  loop.running++
  const tracked = attempt
    .finally(() => {
      loop.running--
      freed(loop)
    })
    .then(async (finished) => {
      if (!finished) return
      loop.unstored++
      await finished.stored.finally(() => {
        loop.unstored--
        freed(loop)
      })
    })
    .catch(failed)
  loop.inFlight.add(tracked)
  renewWhileInFlight(loop)
  void tracked.finally(() => {
    loop.inFlight.delete(tracked)
    if (loop.inFlight.size > 0) return
    clearInterval(loop.timers.renewal)
    loop.timers.renewal = undefined
  })
  return tracked
}

/** Renews this scheduler's leases every third of their length, only while it has runs in flight. */
function renewWhileInFlight(loop: Loop): void {
  const { ctx } = loop
  loop.timers.renewal ??= setInterval(() => {
    renewLeases(ctx, loop.owner, ctx.clock.now().getTime() + loop.leaseMs).catch((error: unknown) =>
      loop.log.error({ err: error }, 'renewing leases failed'),
    )
  }, loop.leaseMs / 3)
}

function freed(loop: Loop): void {
  // A backlog is worked off as fast as runs finish, not a batch per tick. Runs that finish in one turn
  // (results committed together, say) are replaced by one claim after it, not one claim each; places
  // freed apart wait up to `claimGatherMs` for the rest.
  if (!loop.backlog || loop.pumpQueued) return
  if (freePlaces(loop) < loop.options.concurrency) {
    loop.timers.gathering ??= setTimeout(() => pumpNext(loop), loop.claimGatherMs)
    return
  }
  loop.pumpQueued = true
  setImmediate(() => pumpNext(loop))
}

function pumpNext(loop: Loop): void {
  clearTimeout(loop.timers.gathering)
  loop.timers.gathering = undefined
  loop.pumpQueued = false
  pump(loop)
}

/** Claims until concurrency is used up or nothing more is due; one claim loop at a time. */
function pump(loop: Loop): void {
  startWaitingDue(loop)
  if (!loop.started || loop.claiming) return
  // Work is due and every place is taken: the next run to end claims it (see `freed`).
  if (freePlaces(loop) <= 0) {
    loop.backlog = true
    return
  }
  // `.finally` runs after the assignment, so a loop that ends at once can't leave `claiming` set.
  loop.claiming = claimWhileFree(loop)
    .then(() => wakeWhenDue(loop))
    .catch((error: unknown) => loop.log.error({ err: error }, 'claiming due checks failed'))
    .finally(() => {
      loop.claiming = undefined
      if (!loop.wokenWhileClaiming) return
      loop.wokenWhileClaiming = false
      pump(loop)
    })
}

async function claimWhileFree(loop: Loop): Promise<void> {
  while (freePlaces(loop) > 0) {
    const { full } = await claimAndStart(loop, loop.claimAheadMs)
    loop.backlog = full
    if (!full) break
  }
}

/**
 * Sleeps until the next slot falls due, at most the fallback. Behind schedule there is no need: every
 * run that ends leads to the next claim (see `freed`); the fallback stays as a safety net.
 */
async function wakeWhenDue(loop: Loop): Promise<void> {
  if (loop.backlog) return wakeIn(loop, loop.fallbackMs)
  const nowMs = loop.ctx.clock.now().getTime()
  const dueMs = await nextDueMs(loop.ctx, loop.options.locations)
  const leadMs = loop.claimAheadMs > 0 ? CLAIM_LEAD_MS : 0
  wakeIn(loop, (dueMs ?? Number.POSITIVE_INFINITY) - leadMs - nowMs)
}

function wakeIn(loop: Loop, ms: number): void {
  clearTimeout(loop.timers.wake)
  if (!loop.started) return
  const sleepMs = Math.min(loop.fallbackMs, Math.max(MIN_CLAIM_GAP_MS, ms))
  loop.wakeAtMs = loop.ctx.clock.now().getTime() + sleepMs
  loop.timers.wake = setTimeout(() => {
    loop.wakeAtMs = undefined
    pump(loop)
  }, sleepMs)
}

/**
 * A `schedule` wake-up: rows were written that fall due at `dueMs` (unknown: look now). Sooner than
 * the wake timer, it moves the timer; due now, it claims. During a claim, which may have read the store
 * before the rows were written, it claims again after.
 */
function woken(loop: Loop, dueMs: number | undefined): void {
  if (!loop.started) return
  if (loop.claiming) {
    loop.wokenWhileClaiming = true
    return
  }
  const untilDueMs = (dueMs ?? Number.NEGATIVE_INFINITY) - loop.ctx.clock.now().getTime()
  if (untilDueMs <= 0) pump(loop)
  else if (loop.wakeAtMs === undefined || (dueMs as number) < loop.wakeAtMs) wakeIn(loop, untilDueMs)
}

function startLoop(loop: Loop): void {
  const { ctx, timers } = loop
  loop.started = true
  loop.stopWakeups = onWakeup('schedule', (dueMs) => woken(loop, dueMs))
  pump(loop)
  if (loop.node.locations.length > 0) {
    void pruneRunnerNodes(ctx, ctx.clock.now().getTime() - 86_400_000).then(() => sayAlive(loop))
    timers.presence = setInterval(() => sayAlive(loop), PRESENCE_INTERVAL_MS)
  }
}

/** Stops claiming and waits for the runs in flight to finish and be stored. */
async function stopLoop(loop: Loop): Promise<void> {
  const { timers } = loop
  loop.started = false
  loop.stopWakeups?.()
  clearTimeout(timers.wake)
  clearTimeout(timers.gathering)
  clearInterval(timers.presence)
  await loop.claiming
  await Promise.all(loop.inFlight)
  clearInterval(timers.renewal)
  if (loop.node.locations.length > 0) await deleteRunnerNode(loop.ctx, loop.owner)
}

/** Tells the store this runner is alive (GET /v1/locations reads it). */
function sayAlive(loop: Loop): Promise<void> {
  const { ctx } = loop
  return saveRunnerNode(ctx, loop.node, ctx.clock.now().getTime()).catch((error: unknown) =>
    loop.log.error({ err: error }, 'recording runner presence failed'),
  )
}
