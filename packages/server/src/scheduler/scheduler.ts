import { randomUUID } from 'node:crypto'
import type { ChecksTable } from '@svc/db'
import type { ServiceContext } from '../context.ts'
import { findCheckById } from '../features/checks/checks.repo.ts'
import { storeHeartbeatResult } from './heartbeat-results.ts'
import { type HeartbeatSettings, heartbeatPeriodMs } from './heartbeat-window.ts'
import { runAndStore } from './run-and-store.ts'
import { type ClaimedSlot, claimDueSlots, completeSlot } from './schedules.repo.ts'
import { nextSlotAfter, planSlots } from './slots.ts'

export interface SchedulerOptions {
  /** Data-center locations this process runs checks for. */
  locations: string[]
  /** Runs at once in this process (SVC_RUNNER_CONCURRENCY). */
  concurrency: number
  /** How long a claimed slot stays ours; a process that dies loses its slots after this. */
  leaseMs?: number
  tickMs?: number
  log?: { error(details: object, message: string): void }
}

export interface Scheduler {
  start(): void
  /** Stops claiming and waits for the runs in flight to finish and be stored. */
  stop(): Promise<void>
  /** One pass: claims what is due now and starts it. Resolves when those runs are stored. */
  runDue(): Promise<number>
}

/**
 * Claims due slots from the store, runs them in-process and stores each result once. Every node
 * runs one; the store's leases keep two nodes from running one slot.
 */
export function createScheduler(ctx: ServiceContext, options: SchedulerOptions): Scheduler {
  const owner = `node-${randomUUID()}`
  const leaseMs = options.leaseMs ?? 5 * 60_000
  const running = new Set<Promise<void>>()
  let timer: NodeJS.Timeout | undefined
  let ticking = false
  const log = options.log ?? { error: (details: object, message: string) => console.error(message, details) }

  async function runDue(): Promise<number> {
    const free = options.concurrency - running.size
    if (free <= 0) return 0
    const slots = await claimDueSlots(ctx, {
      owner,
      nowMs: ctx.clock.now().getTime(),
      leaseMs,
      locations: options.locations,
      limit: free,
    })
    const runs = slots.map((slot) => {
      const run = runSlot(slot).catch((error: unknown) => {
        // A bug, not a failing target: leave the lease to expire so another pass retries the slot.
        log.error({ err: error, checkId: slot.checkId, location: slot.location }, 'check run failed')
      })
      running.add(run)
      void run.finally(() => running.delete(run))
      return run
    })
    await Promise.all(runs)
    return slots.length
  }

  async function runSlot(slot: ClaimedSlot): Promise<void> {
    const check = await findCheckById(ctx, slot.checkId)
    if (!check) return
    const jobId = `${slot.checkId}:${slot.location}:${slot.dueMs}`
    if (check.check_type === 'HEARTBEAT') {
      // The deadline passed without a ping: fail now, and again each period until a ping comes.
      const { heartbeat } = JSON.parse(check.definition) as { heartbeat: HeartbeatSettings }
      await storeHeartbeatResult(ctx, check, {
        jobId,
        kind: 'MISSED',
        message: 'No ping within the period and grace',
      })
      const nextDueMs = Math.max(ctx.clock.now().getTime(), slot.dueMs) + heartbeatPeriodMs(heartbeat)
      return completeSlot(ctx, { ...slot, owner, nextDueMs })
    }
    await runAndStore(ctx, check, slot.location, jobId)
    await completeSlot(ctx, { ...slot, owner, nextDueMs: nextDueOf(check, slot) })
  }

  function nextDueOf(check: ChecksTable, slot: ClaimedSlot): number {
    const definition = JSON.parse(check.definition) as { locations: string[]; runParallel?: boolean }
    const plan = planSlots(
      check.id,
      check.frequency,
      definition.locations,
      Boolean(definition.runParallel),
    ).find((p) => p.location === slot.location)
    const nowMs = ctx.clock.now().getTime()
    return plan ? nextSlotAfter(Math.max(nowMs, slot.dueMs), plan) : nowMs + check.frequency * 60_000
  }

  return {
    runDue,
    start() {
      timer = setInterval(() => {
        if (ticking) return
        ticking = true
        runDue()
          .catch((error: unknown) => log.error({ err: error }, 'claiming due checks failed'))
          .finally(() => {
            ticking = false
          })
      }, options.tickMs ?? 500)
    },
    async stop() {
      clearInterval(timer)
      await Promise.all(running)
    },
  }
}
