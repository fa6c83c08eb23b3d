import type { AgentJob, JobResultBody } from '@svc/core'
import { Scrubber } from '@svc/core'
import type { PrivateLocationsTable } from '@svc/db'
import { cancelledOutcome, DETAIL_KEYS, type RunnerJob, type RunOutcome } from '@svc/runner'
import type { ServiceContext } from '../context.ts'
import { resultWrites } from '../features/check-results/check-results.service.ts'
import { newResultId } from '../features/check-results/result-id.ts'
import { type ResolvedCheck, resolveChecksById } from '../features/checks/resolve-check.ts'
import { badRequest, conflict, type HttpError, notFound } from '../http/errors.ts'
import { checkRunClaims, type OpenJob } from './agent-run-claims.ts'
import { dropJob, dueMsOfSlotKey, isTriggerJob, jobIdOf, jobStillRuns, nextDueOf, slotKeyOf } from './jobs.ts'
import { prepareJob } from './prepare.ts'
import { recordOutcome } from './record.ts'
import { claimDueRetries, leasedRetriesOf, type PendingRetry } from './retries.repo.ts'
import { type AccountVariables, loadAccountVariables, runVariables } from './run-variables.ts'
import { type ClaimedSlot, claimDueSlots, leasedSlotsOf, type SlotMove } from './schedules.repo.ts'
import { CheckDeletedError } from './store.ts'
import { SUITE_RUN_ALIVE_MS } from './suite-cancellation.ts'
import { cancelledSuiteRuns, deleteSuiteRuns, saveSuiteRuns } from './suite-runs.repo.ts'

/**
 * The agent-facing half of the run pipeline: jobs handed out to a private location's agents (claimed
 * and prepared as the local loop claims and prepares them) and their outcomes taken back (recorded and
 * stored as in-process runs are). The HTTP protocol around it is features/agent-protocol.
 */

/** An agent as the run pipeline sees it. */
export interface AgentRunner {
  /** The owner its leases and suite runs carry. */
  owner: string
  /** Its location's schedule key (`private:<id>`). */
  key: string
  location: Pick<PrivateLocationsTable, 'account_id' | 'slug_name' | 'proxy_url'>
}

/**
 * Claims up to `max` due runs of the agent's location under its lease and prepares them. `beforeStart`
 * is handed every job prepared, before the suite runs among them are recorded (the protocol files its
 * script runs' result ids there). A suite run asked to stop before this claim ends cancelled here.
 */
export async function handOutJobs(
  ctx: ServiceContext,
  agent: AgentRunner,
  max: number,
  beforeStart: (jobs: AgentJob[], nowMs: number) => Promise<void>,
): Promise<AgentJob[]> {
  const nowMs = ctx.clock.now().getTime()
  const claim = { owner: agent.owner, nowMs, leaseMs: ctx.runnerLeaseMs, locations: [agent.key] }
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
    if (!jobStillRuns(check, item)) {
      await dropJob(ctx, item, agent.owner)
      continue
    }
    jobs.push(await agentJobOf(ctx, agent, check, item, accounts))
  }
  await beforeStart(jobs, nowMs)
  return withoutCancelled(ctx, agent, checks, jobs, nowMs)
}

async function agentJobOf(
  ctx: ServiceContext,
  agent: AgentRunner,
  check: ResolvedCheck,
  item: PendingRetry,
  accounts: AccountVariables,
): Promise<AgentJob> {
  const { job, hidden } = await prepareJob(ctx, check, { location: agent.location.slug_name }, accounts)
  return {
    jobId: jobIdOf(item),
    slotKey: item.slotKey,
    attempt: item.attempt,
    firstStartedMs: item.firstStartedMs,
    location: item.location,
    resultId: newResultId(),
    checkId: check.row.id,
    checkType: check.row.check_type,
    job,
    hidden,
    proxyUrl: agent.location.proxy_url,
  }
}

/**
 * Records the suite runs among `jobs`, which can be cancelled while the agent runs them (its heartbeats
 * learn of it). Those asked to stop before this agent took them (while their agent was gone, or a
 * group's run between its turn and this claim) end cancelled here and never start.
 */
async function withoutCancelled(
  ctx: ServiceContext,
  agent: AgentRunner,
  checks: Map<string, ResolvedCheck>,
  jobs: AgentJob[],
  nowMs: number,
): Promise<AgentJob[]> {
  const suites = jobs.filter((job) => job.checkType === 'AUTOMATION')
  const cancelled = new Set(
    await saveSuiteRuns(
      ctx,
      suites.map((job) => ({ jobId: job.jobId, checkId: job.checkId, runner: agent.owner })),
      nowMs + SUITE_RUN_ALIVE_MS,
    ),
  )
  if (cancelled.size === 0) return jobs
  for (const job of jobs.filter((job) => cancelled.has(job.jobId))) {
    const check = checks.get(job.checkId) as ResolvedCheck
    const outcome = cancelledOutcome(job.job as Extract<RunnerJob, { script: unknown }>, {
      now: () => ctx.clock.now(),
    })
    const run = { slotKey: job.slotKey, location: job.location, attempt: job.attempt }
    await recordOutcome(ctx, agent.owner, check, { ...run, firstStartedMs: job.firstStartedMs }, outcome, {
      resultId: job.resultId,
      locationName: agent.location.slug_name,
      slotMove:
        job.attempt === 1 && !isTriggerJob(run) ? slotMoveOf(ctx, agent, check, job.slotKey) : undefined,
    })
  }
  await deleteSuiteRuns(ctx, [...cancelled], agent.owner)
  return jobs.filter((job) => !cancelled.has(job.jobId))
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

/** What `takeResults` looks up once for all the outcomes of a post. */
interface Posted {
  checks: Map<string, ResolvedCheck>
  accounts: AccountVariables
  open: Map<string, OpenJob>
  cancelAsked: Set<string>
  storedBefore: Map<string, { check_id: string; run_location: string }>
  /** The job each result id is stored for, and taken by in this post: a result id is one run's. */
  jobsOfIds: Map<string, string>
  nowMs: number
}

/**
 * Stores the outcomes an agent posted, as in-process runs are stored (once per job id, retries planned
 * under the agent's lease), with their checks and variables looked up once for all and their results
 * sharing the store's commits. Answers, in order, what each was refused with (a deleted check, a run
 * not open for this location, what `refuse` finds wrong), or null when it was stored (or had been).
 *
 * A location's key is held by whoever runs its agents, so it may post only what the server gave its
 * location to run and is still open. A run posted again after its result was stored (the answer got
 * lost) answers as it did, and changes nothing: its slot and retries have moved on already.
 */
export async function takeResults(
  ctx: ServiceContext,
  agent: AgentRunner,
  bodies: JobResultBody[],
  /** Where the i-th outcome is in the request, for the path a 400 names. */
  pathOf: (i: number) => string,
  /** The protocol's own objections to an outcome of a check of `checkType` (its detail's shape, say). */
  refuse: (body: JobResultBody, i: number, checkType: string) => HttpError | undefined,
): Promise<(HttpError | null)[]> {
  const posted = await lookUpPosted(ctx, agent, bodies)
  const refused = await Promise.all(
    bodies.map((body, i) =>
      takeResult(ctx, agent, posted, body, {
        path: pathOf(i),
        refuse: () => refuse(body, i, posted.checks.get(body.checkId)?.row.check_type ?? ''),
      }),
    ),
  )
  await deleteSuiteRuns(
    ctx,
    bodies.map((body) => jobIdOf(body)),
    agent.owner,
  )
  return refused
}

async function lookUpPosted(
  ctx: ServiceContext,
  agent: AgentRunner,
  bodies: JobResultBody[],
): Promise<Posted> {
  const checks = await resolveChecksById(
    ctx,
    bodies.map((body) => body.checkId),
  )
  const accounts = await loadAccountVariables(ctx, [agent.location.account_id])
  const open = await openJobsOf(ctx, agent, bodies)
  const nowMs = ctx.clock.now().getTime()
  const cancelAsked = new Set(
    await cancelledSuiteRuns(ctx, {
      jobIds: bodies.filter((body) => body.outcome.verdict.isCancelled === true).map(jobIdOf),
    }),
  )
  const storedBefore = new Map(
    (
      await resultWrites.findResultsByJobIds(
        ctx,
        bodies.map(jobIdOf).filter((jobId) => !open.has(jobId)),
      )
    ).map((row) => [row.job_id, row]),
  )
  const jobsOfIds = new Map(
    (
      await resultWrites.findResultsByIds(
        ctx,
        bodies.map((body) => body.resultId),
      )
    ).map((row) => [row.id, row.job_id]),
  )
  return { checks, accounts, open, cancelAsked, storedBefore, jobsOfIds, nowMs }
}

async function takeResult(
  ctx: ServiceContext,
  agent: AgentRunner,
  posted: Posted,
  body: JobResultBody,
  { path, refuse }: { path: string; refuse: () => HttpError | undefined },
): Promise<HttpError | null> {
  if (body.location !== agent.key) return notFound(`Job ${body.slotKey} is not one of this location's`)
  const check = posted.checks.get(body.checkId)
  if (!check || check.row.account_id !== agent.location.account_id)
    return notFound(`Check ${body.checkId} not found`)
  const malformed = refuse()
  if (malformed !== undefined) return malformed
  const jobId = jobIdOf(body)
  const openJob = posted.open.get(jobId)
  if (openJob?.checkId !== body.checkId) {
    const stored = posted.storedBefore.get(jobId)
    if (stored?.check_id === body.checkId && stored.run_location === agent.location.slug_name) return null
    return notFound(
      `Job ${jobId} is not open for this location: it was not given to this location, or its run is over`,
    )
  }
  const claims = checkRunClaims(body, openJob, posted.cancelAsked.has(jobId), posted.nowMs)
  if ('path' in claims) {
    const at = `${path}.${claims.path}`
    return badRequest(`${at} ${claims.message}`, { errors: [{ path: at, message: claims.message }] })
  }
  // Checked before the first await: the outcomes of a post take their ids in order.
  const jobOfId = posted.jobsOfIds.get(body.resultId)
  if (jobOfId === jobId) return null
  if (jobOfId !== undefined) {
    return conflict(
      `Result ${body.resultId} is another run's: each run is posted under the result id it was given`,
    )
  }
  posted.jobsOfIds.set(body.resultId, jobId)
  return storeTaken(ctx, agent, check, posted.accounts, body, claims.verdict)
}

/** Stores a posted outcome, scrubbed again of the values to hide; a deleted check refuses it. */
async function storeTaken(
  ctx: ServiceContext,
  agent: AgentRunner,
  check: ResolvedCheck,
  accounts: AccountVariables,
  body: JobResultBody,
  verdict: JobResultBody['outcome']['verdict'],
): Promise<HttpError | null> {
  const { hidden } = await runVariables(ctx, check, accounts)
  // Stored under its type's key, as the runner files it: another key would stand beside (or over) the
  // result's own fields (`id`, `runLocation`) wherever results are read.
  const detailKey = DETAIL_KEYS[check.row.check_type as keyof typeof DETAIL_KEYS] ?? body.outcome.detailKey
  const outcome = new Scrubber(hidden).deep({ ...body.outcome, verdict, detailKey } as RunOutcome)
  const job = {
    slotKey: body.slotKey,
    location: body.location,
    attempt: body.attempt,
    firstStartedMs: body.firstStartedMs,
  }
  return recordOutcome(ctx, agent.owner, check, job, outcome, {
    resultId: body.resultId,
    locationName: agent.location.slug_name,
    slotMove:
      body.attempt === 1 && !isTriggerJob(job) ? slotMoveOf(ctx, agent, check, body.slotKey) : undefined,
  }).then(
    () => null,
    // Deleted since it was looked up: refused as a deleted check is, the others still stored.
    (error: unknown) => {
      if (error instanceof CheckDeletedError) return error
      throw error
    },
  )
}

/**
 * The runs among `bodies`' jobs that the agent's location holds, by job id with their check: a slot, a
 * retry or a one-off run leased to one of its agents (any of them: a run whose lease ran out goes to
 * another agent of the location, and the first one's late result still counts).
 */
export async function openJobsOf(
  ctx: ServiceContext,
  agent: AgentRunner,
  bodies: RunOf[],
): Promise<Map<string, OpenJob>> {
  const isSlotRun = (body: RunOf) => body.attempt === 1 && !isTriggerJob(body)
  const unique = (values: string[]) => [...new Set(values)]
  const [slots, retries] = await Promise.all([
    leasedSlotsOf(ctx, agent.key, unique(bodies.filter(isSlotRun).map((body) => body.checkId))),
    leasedRetriesOf(
      ctx,
      agent.key,
      unique(bodies.filter((body) => !isSlotRun(body)).map((body) => body.slotKey)),
    ),
  ])
  return new Map<string, OpenJob>([
    ...slots.map((slot) => [slotKeyOf(slot), { checkId: slot.checkId, dueMs: slot.dueMs }] as const),
    ...retries.map(
      (retry) =>
        [
          jobIdOf(retry),
          { checkId: retry.checkId, dueMs: retry.dueMs, firstStartedMs: retry.firstStartedMs },
        ] as const,
    ),
  ])
}

export type RunOf = Pick<JobResultBody, 'checkId' | 'slotKey' | 'attempt'>

/** A first attempt's slot moves on in the transaction that stores its result, as in-process runs do. */
function slotMoveOf(
  ctx: ServiceContext,
  agent: AgentRunner,
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
