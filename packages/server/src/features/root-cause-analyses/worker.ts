import { randomUUID } from 'node:crypto'
import type { RootCauseAnalysesTable } from '@svc/db'
import type { LlmConfig } from '../../config.ts'
import type { ServiceContext } from '../../context.ts'
import { wakeLoop } from '../../wakeups.ts'
import { findGroup } from '../error-groups/error-group-lookups.service.ts'
import { analyze } from './analysis.ts'
import { AnalysisError, gatherEvidence } from './evidence.ts'
import { LlmError, summarizeWithLlm } from './llm.ts'
import * as repo from './root-cause-analyses.repo.ts'

/** A job claimed this many times without finishing (its node kept dying) ends FAILED. */
export const MAX_ATTEMPTS = 3

export interface WorkerOptions {
  llm?: LlmConfig
  log?: { error(obj: object, msg?: string): void }
  /** The longest it sleeps with nothing due (default: the store's wake-up fallback). */
  fallbackMs?: number
  leaseMs?: number
}

/**
 * Runs root cause analyses in the background on every node: jobs are rows claimed under a lease
 * (renewed while running), so a node that dies mid-analysis hands the job to another after the lease.
 */
export function createRootCauseWorker(ctx: ServiceContext, options: WorkerOptions = {}) {
  const owner = `rca:${randomUUID()}`
  const leaseMs = options.leaseMs ?? 120_000
  let stopped = true

  async function drain() {
    for (;;) {
      if (stopped) return
      const nowMs = ctx.clock.now().getTime()
      const job = await repo.claimNext(ctx, owner, nowMs, nowMs + leaseMs)
      if (!job) return
      await runJob(ctx, owner, job, { ...options, leaseMs })
    }
  }

  // Wakes on each request (here or on another node); else when the lease of a job another node runs ends.
  const loop = wakeLoop(ctx, {
    names: ['root-cause-analyses'],
    what: 'root cause analysis worker',
    log: options.log ?? { error: (details, message) => console.error(message, details) },
    ...(options.fallbackMs === undefined ? {} : { fallbackMs: options.fallbackMs }),
    async pass() {
      await drain()
      return repo.nextLeaseEndMs(ctx)
    },
  })

  return {
    start() {
      stopped = false
      loop.start()
    },
    /** Runs every claimable job now (tests, and the first tick). */
    async runOnce() {
      const wasStopped = stopped
      stopped = false
      try {
        await drain()
      } finally {
        stopped = wasStopped
      }
    },
    async stop() {
      stopped = true
      await loop.stop()
    },
  }
}

/** The fields a finished analysis sets besides its times. */
type Outcome = Partial<RootCauseAnalysesTable> & { status: string }

async function runJob(
  ctx: ServiceContext,
  owner: string,
  job: RootCauseAnalysesTable,
  options: WorkerOptions & { leaseMs: number },
): Promise<void> {
  const startedMs = performance.now()
  const finish = (outcome: Outcome) => {
    const now = ctx.clock.now().toISOString()
    return repo.finishAnalysis(ctx, job.id, owner, {
      analysis: null,
      failure_reason: null,
      provider: null,
      model: null,
      duration_ms: Math.round(performance.now() - startedMs),
      completed_at: now,
      updated_at: now,
      ...outcome,
    })
  }
  if (job.attempts > MAX_ATTEMPTS) {
    await finish({
      status: 'FAILED',
      failure_reason: `The analysis was interrupted ${MAX_ATTEMPTS} times (its node stopped) and was given up`,
    })
    return
  }
  const renew = setInterval(
    () => {
      const untilMs = ctx.clock.now().getTime() + options.leaseMs
      repo.renewLease(ctx, job.id, owner, untilMs).catch(() => {})
    },
    Math.max(1000, options.leaseMs / 3),
  )
  try {
    await finish(await completedAnalysis(ctx, job, options))
  } catch (error) {
    const known = error instanceof AnalysisError || error instanceof LlmError
    if (!known) options.log?.error({ err: error, analysisId: job.id }, 'root cause analysis failed')
    await finish({
      status: 'FAILED',
      failure_reason: known
        ? (error as Error).message
        : 'The analysis failed unexpectedly (see the server log)',
    })
  } finally {
    clearInterval(renew)
  }
}

/** Analyzes the job's error group by the rules, its summary rewritten by the LLM when one is set up. */
async function completedAnalysis(
  ctx: ServiceContext,
  job: RootCauseAnalysesTable,
  options: WorkerOptions,
): Promise<Outcome> {
  const group = await findGroup(ctx, job.account_id, job.error_group_id)
  if (!group) throw new AnalysisError('The error group no longer exists')
  const evidence = await gatherEvidence(ctx, group, job.user_context)
  const analysis = analyze(evidence)
  if (!options.llm) return { status: 'COMPLETED', analysis: JSON.stringify(analysis), provider: 'svc-rules' }
  const { summary, model } = await summarizeWithLlm(options.llm, evidence, analysis)
  analysis.summary = summary
  return { status: 'COMPLETED', analysis: JSON.stringify(analysis), provider: 'openai-compatible', model }
}
