import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { ServiceContext } from '../context.ts'
import { newResultId } from '../features/check-results/result-id.ts'
import { CheckDeletedError } from './store.ts'
import { type ResolvedCheck, resolveChecksById } from '../features/checks/resolve-check.ts'
import { SVC_VERSION } from '../version.ts'
import { storeMissedDeadline } from './heartbeat-results.ts'
import { HEARTBEAT_LOCATION, type HeartbeatSettings, heartbeatPeriodMs } from './heartbeat-window.ts'
import { dropJob, type Job, jobIdOf, jobStillRuns, nextDueOf, recordOutcome, slotKeyOf } from './jobs.ts'
import { claimDueRetries, type PendingRetry } from './retries.repo.ts'
import { runAttempt } from './run-and-store.ts'
import { type AccountVariables, loadAccountVariables } from './run-variables.ts'
import { deleteRunnerNode, pruneRunnerNodes, saveRunnerNode } from './runner-nodes.repo.ts'
import { type ClaimedSlot, claimDueSlots, nextDueMs, renewLeases, type SlotMove } from './schedules.repo.ts'

export interface SchedulerOptions {
  /** Data-center locations this process runs checks for (plus `heartbeat` for deadlines). */
  locations: string[]
  /** Runs at once in this process (SVC_RUNNER_CONCURRENCY). */
  concurrency: number
  /**
   * Finished runs whose results may wait for the store before claims stop (default 200, about one write
   * batch): only reached when the store falls behind the runs. Bounds the results held in memory.
   */
  maxUnstored?: number
  /**
   * How long a claimed slot stays ours without renewal. Leases of runs in flight are renewed every
   * third of this, so it bounds how long a dead node's slots wait, not how long a run may take.
   */
  leaseMs?: number
  /** The longest a started scheduler sleeps between claims; it wakes sooner when a slot falls due. */
  tickMs?: number
  /**
   * Behind schedule, the longest a freed run place waits for others to free before it is claimed for
   * (default 5 ms); all places free are claimed for at once.
   */
  claimGatherMs?: number
  log?: { error(details: object, message: string): void }
  /** The life of the node (node-life.ts) whose leases this scheduler's carry; default: its own. */
  lifeId?: string
  /** Tests only: runs between the claim of a missed heartbeat deadline and the store of its failure. */
  beforeMissedDeadlineStored?: (slot: ClaimedSlot) => Promise<void>
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
/**
 * A claim costs about the same for one slot as for twenty (a few statements, each paying to bring
 * SQLite's code and pages back into the CPU caches): behind schedule, places freed within a few
 * milliseconds share one. A check that runs long holds back the others' places this long at most.
 */
const DEFAULT_CLAIM_GATHER_MS = 5
const DEFAULT_MAX_UNSTORED = 200
/** How often a running scheduler tells the store it is alive (GET /v1/locations reads it). */
export const PRESENCE_INTERVAL_MS = 10_000

/**
 * Claims due slots and retries from the store, runs them in-process and stores each result once.
 * Every node runs one; the store's leases keep two nodes from running one slot.
 */
export function createScheduler(ctx: ServiceContext, options: SchedulerOptions): Scheduler {
  const owner = schedulerOwner(options.lifeId ?? randomUUID())
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
  const tickMs = options.tickMs ?? 500
  const claimGatherMs = options.claimGatherMs ?? DEFAULT_CLAIM_GATHER_MS
  const maxUnstored = options.maxUnstored ?? DEFAULT_MAX_UNSTORED
  /** Attempts in flight: at most `concurrency`. */
  let running = 0
  /** Finished attempts whose results wait for their commit: they hold no run's place, up to `maxUnstored`. */
  let unstored = 0
  /** Every claimed job until its result is stored: what `stop()` waits for. */
  const inFlight = new Set<Promise<void>>()
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
    const free = freePlaces()
    if (free <= 0) return { runs: [], full: false }
    const claim = { owner, nowMs: ctx.clock.now().getTime(), leaseMs, locations: options.locations }
    const retries = await claimDueRetries(ctx, { ...claim, limit: free })
    const slots = await claimDueSlots(ctx, { ...claim, limit: free - retries.length })
    const checks = await resolveChecksById(
      ctx,
      [...retries, ...slots].map((job) => job.checkId),
    )
    const accounts = await loadAccountVariables(ctx, [
      ...new Set([...checks.values()].map((check) => check.row.account_id)),
    ])
    const runs = [
      ...retries.map((retry) =>
        track(runRetry(retry, checks.get(retry.checkId), accounts), retry.checkId, retry.location),
      ),
      ...slots.map((slot) =>
        track(runSlot(slot, checks.get(slot.checkId), accounts), slot.checkId, slot.location),
      ),
    ]
    return { runs, full: runs.length === free }
  }

  async function runDue(): Promise<number> {
    const { runs } = await claimAndStart()
    await Promise.all(runs)
    return runs.length
  }

  /** Runs that can start now: places left of `concurrency`, none while the store is far behind. */
  function freePlaces(): number {
    return unstored >= maxUnstored ? 0 : options.concurrency - running
  }

  /**
   * Counts a job's attempt against concurrency until it finishes, then its result as unstored until it
   * commits. A run's place frees when the run ends, not when its result commits: runs go on while a
   * batch commits, and the next batch is bigger for it (one commit and one statement each per batch).
   */
  function track(attempt: Promise<Finished>, checkId: string, location: string): Promise<void> {
    // A bug, not a failing target: leave the lease to expire so another pass retries the job. A check
    // deleted while it ran took its slots with it: nothing to retry, nothing wrong.
    const failed = (error: unknown) => {
      if (error instanceof CheckDeletedError) return
      log.error({ err: error, checkId, location }, 'check run failed')
    }
    running++
    const tracked = attempt
      .finally(() => {
        running--
        freed()
      })
      .then(async (finished) => {
        if (!finished) return
        unstored++
        await finished.stored.finally(() => {
          unstored--
          freed()
        })
      })
      .catch(failed)
    inFlight.add(tracked)
    void tracked.finally(() => inFlight.delete(tracked))
    return tracked
  }

  let pumpQueued = false
  let gathering: NodeJS.Timeout | undefined
  function freed(): void {
    // A backlog is worked off as fast as runs finish, not a batch per tick. Runs that finish in one turn
    // (results committed together, say) are replaced by one claim after it, not one claim each; places
    // freed apart wait up to `claimGatherMs` for the rest.
    if (!backlog || pumpQueued) return
    if (freePlaces() < options.concurrency) {
      gathering ??= setTimeout(pumpNext, claimGatherMs)
      return
    }
    pumpQueued = true
    setImmediate(pumpNext)
  }

  function pumpNext(): void {
    clearTimeout(gathering)
    gathering = undefined
    pumpQueued = false
    pump()
  }

  /** Claims until concurrency is used up or nothing more is due; one claim loop at a time. */
  function pump(): void {
    if (!started || claiming || freePlaces() <= 0) return
    // `.finally` runs after the assignment, so a loop that ends at once can't leave `claiming` set.
    claiming = claimWhileFree()
      .then(wakeWhenDue)
      .catch((error: unknown) => log.error({ err: error }, 'claiming due checks failed'))
      .finally(() => {
        claiming = undefined
      })
  }

  /**
   * Sets a timer for when the next slot falls due, if that comes before the next tick. Behind schedule
   * there is no need: every run that ends leads to the next claim (see `freed`).
   */
  async function wakeWhenDue(): Promise<void> {
    clearTimeout(wake)
    if (backlog) return
    const nowMs = ctx.clock.now().getTime()
    const dueMs = await nextDueMs(ctx, options.locations)
    const sleepMs = Math.max(MIN_CLAIM_GAP_MS, (dueMs ?? Number.POSITIVE_INFINITY) - nowMs)
    if (started && sleepMs < tickMs) wake = setTimeout(pump, sleepMs)
  }

  async function claimWhileFree(): Promise<void> {
    while (freePlaces() > 0) {
      const { full } = await claimAndStart()
      backlog = full
      if (!full) break
    }
  }

  /** Runs a claimed slot of `check` (undefined when it was deleted since) and moves the slot on with its result. */
  async function runSlot(
    slot: ClaimedSlot,
    check: ResolvedCheck | undefined,
    accounts: AccountVariables,
  ): Promise<Finished> {
    if (!check) return
    const { row } = check
    const slotKey = slotKeyOf(slot)
    // Deactivated between the claim and now: its rows are gone, nothing moves.
    if (!jobStillRuns(check, { slotKey })) return
    if (row.check_type === 'HEARTBEAT') {
      // The deadline passed without a ping: fail now, and again each period until a ping comes.
      const { heartbeat } = JSON.parse(row.definition) as { heartbeat: HeartbeatSettings }
      const nextDueMs = Math.max(ctx.clock.now().getTime(), slot.dueMs) + heartbeatPeriodMs(heartbeat)
      await options.beforeMissedDeadlineStored?.(slot)
      return { stored: storeMissedDeadline(ctx, check, slot, owner, nextDueMs) }
    }
    const firstStartedMs = ctx.clock.now().getTime()
    return runJob(
      check,
      accounts,
      { slotKey, location: slot.location, attempt: 1, firstStartedMs },
      { ...slotOf(slot), leaseOwner: owner, nextDueMs: nextDueOf(ctx, check, slot) },
    )
  }

  async function runRetry(
    retry: PendingRetry,
    check: ResolvedCheck | undefined,
    accounts: AccountVariables,
  ): Promise<Finished> {
    if (!check) return undefined
    if (!jobStillRuns(check, retry)) return { stored: dropJob(ctx, retry, owner) }
    return runJob(check, accounts, retry)
  }

  /** Runs one attempt, then stores it; `slotMove` commits with the result. */
  async function runJob(
    check: ResolvedCheck,
    accounts: AccountVariables,
    job: Job,
    slotMove?: SlotMove,
  ): Promise<Finished> {
    const resultId = newResultId()
    const run = { location: job.location, resultId, jobId: jobIdOf(job), runner: owner }
    const outcome = await runAttempt(ctx, check, run, accounts)
    const stored = { resultId, locationName: job.location, slotMove }
    return { stored: recordOutcome(ctx, owner, check, job, outcome, stored) }
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
        if (inFlight.size === 0) return
        renewLeases(ctx, owner, ctx.clock.now().getTime() + leaseMs).catch((error: unknown) =>
          log.error({ err: error }, 'renewing leases failed'),
        )
      }, leaseMs / 3)
    },
    async stop() {
      started = false
      clearInterval(timer)
      clearTimeout(wake)
      clearTimeout(gathering)
      clearInterval(presence)
      await claiming
      await Promise.all(inFlight)
      clearInterval(renewal)
      if (node.locations.length > 0) await deleteRunnerNode(ctx, owner)
    },
  }
}

const schedulerOwner = (lifeId: string) => `node-${lifeId}`

/**
 * Ends now the run leases of a dead life of this node, so that its slots and retries are claimed again
 * at once, and drops its presence. A result it stored stays once: results are stored once per job id.
 */
export async function takeBackRuns(ctx: ServiceContext, lifeId: string): Promise<void> {
  await renewLeases(ctx, schedulerOwner(lifeId), ctx.clock.now().getTime())
  await deleteRunnerNode(ctx, schedulerOwner(lifeId))
}

const slotOf = ({ checkId, location }: ClaimedSlot) => ({ checkId, location })

/**
 * A job whose run has ended, with its result on the way to the store; undefined when there was nothing
 * to run (the check deleted since the claim). Wrapped: a promise returned bare would be awaited with the run.
 */
type Finished = { stored: Promise<unknown> } | undefined
