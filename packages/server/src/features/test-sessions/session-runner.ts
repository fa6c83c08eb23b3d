import { EventEmitter } from 'node:events'
import type { CheckType } from '@svc/core'
import type { ChecksTable, SessionRunsTable } from '@svc/db'
import type { RunOutcome } from '@svc/runner'
import type { ServiceContext } from '../../context.ts'
import { storeAttempt } from '../../runs/record.ts'
import { runAttempt } from '../../runs/run-attempt.ts'
import { SCRIPT_DETAIL_KEYS } from '../../runs/script-checks.ts'
import { fallbackMsOf, onWakeup } from '../../wakeups.ts'
import { triggerOnAgent } from '../agent-protocol/agent-protocol.service.ts'
import type { StoredVariable } from '../checks/check-variables.ts'
import { effectiveSettings } from '../checks/effective-check.ts'
import { type Definition, type ResolvedCheck, resolveChecksById } from '../checks/resolve-check.ts'
import { privateLocationIdOf } from '../private-locations/location-keys.ts'
import * as repo from './test-sessions.repo.ts'

/** Wakes followers of a session when one of its runs ends. */
export const sessionEvents = new EventEmitter().setMaxListeners(0)

export interface SessionWorkerOptions {
  /** Names this worker's leases: the node life's id. */
  lifeId: string
  /** The data-center locations this node runs (private locations are handed to their agents). */
  locations: string[]
  concurrency: number
  log: { error(details: object, message: string): void }
}

export interface SessionWorker {
  start(): void
  stop(): Promise<void>
}

export const sessionWorkerOwner = (lifeId: string) => `sessions:${lifeId}`

/**
 * Runs the queued runs of test and check sessions, on every node: claims them under leases renewed while
 * they run, so a run of a node that died is claimed again by another.
 * Kept as one closure (over 60 lines): the claim loop, the wake-ups and stop share the runs in flight
 * and the flags that keep one claim at a time.
 */
export function createSessionWorker(ctx: ServiceContext, options: SessionWorkerOptions): SessionWorker {
  const owner = sessionWorkerOwner(options.lifeId)
  const inFlight = new Set<Promise<void>>()
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let stopWaking = () => {}
  let renewal: NodeJS.Timeout | undefined
  let claiming: Promise<void> | undefined
  let again = false
  const claimAndRun = async () => {
    if (claiming) {
      again = true
      return
    }
    claiming = claimLoop().finally(() => {
      claiming = undefined
    })
    await claiming
  }
  const claimLoop = async () => {
    do {
      again = false
      const free = options.concurrency - inFlight.size
      if (free <= 0 || stopped) break
      const runs = await repo.claimRuns(ctx, {
        owner,
        nowMs: ctx.clock.now().getTime(),
        leaseMs: ctx.runnerLeaseMs,
        locations: options.locations,
        limit: free,
      })
      for (const run of runs) {
        const running = executeRun(ctx, run, owner)
          .catch(async (error: unknown) => {
            options.log.error({ err: error, runId: run.id }, 'session run failed')
            // Ended as failed, not left to be claimed again: the same bug would throw again.
            await repo.finishRun(ctx, run.id, owner, failedValues(ctx, 'The run failed on the server'))
          })
          .catch((error: unknown) => options.log.error({ err: error, runId: run.id }, 'ending a run failed'))
          .finally(() => {
            inFlight.delete(running)
            sessionEvents.emit(run.session_id)
            wake()
          })
        inFlight.add(running)
      }
      if (runs.length === free) again = true
    } while (again)
  }
  const wake = () => {
    if (stopped) return
    claimAndRun().catch((error: unknown) => options.log.error({ err: error }, 'claiming session runs failed'))
  }
  return {
    start() {
      // Woken when a run is queued on any node; the fallback look finds what no wake-up reached.
      stopWaking = onWakeup('session-runs', wake)
      timer = setInterval(wake, fallbackMsOf(ctx))
      renewal = setInterval(() => {
        if (inFlight.size === 0) return
        const untilMs = ctx.clock.now().getTime() + ctx.runnerLeaseMs
        repo
          .renewRunLeases(ctx, owner, untilMs)
          .catch((error: unknown) => options.log.error({ err: error }, 'renewing session leases failed'))
      }, ctx.runnerLeaseMs / 3)
      wake()
    },
    async stop() {
      stopped = true
      stopWaking()
      clearInterval(timer)
      clearInterval(renewal)
      await claiming?.catch(() => {})
      await Promise.allSettled([...inFlight])
    },
  }
}

/** Gives back the session runs a dead life held, so that another node runs them at once. */
export function takeBackSessionRuns(ctx: ServiceContext, lifeId: string): Promise<void> {
  return repo.releaseRunsOf(ctx, sessionWorkerOwner(lifeId))
}

/** Runs one claimed run and records how it ended (a saved check's result goes to its results). */
async function executeRun(ctx: ServiceContext, run: SessionRunsTable, owner: string): Promise<void> {
  const jobId = `trigger:${run.id}`
  if (run.check_id) {
    const check = (await resolveChecksById(ctx, [run.check_id])).get(run.check_id)
    if (!check) {
      await repo.finishRun(ctx, run.id, owner, failedValues(ctx, 'The check was deleted before it ran'))
      return
    }
    if (privateLocationIdOf(run.location)) {
      const result = await triggerOnAgent(ctx, check, run.location, jobId).catch((error: unknown) => error)
      if (result instanceof Error) {
        await repo.finishRun(ctx, run.id, owner, failedValues(ctx, result.message))
        return
      }
      const stored = result as { id: string; hasFailures: boolean; hasErrors: boolean; isDegraded: boolean }
      await repo.finishRun(ctx, run.id, owner, {
        result_id: stored.id,
        has_failures: Number(stored.hasFailures),
        has_errors: Number(stored.hasErrors),
        is_degraded: Number(stored.isDegraded),
        response_time: Math.round(Number((result as { responseTime?: number }).responseTime ?? 0)),
        stopped_at: ctx.clock.now().toISOString(),
      })
      return
    }
    const variables = await repo.variablesOfSession(ctx, run.session_id)
    const outcome = await runAttempt(ctx, withVariables(check, variables), {
      location: run.location,
      resultId: run.id,
      jobId,
    })
    await storeAttempt(ctx, check, run.location, outcome, {
      resultId: run.id,
      jobId,
      attempts: 1,
      resultType: 'FINAL',
    })
    await repo.finishRun(ctx, run.id, owner, { ...verdictValues(outcome), result_id: run.id })
    return
  }
  const check = unsavedCheck(ctx, run)
  const outcome = await runAttempt(ctx, check, { location: run.location, resultId: run.id, jobId })
  const finished = await repo.finishRun(ctx, run.id, owner, {
    ...verdictValues(outcome),
    result_id: run.id,
    result: JSON.stringify(unsavedResult(ctx, run, outcome)),
  })
  // A run cancelled (or taken over) meanwhile keeps nothing of this attempt.
  if (!finished) await ctx.scripts.artifacts.removeResult(run.id, run.id).catch(() => {})
}

/**
 * The check with a session's variables over its own (`checkly trigger --env`): the run sees the account's,
 * then the group's and the check's, then these, as `svc test --env` puts its variables over a check's.
 */
function withVariables(check: ResolvedCheck, variables: StoredVariable[]): ResolvedCheck {
  if (variables.length === 0) return check
  const given = new Set(variables.map((variable) => variable.key))
  const own = check.effective.environmentVariables.filter((variable) => !given.has(variable.key))
  return { ...check, effective: { ...check.effective, environmentVariables: [...own, ...variables] } }
}

function verdictValues(outcome: RunOutcome) {
  const { verdict } = outcome
  return {
    has_failures: Number(verdict.hasFailures),
    has_errors: Number(verdict.hasErrors),
    is_degraded: Number(verdict.isDegraded),
    response_time: Math.round(verdict.responseTime),
    stopped_at: verdict.stoppedAt,
  }
}

function failedValues(ctx: ServiceContext, message: string) {
  const now = ctx.clock.now().toISOString()
  return {
    has_failures: 1,
    has_errors: 1,
    is_degraded: 0,
    response_time: 0,
    stopped_at: now,
    result: JSON.stringify({ error: { type: 'NOT_RUN', message } }),
  }
}

/** An unsaved definition as the run pipeline takes a check: its own id is the run's, no group. */
function unsavedCheck(ctx: ServiceContext, run: SessionRunsTable): ResolvedCheck {
  const stored = JSON.parse(run.definition ?? '{}') as Definition
  const definition = {
    ...stored,
    tags: stored.tags ?? [],
    environmentVariables: stored.environmentVariables ?? [],
  }
  const now = run.created_at
  const row = {
    id: run.id,
    account_id: run.account_id,
    check_type: run.check_type,
    name: run.name,
    activated: false,
    muted: true,
    group_id: null,
    group_order: null,
    definition: JSON.stringify(definition),
    created_at: now,
    updated_at: now,
  } as unknown as ChecksTable
  return {
    row,
    definition,
    effective: effectiveSettings(definition, null, { locations: ctx.locations.defaults }),
    runLocations: [run.location],
    groupActivated: true,
  }
}

/** An unsaved definition's result in the shape of a check result, with links to its artifacts. */
function unsavedResult(ctx: ServiceContext, run: SessionRunsTable, outcome: RunOutcome) {
  const { verdict } = outcome
  const base = `${ctx.publicUrl}/v1/test-sessions/${run.session_id}/results/${run.id}/artifacts/`
  const url = (path: string) => base + path.split('/').map(encodeURIComponent).join('/')
  let detail = outcome.detail as Record<string, unknown>
  if (run.check_type in SCRIPT_DETAIL_KEYS) {
    const files = (key: string) => (detail[key] as { path: string }[] | undefined) ?? []
    const traces = files('traces').map((file) => ({ ...file, url: url(file.path) }))
    detail = {
      ...detail,
      traceUrl: traces[0]?.url ?? null,
      screenshots: files('screenshots').map((file) => ({ ...file, url: url(file.path) })),
      traces,
      videos: files('videos').map((file) => ({ ...file, url: url(file.path) })),
    }
  }
  return {
    checkType: run.check_type as CheckType,
    runLocation: run.location,
    startedAt: verdict.startedAt,
    stoppedAt: verdict.stoppedAt,
    responseTime: verdict.responseTime,
    hasFailures: verdict.hasFailures,
    hasErrors: verdict.hasErrors,
    isDegraded: verdict.isDegraded,
    overMaxResponseTime: verdict.overMaxResponseTime,
    isCancelled: verdict.isCancelled === true,
    statusCode: outcome.statusCode,
    error: verdict.error,
    [outcome.detailKey]: detail,
  }
}
