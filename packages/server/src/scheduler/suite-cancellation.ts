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

/** How often a process with suite runs in flight looks for cancels of them (and only then). */
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
 */
export async function runCancellable<T>(
  ctx: ServiceContext,
  run: SuiteRun,
  body: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  let watcher = watchers.get(ctx.db)
  if (!watcher) {
    watcher = { ctx, runs: new Map(), timer: undefined, polling: false, renewedMs: 0 }
    watchers.set(ctx.db, watcher)
  }
  const controller = new AbortController()
  await saveSuiteRuns(ctx, [run], ctx.clock.now().getTime() + SUITE_RUN_ALIVE_MS)
  watcher.runs.set(run.jobId, controller)
  if (!watcher.timer) {
    const watching = watcher
    watching.renewedMs = Date.now()
    watching.timer = setInterval(() => void poll(watching), POLL_MS)
    watching.timer.unref()
  }
  try {
    return await body(controller.signal)
  } finally {
    watcher.runs.delete(run.jobId)
    if (watcher.runs.size === 0) {
      clearInterval(watcher.timer)
      watcher.timer = undefined
    }
    // Left behind, the row stops counting once it is no longer renewed.
    await deleteSuiteRuns(ctx, [run.jobId], run.runner).catch(() => {})
  }
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
