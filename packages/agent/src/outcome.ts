import type { Scrubber } from '@svc/core'
import { DETAIL_KEYS, type RunnerJob, type RunOutcome } from '@svc/runner'

/**
 * Runtimes this agent carries. The spec's agent also carries 2026.04, which @svc/core does not define
 * yet; a check on an older runtime runs here as 2025.04, with a note on its result.
 */
export const AGENT_RUNTIME_IDS = ['2025.04'] as const
const AGENT_DEFAULT_RUNTIME = '2025.04'

/** The job as this agent runs it, and the note its result gets when its runtime was replaced. */
export function onAgentRuntime(job: RunnerJob): { job: RunnerJob; note: string | null } {
  if (!('script' in job)) return { job, note: null }
  const asked = job.script.runtimeId
  if (!asked || (AGENT_RUNTIME_IDS as readonly string[]).includes(asked)) return { job, note: null }
  return {
    job: { ...job, script: { ...job.script, runtimeId: AGENT_DEFAULT_RUNTIME } },
    note: `Runtime ${asked} is not available on private-location agents: ran on ${AGENT_DEFAULT_RUNTIME}`,
  }
}

/**
 * What the agent sends of an outcome: secrets scrubbed from every string (all encodings; sensitive
 * headers are redacted by the runner already), and a runtime note added.
 */
export function outcomeToSend(outcome: RunOutcome, scrubber: Scrubber, note: string | null): RunOutcome {
  const scrubbed = scrubber.deep(outcome)
  const detail = scrubbed.detail as { notes?: string[] } | null
  if (!note || !detail || typeof detail !== 'object' || !Array.isArray(detail.notes)) return scrubbed
  return { ...scrubbed, detail: { ...detail, notes: [note, ...detail.notes] } }
}

/** An outcome for a run the agent could not carry out: an INTERNAL error, never a pass. */
export function internalOutcome(checkType: string, message: string): RunOutcome {
  const now = new Date().toISOString()
  return {
    verdict: {
      startedAt: now,
      stoppedAt: now,
      responseTime: 0,
      hasFailures: true,
      hasErrors: true,
      isDegraded: false,
      overMaxResponseTime: false,
      error: { type: 'INTERNAL', message: message.slice(0, 10_000) },
    },
    detailKey: DETAIL_KEYS[checkType as keyof typeof DETAIL_KEYS] ?? 'checkResult',
    detail: null,
    statusCode: null,
  }
}
