import { randomUUID } from 'node:crypto'
import type { AgentErrorBody, AgentJob, JobResultBody } from '@svc/core'
import { Scrubber } from '@svc/core'
import type { PrivateLocationsTable } from '@svc/db'
import type { RunOutcome } from '@svc/runner'
import type { ServiceContext } from '../../context.ts'
import { conflict, type HttpError, notFound, unauthorized } from '../../http/errors.ts'
import {
  dueMsOfSlotKey,
  isTriggerJob,
  jobIdOf,
  nextDueOf,
  recordOutcome,
  slotKeyOf,
} from '../../scheduler/jobs.ts'
import { claimDueRetries, insertTriggerJob, type PendingRetry } from '../../scheduler/retries.repo.ts'
import { prepareJob } from '../../scheduler/run-and-store.ts'
import { loadAccountVariables, runVariables } from '../../scheduler/run-variables.ts'
import {
  type ClaimedSlot,
  claimDueSlots,
  nextDueMs,
  renewLeases,
  type SlotMove,
} from '../../scheduler/schedules.repo.ts'
import { findResultByJobId } from '../check-results/check-results.repo.ts'
import { getResult } from '../check-results/check-results.service.ts'
import { newResultId } from '../check-results/result-id.ts'
import { type ResolvedCheck, resolveChecksById } from '../checks/checks.service.ts'
import { privateLocationIdOf, privateLocationKey } from '../private-locations/location-keys.ts'
import * as locationsRepo from '../private-locations/private-locations.repo.ts'
import { AGENT_LIVE_MS, hashLocationKey } from '../private-locations/private-locations.service.ts'

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
  /** The owner its leases carry. */
  owner: string
}

/** 401 for a missing, unknown or revoked private-location key. */
export async function authenticateAgent(
  ctx: ServiceContext,
  authorization: string | undefined,
  agentId: string,
): Promise<CallingAgent> {
  const rawKey = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1]
  if (!rawKey) throw unauthorized(authorization ? 'Bad Token' : 'Missing private location key')
  const location = await locationsRepo.findLocationByKeyHash(ctx, hashLocationKey(rawKey))
  if (!location) throw unauthorized('Bad Token')
  return { id: agentId, location, key: privateLocationKey(location.id), owner: `agent:${agentId}` }
}

/** The longest a long-poll sleeps between claims (a trigger or a changed schedule comes unannounced). */
const POLL_INTERVAL_MS = 200
/** The shortest: slots falling due together are taken in one claim. */
const MIN_POLL_GAP_MS = 10

/** Takes up to `max` due runs of the agent's location, waiting up to `waitMs` for one to fall due. */
export async function pollJobs(
  ctx: ServiceContext,
  agent: CallingAgent,
  options: { max: number; waitMs: number; gone: () => boolean },
): Promise<AgentJob[]> {
  const deadline = Date.now() + options.waitMs
  for (;;) {
    if (options.gone()) return []
    const jobs = await claimJobs(ctx, agent, options.max)
    if (jobs.length > 0 || Date.now() >= deadline) return jobs
    // Wake when the location's next slot falls due, not at the next interval: runs start on time.
    const dueMs = await nextDueMs(ctx, [agent.key])
    const untilDueMs = dueMs === undefined ? POLL_INTERVAL_MS : dueMs - ctx.clock.now().getTime()
    const sleepMs = Math.min(POLL_INTERVAL_MS, deadline - Date.now(), Math.max(MIN_POLL_GAP_MS, untilDueMs))
    await new Promise((done) => setTimeout(done, sleepMs))
  }
}

async function claimJobs(ctx: ServiceContext, agent: CallingAgent, max: number): Promise<AgentJob[]> {
  const claim = {
    owner: agent.owner,
    nowMs: ctx.clock.now().getTime(),
    leaseMs: ctx.runnerLeaseMs,
    locations: [agent.key],
  }
  const retries = await claimDueRetries(ctx, { ...claim, limit: max })
  const slots = await claimDueSlots(ctx, { ...claim, limit: max - retries.length })
  const items = [...retries, ...slots.map(firstAttemptOf(ctx))]
  if (items.length === 0) return []
  const accountId = agent.location.account_id
  const checks = await resolveChecksById(
    ctx,
    items.map((item) => item.checkId),
  )
  const accounts = await loadAccountVariables(ctx, [accountId])
  const jobs: AgentJob[] = []
  for (const item of items) {
    const check = checks.get(item.checkId)
    if (!check || check.row.account_id !== accountId) continue
    const { row } = check
    const { job, hidden } = await prepareJob(ctx, check, { location: agent.location.slug_name }, accounts)
    jobs.push({
      jobId: jobIdOf(item),
      slotKey: item.slotKey,
      attempt: item.attempt,
      firstStartedMs: item.firstStartedMs,
      location: item.location,
      resultId: newResultId(),
      checkId: row.id,
      checkType: row.check_type,
      job,
      hidden,
      proxyUrl: agent.location.proxy_url,
    })
  }
  return jobs
}

const firstAttemptOf =
  (ctx: ServiceContext) =>
  (slot: ClaimedSlot): PendingRetry => ({
    slotKey: slotKeyOf(slot),
    checkId: slot.checkId,
    location: slot.location,
    attempt: 1,
    dueMs: slot.dueMs,
    firstStartedMs: ctx.clock.now().getTime(),
  })

/**
 * Stores what an agent ran, as an in-process run would be stored (once per job id, retries planned
 * under the agent's lease), and moves the slot on. Values to hide are scrubbed again on arrival.
 */
export async function postResult(
  ctx: ServiceContext,
  agent: CallingAgent,
  body: JobResultBody,
): Promise<void> {
  const [refused] = await postResults(ctx, agent, [body])
  if (refused) throw refused
}

/**
 * Stores the outcomes of several runs as `postResult` stores one, with their checks and variables
 * looked up once for all and their results sharing the store's commits. Answers, in order, what each
 * was refused with (a deleted check, another location's job), or null when it was stored; a failure of
 * the store throws, and the agent posts them all again (each is stored once).
 */
export async function postResults(
  ctx: ServiceContext,
  agent: CallingAgent,
  bodies: JobResultBody[],
): Promise<(HttpError | null)[]> {
  const accountId = agent.location.account_id
  const checks = await resolveChecksById(
    ctx,
    bodies.map((body) => body.checkId),
  )
  const accounts = await loadAccountVariables(ctx, [accountId])
  return Promise.all(
    bodies.map(async (body) => {
      if (body.location !== agent.key) return notFound(`Job ${body.slotKey} is not one of this location's`)
      const check = checks.get(body.checkId)
      if (!check || check.row.account_id !== accountId) return notFound(`Check ${body.checkId} not found`)
      const { hidden } = await runVariables(ctx, check, accounts)
      const outcome = new Scrubber(hidden).deep(body.outcome as RunOutcome)
      const job = {
        slotKey: body.slotKey,
        location: body.location,
        attempt: body.attempt,
        firstStartedMs: body.firstStartedMs,
      }
      await recordOutcome(ctx, agent.owner, check, job, outcome, {
        resultId: body.resultId,
        locationName: agent.location.slug_name,
        slotMove:
          body.attempt === 1 && !isTriggerJob(job) ? slotMoveOf(ctx, agent, check, body.slotKey) : undefined,
      })
      return null
    }),
  )
}

/** A first attempt's slot moves on in the transaction that stores its result, as in-process runs do. */
function slotMoveOf(
  ctx: ServiceContext,
  agent: CallingAgent,
  check: ResolvedCheck,
  slotKey: string,
): SlotMove | undefined {
  const dueMs = dueMsOfSlotKey(slotKey)
  if (dueMs === undefined) return undefined
  const slot = { checkId: check.row.id, location: agent.key, dueMs }
  return {
    checkId: slot.checkId,
    location: slot.location,
    leaseOwner: agent.owner,
    nextDueMs: nextDueOf(ctx, check, slot),
  }
}

/** Records that the agent is alive and keeps the leases of its runs in flight. */
export async function agentHeartbeat(
  ctx: ServiceContext,
  agent: CallingAgent,
  body: { version: string; hostname: string; runningJobs: number },
): Promise<{ leaseSeconds: number }> {
  const now = ctx.clock.now()
  await locationsRepo.saveAgent(
    ctx,
    { id: agent.id, locationId: agent.location.id, ...body },
    { ms: now.getTime(), iso: now.toISOString() },
  )
  await renewLeases(ctx, agent.owner, now.getTime() + ctx.runnerLeaseMs)
  return { leaseSeconds: ctx.runnerLeaseMs / 1000 }
}

/** An agent that stops says goodbye: its location shows it gone at once. */
export async function agentGoodbye(ctx: ServiceContext, agent: CallingAgent): Promise<void> {
  await locationsRepo.deleteAgent(ctx, agent.location.id, agent.id, ctx.clock.now().getTime())
}

export async function recordAgentError(ctx: ServiceContext, agent: CallingAgent, body: AgentErrorBody) {
  await locationsRepo.insertAgentEvent(ctx, {
    id: randomUUID(),
    private_location_id: agent.location.id,
    agent_id: agent.id,
    message: body.message,
    stack: body.stack ?? null,
    agent_version: body.agentVersion,
    platform: body.platform,
    runtime_version: body.runtimeVersion,
    created_at: ctx.clock.now().toISOString(),
  })
}

/** How long a triggered run on an agent is waited for, by type (scripts take longer). */
const TRIGGER_WAIT_MS: Record<string, number> = { BROWSER: 150_000, MULTI_STEP: 150_000, AUTOMATION: 270_000 }

/**
 * Runs one attempt now on an agent of the check's private location and answers its result: 409 when
 * no agent of the location is connected.
 */
export async function triggerOnAgent(ctx: ServiceContext, check: ResolvedCheck, locationKey: string) {
  const locationId = privateLocationIdOf(locationKey) as string
  const live = await locationsRepo.listAgents(ctx, [locationId], ctx.clock.now().getTime() - AGENT_LIVE_MS)
  if (live.length === 0) throw conflict('The check’s private location has no connected agent to run it')
  const slotKey = `trigger:${randomUUID()}`
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
    await new Promise((done) => setTimeout(done, POLL_INTERVAL_MS))
  }
  throw conflict(
    'No agent of the private location ran the check in time; its result will appear in the results',
  )
}
