import { randomUUID } from 'node:crypto'
import type { AgentErrorBody, AgentJob, HeartbeatReply, JobResultBody } from '@svc/core'
import { SCRIPT_CHECK_TYPES } from '@svc/core'
import type { PrivateLocationsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { conflict, type HttpError, notFound, unauthorized } from '../../http/errors.ts'
import { handOutJobs, takeResults } from '../../runs/agent-jobs.ts'
import { insertTriggerJob } from '../../runs/retries.repo.ts'
import { nextDueMs, renewLeases } from '../../runs/schedules.repo.ts'
import { SUITE_RUN_ALIVE_MS } from '../../runs/suite-cancellation.ts'
import { cancelledSuiteRuns, renewSuiteRuns } from '../../runs/suite-runs.repo.ts'
import { inTransaction } from '../../transactions.ts'
import { fallbackMsOf, onWakeup } from '../../wakeups.ts'
import { ARTIFACT_LIMIT_BYTES } from '../artifacts/artifact-store.ts'
import { getResult } from '../check-results/check-results.service.ts'
import { findResultByJobId } from '../check-results/result-lookups.service.ts'
import { findCheckById } from '../checks/check-lookups.service.ts'
import type { ResolvedCheck } from '../checks/resolve-check.ts'
import * as agentRecords from '../private-locations/agent-records.service.ts'
import { privateLocationIdOf, privateLocationKey } from '../private-locations/location-keys.ts'
import { AGENT_LIVE_MS, hashLocationKey } from '../private-locations/private-locations.service.ts'
import { saveScriptRuns } from './agent-protocol.repo.ts'
import { outcomeProblem } from './outcome-problems.ts'

/** Artifacts of one script run an agent may upload (the spec's agent artifact limit). */
export const AGENT_ARTIFACT_LIMIT_BYTES = ARTIFACT_LIMIT_BYTES

/**
 * The agent protocol: agents of a private location take that location's due runs (long-polling), run
 * them with packages/runner and post the outcomes, which are stored exactly as in-process runs are. Runs
 * are leased to the agent that took them and renewed by its heartbeats, so a dead agent's runs go to
 * another agent of the location once the lease runs out.
 */

export interface CallingAgent {
  id: string
  location: PrivateLocationsTable
  /** The location's schedule key (`private:<id>`). */
  key: string
  /** The owner its leases carry (see `agentOwner`). */
  owner: string
  /** Its key's hash: a long-poll checks the key is still live before each claim after the first. */
  keyHash: string
}

/**
 * The owner of an agent's leases and suite runs. Agents pick their own ids, so the owner names the
 * location too: a key of another location that sends the same id renews and completes none of them.
 */
export function agentOwner(locationId: string, agentId: string): string {
  return `agent:${locationId}:${agentId}`
}

/** 401 for a missing, unknown or revoked private-location key. */
export async function authenticateAgent(
  ctx: ServiceContext,
  authorization: string | undefined,
  agentId: string,
): Promise<CallingAgent> {
  // As for API keys: the scheme is case-insensitive (RFC 9110), spacing lenient.
  const rawKey = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1]
  if (!rawKey) throw unauthorized(authorization ? 'Bad Token' : 'Missing private location key')
  const keyHash = hashLocationKey(rawKey)
  const location = await agentRecords.findLocationByKeyHash(ctx, keyHash)
  if (!location) throw unauthorized('Bad Token')
  return {
    id: agentId,
    location,
    key: privateLocationKey(location.id),
    owner: agentOwner(location.id, agentId),
    keyHash,
  }
}

/** How often a trigger waiting for an agent's result looks for it. */
const POLL_INTERVAL_MS = 200
/** The shortest a long-poll sleeps between claims: slots falling due together are taken in one claim. */
const MIN_POLL_GAP_MS = 10

/** Takes up to `max` due runs of the agent's location, waiting up to `waitMs` for one to fall due. */
export async function pollJobs(
  ctx: ServiceContext,
  agent: CallingAgent,
  options: { max: number; waitMs: number; gone: () => boolean; signal?: AbortSignal },
): Promise<AgentJob[]> {
  const deadline = Date.now() + options.waitMs
  let current = agent
  for (let claims = 0; ; claims++) {
    if (options.gone()) return []
    if (claims > 0) {
      // Revoking a key stops its runs at once: a poll that outlives its key takes none (they carry secrets).
      const location = await agentRecords.findLocationByKeyHash(ctx, agent.keyHash)
      if (!location) throw unauthorized('Bad Token')
      // Runs go out with the location as it is now (a proxy URL changed while the poll waited).
      current = { ...agent, location }
    }
    const jobs = await handOutJobs(ctx, current, options.max, saveScriptJobs(ctx))
    if (jobs.length > 0 || Date.now() >= deadline) return jobs
    // Wake when the location's next slot falls due or a write moves one sooner (a trigger, a changed
    // schedule: the `schedule` wake-up), not at an interval: runs start on time and an idle agent's
    // poll costs one claim.
    const dueMs = await nextDueMs(ctx, [agent.key])
    const untilDueMs = (dueMs ?? Number.POSITIVE_INFINITY) - ctx.clock.now().getTime()
    const sleepMs = Math.min(fallbackMsOf(ctx), deadline - Date.now(), Math.max(MIN_POLL_GAP_MS, untilDueMs))
    await sleepUntilWoken(ctx, sleepMs, options.signal)
  }
}

/** Sleeps `ms`, or until a `schedule` wake-up says a slot falls due sooner than that, or `signal` aborts. */
function sleepUntilWoken(ctx: ServiceContext, ms: number, signal?: AbortSignal): Promise<void> {
  let wakeAtMs = ctx.clock.now().getTime() + ms
  let timer: NodeJS.Timeout | undefined
  let off = () => {}
  return new Promise((done) => {
    const end = () => {
      clearTimeout(timer)
      off()
      signal?.removeEventListener('abort', end)
      done()
    }
    if (signal?.aborted) {
      end()
      return
    }
    signal?.addEventListener('abort', end)
    timer = setTimeout(end, ms)
    off = onWakeup('schedule', (dueMs) => {
      const nowMs = ctx.clock.now().getTime()
      if (dueMs === undefined || dueMs <= nowMs) return end()
      if (dueMs >= wakeAtMs) return
      clearTimeout(timer)
      wakeAtMs = Math.max(nowMs + MIN_POLL_GAP_MS, dueMs)
      timer = setTimeout(end, wakeAtMs - nowMs)
    })
  })
}

/** Files the result ids of script runs handed out: what ties an artifact upload to its run. */
const saveScriptJobs = (ctx: ServiceContext) => (jobs: AgentJob[], nowMs: number) =>
  saveScriptRuns(
    ctx,
    jobs
      .filter((job) => (SCRIPT_CHECK_TYPES as readonly string[]).includes(job.checkType))
      .map((job) => ({
        result_id: job.resultId,
        check_id: job.checkId,
        location: job.location,
        slot_key: job.slotKey,
        attempt: job.attempt,
        issued_ms: nowMs,
      })),
  )

/**
 * Stores what an agent ran, as an in-process run would be stored (once per job id, retries planned
 * under the agent's lease), and moves the slot on. Values to hide are scrubbed again on arrival.
 */
export async function postResult(
  ctx: ServiceContext,
  agent: CallingAgent,
  body: JobResultBody,
): Promise<void> {
  const [refused] = await postResults(ctx, agent, [body], () => 'body')
  if (refused) throw refused
}

/**
 * Stores the outcomes of several runs as `postResult` stores one (see `takeResults`): answers, in order,
 * what each was refused with, or null when it was stored (or had been); a failure of the store throws,
 * and the agent posts them all again (each is stored once).
 */
export function postResults(
  ctx: ServiceContext,
  agent: CallingAgent,
  bodies: JobResultBody[],
  /** Where the i-th outcome is in the request, for the path a 400 names. */
  pathOf: (i: number) => string = (i) => `body.results.${i}`,
): Promise<(HttpError | null)[]> {
  return takeResults(ctx, agent, bodies, pathOf, (body, i, checkType) =>
    outcomeProblem(body, checkType, pathOf(i)),
  )
}

/**
 * Records that the agent is alive and keeps the leases of its runs in flight; answers which of its
 * suite runs were cancelled meanwhile (looked up only while it has runs in flight).
 */
export async function agentHeartbeat(
  ctx: ServiceContext,
  agent: CallingAgent,
  body: { version: string; hostname: string; runningJobs: number },
): Promise<HeartbeatReply> {
  const now = ctx.clock.now()
  await withLocation(ctx, agent, (tx) =>
    agentRecords.saveAgent(
      tx,
      { id: agent.id, locationId: agent.location.id, ...body },
      { ms: now.getTime(), iso: now.toISOString() },
    ),
  )
  await renewLeases(ctx, agent.owner, now.getTime() + ctx.runnerLeaseMs)
  const leaseSeconds = ctx.runnerLeaseMs / 1000
  if (body.runningJobs === 0) return { leaseSeconds, cancelJobIds: [] }
  const aliveUntilMs = now.getTime() + Math.max(SUITE_RUN_ALIVE_MS, ctx.runnerLeaseMs)
  await renewSuiteRuns(ctx, { runner: agent.owner }, now.getTime(), aliveUntilMs)
  return { leaseSeconds, cancelJobIds: await cancelledSuiteRuns(ctx, { runner: agent.owner }) }
}

/** An agent that stops says goodbye: its location shows it gone at once. */
export async function agentGoodbye(ctx: ServiceContext, agent: CallingAgent): Promise<void> {
  await agentRecords.deleteAgent(ctx, agent.location.id, agent.id, ctx.clock.now().getTime())
}

/**
 * Runs `work`, which writes a row naming the agent's location, with the location locked: its deletion
 * waits for it, or went first, and then the agent's key is gone as when it calls after the deletion (401).
 */
async function withLocation<T>(
  ctx: ServiceContext,
  agent: CallingAgent,
  work: (tx: ServiceContext) => Promise<T>,
): Promise<T> {
  return inTransaction(ctx, async (tx) => {
    const { account_id, id } = agent.location
    if (!(await agentRecords.lockLocation(tx, account_id, id, 'referenced'))) throw unauthorized('Bad Token')
    return work(tx)
  })
}

export async function recordAgentError(ctx: ServiceContext, agent: CallingAgent, body: AgentErrorBody) {
  await withLocation(ctx, agent, (tx) =>
    agentRecords.insertAgentEvent(tx, {
      id: randomUUID(),
      private_location_id: agent.location.id,
      agent_id: agent.id,
      message: body.message,
      stack: body.stack ?? null,
      agent_version: body.agentVersion,
      platform: body.platform,
      runtime_version: body.runtimeVersion,
      created_at: ctx.clock.now().toISOString(),
    }),
  )
}

/** How long a triggered run on an agent is waited for, by type (scripts take longer). */
const TRIGGER_WAIT_MS: Record<string, number> = { BROWSER: 150_000, MULTI_STEP: 150_000, AUTOMATION: 270_000 }

/**
 * Runs one attempt now on an agent of the check's private location, as job `slotKey`, and answers its
 * result: 409 when no agent of the location is connected.
 */
export async function triggerOnAgent(
  ctx: ServiceContext,
  check: ResolvedCheck,
  locationKey: string,
  slotKey = `trigger:${randomUUID()}`,
) {
  const locationId = privateLocationIdOf(locationKey) as string
  const live = await agentRecords.listAgents(ctx, [locationId], ctx.clock.now().getTime() - AGENT_LIVE_MS)
  if (live.length === 0) throw conflict('The check’s private location has no connected agent to run it')
  const nowMs = ctx.clock.now().getTime()
  await insertTriggerJob(ctx, {
    slotKey,
    checkId: check.row.id,
    location: locationKey,
    attempt: 1,
    dueMs: nowMs,
    firstStartedMs: nowMs,
  })
  const deadline = Date.now() + (TRIGGER_WAIT_MS[check.row.check_type] ?? 60_000)
  while (Date.now() < deadline) {
    const result = await findResultByJobId(ctx, slotKey)
    if (result) return getResult(ctx, check.row.account_id, check.row.id, result.id)
    // Deleted meanwhile, its queued run went with it: nothing will come.
    if (!(await findCheckById(ctx, check.row.id)))
      throw notFound(`Check ${check.row.id} not found: it was deleted while it waited for an agent`)
    await new Promise((done) => setTimeout(done, POLL_INTERVAL_MS))
  }
  throw conflict(
    'No agent of the private location ran the check in time; its result will appear in the results',
  )
}
