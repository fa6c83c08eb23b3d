import type { CheckType } from '@svc/core'
import type { RunOutcome } from '@svc/runner'
import type { ServiceContext } from '../../context.ts'
import { badRequest, conflict, notFound } from '../../http/errors.ts'
import { cancelClaimedJobs, cancelWaitingJobs } from '../../runs/cancel-jobs.ts'
import { locationNameOf } from '../../runs/jobs.ts'
import { cancelledBeforeStart } from '../../runs/prepare.ts'
import { storeAttempt } from '../../runs/record.ts'
import { runAttempt } from '../../runs/run-attempt.ts'
import { RUNNABLE_CHECK_TYPES } from '../../runs/run-check.ts'
import { PROCESS_RUNNER, waitCancellable } from '../../runs/suite-cancellation.ts'
import { requestSuiteCancel } from '../../runs/suite-runs.repo.ts'
import { triggerOnAgent } from '../agent-protocol/agent-protocol.service.ts'
import { getGroup } from '../check-groups/check-groups.service.ts'
import { getResult } from '../check-results/check-results.service.ts'
import { newResultId } from '../check-results/result-id.ts'
import { privateLocationIdOf } from '../private-locations/location-keys.ts'
import { aCheckType } from './check-type-names.ts'
import * as repo from './checks.repo.ts'
import { type ResolvedCheck, resolveCheck, resolveChecks } from './resolve-check.ts'

/** Runs of checks on request: `POST /v1/checks/{id}/trigger`, a group's trigger, and their cancellation. */

/**
 * Runs one attempt now (activated or not, no retries) in the check's first location and stores it as
 * an ordinary result; answers that result.
 */
export async function triggerCheck(ctx: ServiceContext, accountId: string, id: string) {
  const row = await repo.findCheck(ctx, accountId, id)
  if (!row) throw notFound(`Check ${id} not found`)
  const checkType = row.check_type as CheckType
  if (!RUNNABLE_CHECK_TYPES.includes(checkType)) {
    throw badRequest(`${checkType} checks don't run: they are judged from their pings`)
  }
  return runOnceNow(ctx, await resolveCheck(ctx, row))
}

/**
 * Asks every run of a Playwright check suite in flight to stop, wherever it runs (this or another
 * node, a `svc runner`, an agent) and however it started: each stops and stores a cancelled result.
 * Runs not started (queued for an agent, waiting in a group trigger or out a retry's backoff) end
 * cancelled without starting.
 */
export async function cancelCheckRuns(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  hooks: { beforeStore?: () => Promise<void> } = {},
): Promise<void> {
  const row = await repo.findCheck(ctx, accountId, id)
  if (!row) throw notFound(`Check ${id} not found`)
  if (row.check_type !== 'AUTOMATION') {
    throw badRequest(
      `Only AUTOMATION checks (Playwright check suites) can be cancelled; this is ${aCheckType(row.check_type)} check`,
    )
  }
  // Runs in flight or waiting for their turn on some node are asked to stop; runs waiting in the store
  // for a runner (an agent, a retry's backoff) end here.
  const nowMs = ctx.clock.now().getTime()
  // Runs in flight, and runs a runner claimed but has not recorded yet (they are in progress too).
  const asked = (await requestSuiteCancel(ctx, id, nowMs)) + (await cancelClaimedJobs(ctx, id, nowMs))
  // A check deleted meanwhile took its runs with it, and storing their cancelled results fails: 404.
  const deleted = async () =>
    (await repo.findCheck(ctx, accountId, id))
      ? undefined
      : notFound(`Check ${id} not found: it was deleted while its runs were cancelled`)
  const ended = await cancelWaitingJobs(ctx, await resolveCheck(ctx, row), hooks.beforeStore).catch(
    async (error: unknown) => {
      throw (await deleted()) ?? error
    },
  )
  if (asked + ended === 0) throw (await deleted()) ?? conflict(`Check ${id} has no run in progress`)
}

/**
 * Runs every check of a group once now, as a CI/CD pipeline would: in `groupOrder` (then creation),
 * at most the group's `concurrency` at a time, activated or not, no retries. Answers the results in
 * that order. Heartbeats, judged from their pings, and checks deleted while they ran are left out.
 */
export async function triggerGroup(ctx: ServiceContext, accountId: string, groupId: number) {
  const { concurrency = 3 } = await getGroup(ctx, accountId, groupId)
  const rows = (await repo.listChecksOfGroup(ctx, accountId, groupId)).filter((row) =>
    RUNNABLE_CHECK_TYPES.includes(row.check_type as CheckType),
  )
  const checks = (await resolveChecks(ctx, accountId, rows)).sort(
    (a, b) =>
      (a.definition.groupOrder ?? Number.MAX_SAFE_INTEGER) -
        (b.definition.groupOrder ?? Number.MAX_SAFE_INTEGER) ||
      a.row.created_at.localeCompare(b.row.created_at),
  )
  const runIds = checks.map(() => newResultId())
  const jobIdAt = (index: number) => `trigger:${runIds[index]}`
  // Suites waiting for their turn are in the store, so a cancel asked of any node reaches them.
  const waiting = await waitCancellable(
    ctx,
    checks.flatMap((check, index) =>
      check.row.check_type === 'AUTOMATION'
        ? [{ jobId: jobIdAt(index), checkId: check.row.id, runner: PROCESS_RUNNER }]
        : [],
    ),
  )
  const runs: Promise<Awaited<ReturnType<typeof runOnceNow>> | undefined>[] = []
  const start = (index: number) => {
    const check = checks[index] as ResolvedCheck
    runs[index] ??= waiting
      .turn(jobIdAt(index))
      .then((cancelled) => runOnceNow(ctx, check, runIds[index], cancelled))
      .catch(async (error: unknown) => {
        // A check deleted while the group ran has no result to answer; the others still do.
        if (await repo.findCheck(ctx, accountId, check.row.id)) throw error
        return undefined
      })
      .finally(() => waiting.done(jobIdAt(index)))
    return runs[index]
  }
  try {
    // A suite cancelled while it waits for its turn ends then, not at its turn.
    checks.forEach((_, index) => {
      const onCancel = () => void start(index).catch(() => {})
      waiting.signalOf(jobIdAt(index))?.addEventListener('abort', onCancel, { once: true })
    })
    let next = 0
    const worker = async () => {
      while (next < checks.length) await start(next++)
    }
    await Promise.all(Array.from({ length: Math.min(concurrency, checks.length) }, worker))
    return (await Promise.all(runs)).filter((result) => result !== undefined)
  } finally {
    await waiting.release()
  }
}

/**
 * One attempt now in the check's first location, stored as an ordinary final result: in this process
 * for a data-center location, on an agent for a private one. A suite whose `cancelled` signal aborted
 * while it waited for its turn ends cancelled without starting.
 */
async function runOnceNow(
  ctx: ServiceContext,
  check: ResolvedCheck,
  runId = newResultId(),
  cancelled?: AbortSignal,
) {
  const location = check.runLocations[0] ?? ctx.locations.defaults[0] ?? 'local'
  const jobId = `trigger:${runId}`
  if (cancelled?.aborted) {
    const outcome = await cancelledBeforeStart(ctx, check, location)
    const locationName = await locationNameOf(ctx, check.row.account_id, location)
    return storeTriggered(ctx, check, locationName, outcome, runId)
  }
  if (privateLocationIdOf(location)) return triggerOnAgent(ctx, check, location, jobId)
  const outcome = await runAttempt(ctx, check, { location, resultId: runId, jobId })
  return storeTriggered(ctx, check, location, outcome, runId)
}

/** Stores a triggered run's outcome as a final result; answers that result. */
async function storeTriggered(
  ctx: ServiceContext,
  check: ResolvedCheck,
  locationName: string,
  outcome: RunOutcome,
  runId: string,
) {
  const resultId = await storeAttempt(ctx, check, locationName, outcome, {
    resultId: runId,
    jobId: `trigger:${runId}`,
    attempts: 1,
    resultType: 'FINAL',
  }).catch(async (error: unknown) => {
    // Deleted while it ran (a script run takes minutes): its result has no check to belong to.
    if (await repo.findCheck(ctx, check.row.account_id, check.row.id)) throw error
    await ctx.scripts.artifacts.removeResult(check.row.id, runId).catch(() => {})
    throw notFound(`Check ${check.row.id} not found: it was deleted while it ran`)
  })
  if (!resultId) throw new Error('a fresh trigger job id stored no result')
  return getResult(ctx, check.row.account_id, check.row.id, resultId)
}
