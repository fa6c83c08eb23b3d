import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { ServiceContext } from '../context.ts'
import { newResultId } from '../features/check-results/result-id.ts'
import { type ResolvedCheck, resolveChecksById } from '../features/checks/checks.service.ts'
import { SVC_VERSION } from '../version.ts'
import { storeHeartbeatResult } from './heartbeat-results.ts'
import { HEARTBEAT_LOCATION, type HeartbeatSettings, heartbeatPeriodMs } from './heartbeat-window.ts'
import { type Job, nextDueOf, recordOutcome, slotKeyOf } from './jobs.ts'
import { claimDueRetries, type PendingRetry } from './retries.repo.ts'
import { runAttempt } from './run-and-store.ts'
import { deleteRunnerNode, pruneRunnerNodes, saveRunnerNode } from './runner-nodes.repo.ts'
import { type ClaimedSlot, claimDueSlots, nextDueMs, renewLeases, type SlotMove } from './schedules.repo.ts'

export interface SchedulerOptions {
  /** Data-center locations this process runs checks for (plus `heartbeat` for deadlines). */
  locations: string[]
  /** Runs at once in this process (SVC_RUNNER_CONCURRENCY). */
  concurrency: number
  /**
   * How long a claimed slot stays ours without renewal. Leases of runs in flight are renewed every
   * third of this, so it bounds how long a dead node's slots wait, not how long a run may take.
   */
  leaseMs?: number
  /** The longest a started scheduler sleeps between claims; it wakes sooner when a slot falls due. */
  tickMs?: number
  log?: { error(details: object, message: string): void }
}

export interface Scheduler {
  /** The id this process's leases carry. */
  readonly owner: string
  start(): void
  /** Stops claiming and waits for the runs in flight to finish and be stored. */
  stop(): Promise<void>
  /** One pass: claims what is due now (retries first) and runs it. Resolves when those runs are stored. */
  runDue(): Promise<number>
}

export const DEFAULT_LEASE_MS = 30_000
/**
 * The shortest sleep between claims: slots falling due in a steady stream (thousands of checks) are
 * claimed in batches this far apart rather than one claim each, and start at most this late.
 */
const MIN_CLAIM_GAP_MS = 50
/** How often a running scheduler tells the store it is alive (GET /v1/locations reads it). */
export const PRESENCE_INTERVAL_MS = 10_000

/**
 * Claims due slots and retries from the store, runs them in-process and stores each result once.
 * Every node runs one; the store's leases keep two nodes from running one slot.
 */
export function createScheduler(ctx: ServiceContext, options: SchedulerOptions): Scheduler {
  const owner = `node-${randomUUID()}`
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
  const tickMs = options.tickMs ?? 500
  const running = new Set<Promise<void>>()
  let timer: NodeJS.Timeout | undefined
  let wake: NodeJS.Timeout | undefined
  let renewal: NodeJS.Timeout | undefined
  let presence: NodeJS.Timeout | undefined
  const node = {
    id: owner,
    locations: options.locations.filter((location) => location !== HEARTBEAT_LOCATION),
    hostname: hostname(),
    version: SVC_VERSION,
    startedAt: ctx.clock.now().toISOString(),
  }
  const sayAlive = () =>
    saveRunnerNode(ctx, node, ctx.clock.now().getTime()).catch((error: unknown) =>
      log.error({ err: error }, 'recording runner presence failed'),
    )
  let started = false
  let claiming: Promise<void> | undefined
  /** The last claim filled every free slot: more may be due right now. */
  let backlog = false
  const log = options.log ?? { error: (details: object, message: string) => console.error(message, details) }

  /**
   * Claims as much due work as there is free concurrency and starts it; answers the runs started and
   * whether they filled every free slot (then more may be due right now).
   */
  async function claimAndStart(): Promise<{ runs: Promise<void>[]; full: boolean }> {
    // The free slots as of now: runs finishing during the claims' awaits make room for the next pass.
    const free = options.concurrency - running.size
    if (free <= 0) return { runs: [], full: false }
    const claim = { owner, nowMs: ctx.clock.now().getTime(), leaseMs, locations: options.locations }
    const retries = await claimDueRetries(ctx, { ...claim, limit: free })
    const slots = await claimDueSlots(ctx, { ...claim, limit: free - retries.length })
    const checks = await resolveChecksById(
      ctx,
      [...retries, ...slots].map((job) => job.checkId),
    )
    const runs = [
      ...retries.map((retry) =>
        track(runRetry(retry, checks.get(retry.checkId)), retry.checkId, retry.location),
      ),
      ...slots.map((slot) => track(runSlot(slot, checks.get(slot.checkId)), slot.checkId, slot.location)),
    ]
    return { runs, full: runs.length === free }
  }

  async function runDue(): Promise<number> {
    const { runs } = await claimAndStart()
    await Promise.all(runs)
    return runs.length
  }

  function track(run: Promise<void>, checkId: string, location: string): Promise<void> {
    const tracked = run.catch((error: unknown) => {
      // A bug, not a failing target: leave the lease to expire so another pass retries the job.
      log.error({ err: error, checkId, location }, 'check run failed')
    })
    running.add(tracked)
    void tracked.finally(() => {
      running.delete(tracked)
      // A backlog is worked off as fast as runs finish, not a batch per tick.
      if (backlog) pump()
    })
    return tracked
  }

  /** Claims until concurrency is used up or nothing more is due; one claim loop at a time. */
  function pump(): void {
    if (!started || claiming || running.size >= options.concurrency) return
    // `.finally` runs after the assignment, so a loop that ends at once can't leave `claiming` set.
    claiming = claimWhileFree()
      .then(wakeWhenDue)
      .catch((error: unknown) => log.error({ err: error }, 'claiming due checks failed'))
      .finally(() => {
        claiming = undefined
      })
  }

  /** Sets a timer for when the next slot falls due, if that comes before the next tick. */
  async function wakeWhenDue(): Promise<void> {
    const nowMs = ctx.clock.now().getTime()
    const dueMs = await nextDueMs(ctx, options.locations, nowMs)
    const sleepMs = Math.max(MIN_CLAIM_GAP_MS, (dueMs ?? Number.POSITIVE_INFINITY) - nowMs)
    clearTimeout(wake)
    if (started && sleepMs < tickMs) wake = setTimeout(pump, sleepMs)
  }

  async function claimWhileFree(): Promise<void> {
    while (running.size < options.concurrency) {
      const { full } = await claimAndStart()
      backlog = full
      if (!full) break
    }
  }

  /** Runs a claimed slot of `check` (undefined when it was deleted since) and moves the slot on with its result. */
  async function runSlot(slot: ClaimedSlot, check: ResolvedCheck | undefined): Promise<void> {
    if (!check) return
    const { row } = check
    const slotKey = slotKeyOf(slot)
    if (row.check_type === 'HEARTBEAT') {
      // The deadline passed without a ping: fail now, and again each period until a ping comes.
      const { heartbeat } = JSON.parse(row.definition) as { heartbeat: HeartbeatSettings }
      const nextDueMs = Math.max(ctx.clock.now().getTime(), slot.dueMs) + heartbeatPeriodMs(heartbeat)
      const missed = {
        jobId: slotKey,
        kind: 'MISSED',
        message: 'No ping within the period and grace',
      } as const
      return storeHeartbeatResult(ctx, row, missed, check, { ...slotOf(slot), leaseOwner: owner, nextDueMs })
    }
    const firstStartedMs = ctx.clock.now().getTime()
    await runJob(
      check,
      { slotKey, location: slot.location, attempt: 1, firstStartedMs },
      { ...slotOf(slot), leaseOwner: owner, nextDueMs: nextDueOf(ctx, check, slot) },
    )
  }

  async function runRetry(retry: PendingRetry, check: ResolvedCheck | undefined): Promise<void> {
    if (check) await runJob(check, retry)
  }

  /** Runs one attempt and stores it; `slotMove` commits with the result. */
  async function runJob(check: ResolvedCheck, job: Job, slotMove?: SlotMove): Promise<void> {
    const resultId = newResultId()
    const outcome = await runAttempt(ctx, check, { location: job.location, resultId })
    await recordOutcome(ctx, owner, check, job, outcome, { resultId, locationName: job.location, slotMove })
  }

  return {
    owner,
    runDue,
    start() {
      started = true
      timer = setInterval(pump, tickMs)
      pump()
      if (node.locations.length > 0) {
        void pruneRunnerNodes(ctx, ctx.clock.now().getTime() - 86_400_000).then(sayAlive)
        presence = setInterval(sayAlive, PRESENCE_INTERVAL_MS)
      }
      renewal = setInterval(() => {
        if (running.size === 0) return
        renewLeases(ctx, owner, ctx.clock.now().getTime() + leaseMs).catch((error: unknown) =>
          log.error({ err: error }, 'renewing leases failed'),
        )
      }, leaseMs / 3)
    },
    async stop() {
      started = false
      clearInterval(timer)
      clearTimeout(wake)
      clearInterval(presence)
      await claiming
      await Promise.all(running)
      clearInterval(renewal)
      if (node.locations.length > 0) await deleteRunnerNode(ctx, owner)
    },
  }
}

const slotOf = ({ checkId, location }: ClaimedSlot) => ({ checkId, location })
