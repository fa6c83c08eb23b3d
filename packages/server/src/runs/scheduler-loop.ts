import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { ServiceContext } from '../context.ts'
import { SVC_VERSION } from '../version.ts'
import { fallbackMsOf } from '../wakeups.ts'
import { schedulerOwner } from './claim.ts'
import { HEARTBEAT_LOCATION } from './heartbeat-window.ts'
import type { RunnerNode } from './runner-nodes.repo.ts'
import type { ClaimedSlot } from './schedules.repo.ts'

/** The local runner loop's settings (scheduler.ts) and the state one loop keeps between its passes. */

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
  /**
   * The longest a started scheduler sleeps with nothing due (default: the store's wake-up fallback,
   * wakeups.ts). It wakes sooner when a slot falls due or a write raises the `schedule` wake-up.
   */
  fallbackMs?: number
  /**
   * Behind schedule, the longest a freed run place waits for others to free before it is claimed for
   * (default 5 ms); all places free are claimed for at once.
   */
  claimGatherMs?: number
  /**
   * A started scheduler's claim also takes the slots falling due within this long (default 1 s) and
   * starts each on a timer at its due time: at spread load one claim pass serves ~a second of slots
   * instead of one. Heartbeat deadlines and retries are claimed when due. 0: claim what is due only.
   */
  claimAheadMs?: number
  /**
   * Plan slots on a coarser grain while this process runs few checks (the servers and runners do;
   * slot-grain.ts). Off: whole seconds.
   */
  adaptSlotGrain?: boolean
  log?: { error(details: object, message: string): void }
  /** The life of the node (node-life.ts) whose leases this scheduler's carry; default: its own. */
  lifeId?: string
  /** Tests only: runs between the claim of a missed heartbeat deadline and the store of its failure. */
  beforeMissedDeadlineStored?: (slot: ClaimedSlot) => Promise<void>
}

const DEFAULT_LEASE_MS = 30_000

/**
 * A claim costs about the same for one slot as for twenty (a few statements, each paying to bring
 * SQLite's code and pages back into the CPU caches): behind schedule, places freed within a few
 * milliseconds share one. A check that runs long holds back the others' places this long at most.
 */
const DEFAULT_CLAIM_GATHER_MS = 5
const DEFAULT_CLAIM_AHEAD_MS = 1000
const DEFAULT_MAX_UNSTORED = 200

/** One scheduler's settings and state, shared by the functions of scheduler.ts. */
export interface Loop {
  ctx: ServiceContext
  options: SchedulerOptions
  owner: string
  leaseMs: number
  fallbackMs: number
  claimGatherMs: number
  claimAheadMs: number
  maxUnstored: number
  log: NonNullable<SchedulerOptions['log']>
  /** This process as a runner, for GET /v1/locations. */
  node: RunnerNode
  /** Attempts in flight: at most `concurrency`, with the slots claimed ahead and not yet started. */
  running: number
  /** Slots claimed ahead of their due time, each with its start (timer cleared first). */
  waiting: Map<ClaimedSlot, () => void>
  /** Finished attempts whose results wait for their commit: they hold no run's place, up to `maxUnstored`. */
  unstored: number
  /** Every claimed job until its result is stored: what `stop()` waits for. */
  inFlight: Set<Promise<void>>
  started: boolean
  claiming: Promise<void> | undefined
  /** The last claim filled every free slot: more may be due right now. */
  backlog: boolean
  pumpQueued: boolean
  /** A wake-up came during a claim: claim again after it (its rows may have been written too late). */
  wokenWhileClaiming: boolean
  /**
   * The runs claimed that fall due from `startMs` (the first claim's time; unset before it) for a
   * `GRAIN_WINDOW_MS`, counted to set the slot grain. Only with `adaptSlotGrain`.
   */
  grainWindow: { startMs: number | undefined; runs: number } | undefined
  /** When the wake timer fires, if set. */
  wakeAtMs: number | undefined
  stopWakeups: (() => void) | undefined
  timers: Partial<Record<'wake' | 'renewal' | 'presence' | 'gathering', NodeJS.Timeout>>
}

export function loopOf(ctx: ServiceContext, options: SchedulerOptions): Loop {
  const owner = schedulerOwner(options.lifeId ?? randomUUID())
  const checkLocations = options.locations.filter((location) => location !== HEARTBEAT_LOCATION)
  return {
    ctx,
    options,
    owner,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    fallbackMs: options.fallbackMs ?? fallbackMsOf(ctx),
    claimGatherMs: options.claimGatherMs ?? DEFAULT_CLAIM_GATHER_MS,
    claimAheadMs: options.claimAheadMs ?? DEFAULT_CLAIM_AHEAD_MS,
    maxUnstored: options.maxUnstored ?? DEFAULT_MAX_UNSTORED,
    log: options.log ?? { error: (details: object, message: string) => console.error(message, details) },
    node: {
      id: owner,
      locations: checkLocations,
      hostname: hostname(),
      version: SVC_VERSION,
      startedAt: ctx.clock.now().toISOString(),
    },
    running: 0,
    waiting: new Map(),
    unstored: 0,
    inFlight: new Set(),
    started: false,
    claiming: undefined,
    backlog: false,
    pumpQueued: false,
    wokenWhileClaiming: false,
    // A scheduler that keeps heartbeat deadlines alone leaves the grain of check runs to the runners.
    grainWindow:
      options.adaptSlotGrain && checkLocations.length > 0 ? { startMs: undefined, runs: 0 } : undefined,
    wakeAtMs: undefined,
    stopWakeups: undefined,
    timers: {},
  }
}
