import { randomUUID } from 'node:crypto'
import type { Database } from '@svc/db'
import type { Kysely } from 'kysely'
import type { ServiceContext } from '../context.ts'
import {
  cancelledSuiteRuns,
  deleteSuiteRuns,
  renewSuiteRuns,
  type SuiteRun,
  saveSuiteRuns,
} from './suite-runs.repo.ts'

/** How often a process with suite runs in flight or waiting looks for cancels of them (and only then). */
const POLL_MS = 1000
/** How long a run counts as in flight without renewal: a dead process's runs stop counting then. */
export const SUITE_RUN_ALIVE_MS = 60_000
const RENEW_MS = SUITE_RUN_ALIVE_MS / 3

/** This process, as the runner of the suite runs it starts outside a scheduler (triggers). */
export const PROCESS_RUNNER = `process-${randomUUID()}`

interface Watcher {
  ctx: ServiceContext
  runs: Map<string, AbortController>
  timer: NodeJS.Timeout | undefined
  polling: boolean
  renewedMs: number
}

/** One per store: every run of this process over it is looked for in one query. */
const watchers = new WeakMap<Kysely<Database>, Watcher>()

/**
 * Runs a suite run as cancellable: it is recorded in the store while in flight, and `body`'s signal
 * aborts once a cancel is asked of it, from any node (looked for every second while runs are in flight).
 * A run asked to stop before it started (while it waited for its turn, see `waitCancellable`) gets an
 * aborted signal at once.
 */
export async function runCancellable<T>(
  ctx: ServiceContext,
  run: SuiteRun,
  body: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const watcher = watcherOf(ctx)
  const controller = watcher.runs.get(run.jobId) ?? new AbortController()
  const cancelled = await saveSuiteRuns(ctx, [run], ctx.clock.now().getTime() + SUITE_RUN_ALIVE_MS)
  watch(watcher, run.jobId, controller)
  if (cancelled.length > 0) controller.abort()
  try {
    return await body(controller.signal)
  } finally {
    unwatch(watcher, run.jobId)
    // Left behind, the row stops counting once it is no longer renewed.
    await deleteSuiteRuns(ctx, [run.jobId], run.runner).catch(() => {})
  }
}

export interface WaitingRuns {
  /** Aborts once a cancel is asked of the job (undefined for a job not recorded here). */
  signalOf(jobId: string): AbortSignal | undefined
  /**
   * The job's turn came: its signal, aborted if a cancel was asked meanwhile, read from the store
   * (the look every second may not have seen it yet).
   */
  turn(jobId: string): Promise<AbortSignal | undefined>
  /** Forgets a run that ended, or that an agent took over (its row is then the agent's). */
  done(jobId: string): Promise<void>
  /** Forgets every run not done yet. */
  release(): Promise<void>
}

/**
 * Records suite runs that wait in this process for their turn (a group trigger's concurrency), so that a
 * cancel asked of any node reaches them as it reaches runs in flight. When its turn comes, a run started
 * with `runCancellable` (or handed to an agent) under the same job id keeps the cancel asked meanwhile.
 */
export async function waitCancellable(ctx: ServiceContext, runs: SuiteRun[]): Promise<WaitingRuns> {
  const watcher = watcherOf(ctx)
  const controllers = new Map(runs.map((run) => [run.jobId, new AbortController()]))
  const runners = new Map(runs.map((run) => [run.jobId, run.runner]))
  const cancelled = new Set(await saveSuiteRuns(ctx, runs, ctx.clock.now().getTime() + SUITE_RUN_ALIVE_MS))
  for (const [jobId, controller] of controllers) {
    watch(watcher, jobId, controller)
    if (cancelled.has(jobId)) controller.abort()
  }
  const done = async (jobId: string) => {
    const controller = controllers.get(jobId)
    if (!controller) return
    controllers.delete(jobId)
    if (watcher.runs.get(jobId) === controller) unwatch(watcher, jobId)
    await deleteSuiteRuns(ctx, [jobId], runners.get(jobId)).catch(() => {})
  }
  return {
    signalOf: (jobId) => controllers.get(jobId)?.signal,
    turn: async (jobId) => {
      const controller = controllers.get(jobId)
      if (controller && !controller.signal.aborted) {
        if ((await cancelledSuiteRuns(ctx, { jobIds: [jobId] })).length > 0) controller.abort()
      }
      return controller?.signal
    },
    done,
    release: async () => {
      await Promise.all([...controllers.keys()].map(done))
    },
  }
}

function watcherOf(ctx: ServiceContext): Watcher {
  let watcher = watchers.get(ctx.db)
  if (!watcher) {
    watcher = { ctx, runs: new Map(), timer: undefined, polling: false, renewedMs: 0 }
    watchers.set(ctx.db, watcher)
  }
  return watcher
}

function watch(watcher: Watcher, jobId: string, controller: AbortController): void {
  watcher.runs.set(jobId, controller)
  if (watcher.timer) return
  watcher.renewedMs = Date.now()
  watcher.timer = setInterval(() => void poll(watcher), POLL_MS)
  watcher.timer.unref()
}

function unwatch(watcher: Watcher, jobId: string): void {
  watcher.runs.delete(jobId)
  if (watcher.runs.size > 0) return
  clearInterval(watcher.timer)
  watcher.timer = undefined
}

async function poll(watcher: Watcher): Promise<void> {
  if (watcher.polling || watcher.runs.size === 0) return
  watcher.polling = true
  const { ctx } = watcher
  try {
    const jobIds = [...watcher.runs.keys()]
    for (const jobId of await cancelledSuiteRuns(ctx, { jobIds })) watcher.runs.get(jobId)?.abort()
    if (Date.now() - watcher.renewedMs >= RENEW_MS) {
      watcher.renewedMs = Date.now()
      const nowMs = ctx.clock.now().getTime()
      await renewSuiteRuns(ctx, { jobIds }, nowMs, nowMs + SUITE_RUN_ALIVE_MS)
    }
  } catch {
    // The store is away for a moment: the next poll asks again.
  } finally {
    watcher.polling = false
  }
}
