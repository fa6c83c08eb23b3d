import { type Scrubber, scrubHeaders } from '@svc/core'
import type { RunnerJob, RunOutcome } from '@svc/runner'

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
 * What the agent sends of an outcome: secrets scrubbed from every string (all encodings), sensitive
 * headers (authorization, cookies) of URL and API checks always redacted, and a runtime note added.
 */
export function outcomeToSend(outcome: RunOutcome, scrubber: Scrubber, note: string | null): RunOutcome {
  const scrubbed = scrubber.deep(outcome)
  const detail = scrubbed.detail as {
    request?: { headers?: Record<string, string> }
    response?: { headers?: Record<string, string> } | null
    notes?: string[]
  } | null
  if (!detail || typeof detail !== 'object') return scrubbed
  const copy = { ...detail }
  if (detail.request?.headers)
    copy.request = { ...detail.request, headers: scrubHeaders(detail.request.headers, scrubber) }
  if (detail.response?.headers)
    copy.response = { ...detail.response, headers: scrubHeaders(detail.response.headers, scrubber) }
  if (note && Array.isArray(detail.notes)) copy.notes = [note, ...detail.notes]
  return { ...scrubbed, detail: copy }
}
