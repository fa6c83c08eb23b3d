import { apartFromCommitRecords } from '@svc/db'
import type { ServiceContext } from '../context.ts'

/**
 * The only SQL for `suite_runs`: Playwright check suite runs in flight, wherever they run, and those
 * waiting for their turn in a group trigger, so a cancel asked of any node reaches them through the store.
 * Recording, renewing and forgetting runs is bookkeeping, none of a request's changes (a request failing
 * after it saved nothing); a cancel asked is one.
 */

export interface SuiteRun {
  jobId: string
  checkId: string
  /** Who runs it: a scheduler's lease owner, a server process (triggers) or an agent's lease owner. */
  runner: string
}

/**
 * Records runs starting or waiting for their turn (`aliveUntilMs` from now). A job recorded again (its
 * turn came, or it runs again after a lost lease) takes its row over and keeps a cancel asked of it:
 * answers the jobs asked to stop already.
 */
export async function saveSuiteRuns(
  ctx: ServiceContext,
  runs: SuiteRun[],
  aliveUntilMs: number,
): Promise<string[]> {
  if (runs.length === 0) return []
  const saved = await apartFromCommitRecords(() =>
    ctx.db
      .insertInto('suite_runs')
      .values(
        runs.map((run) => ({
          job_id: run.jobId,
          check_id: run.checkId,
          runner: run.runner,
          alive_until_ms: aliveUntilMs,
          cancel_requested_ms: null,
        })),
      )
      .onConflict((oc) =>
        oc.column('job_id').doUpdateSet((eb) => ({
          runner: eb.ref('excluded.runner'),
          alive_until_ms: eb.ref('excluded.alive_until_ms'),
        })),
      )
      .returning(['job_id', 'cancel_requested_ms'])
      .execute(),
  )
  return saved.filter((row) => row.cancel_requested_ms !== null).map((row) => row.job_id)
}

/** Forgets runs that ended (their results are in, or they were given up), of `runner` when given. */
export async function deleteSuiteRuns(ctx: ServiceContext, jobIds: string[], runner?: string): Promise<void> {
  if (jobIds.length === 0) return
  let query = ctx.db.deleteFrom('suite_runs').where('job_id', 'in', jobIds)
  if (runner) query = query.where('runner', '=', runner)
  await apartFromCommitRecords(() => query.execute())
}

/**
 * Keeps runs alive while their runner is (`jobIds` of this process, or every run of an agent), and
 * forgets the runs of runners that died mid-run.
 */
export async function renewSuiteRuns(
  ctx: ServiceContext,
  mine: { jobIds: string[] } | { runner: string },
  nowMs: number,
  aliveUntilMs: number,
): Promise<void> {
  let renew = ctx.db.updateTable('suite_runs').set({ alive_until_ms: aliveUntilMs })
  if ('runner' in mine) renew = renew.where('runner', '=', mine.runner)
  else if (mine.jobIds.length > 0) renew = renew.where('job_id', 'in', mine.jobIds)
  else return
  await apartFromCommitRecords(async () => {
    await renew.execute()
    await ctx.db.deleteFrom('suite_runs').where('alive_until_ms', '<', nowMs).execute()
  })
}

/** Which of these runs (`jobIds` of this process, or every run of an agent) were asked to stop. */
export async function cancelledSuiteRuns(
  ctx: ServiceContext,
  mine: { jobIds: string[] } | { runner: string },
): Promise<string[]> {
  let query = ctx.db.selectFrom('suite_runs').select('job_id').where('cancel_requested_ms', 'is not', null)
  if ('runner' in mine) query = query.where('runner', '=', mine.runner)
  else if (mine.jobIds.length > 0) query = query.where('job_id', 'in', mine.jobIds)
  else return []
  return (await query.execute()).map((row) => row.job_id)
}

/** Asks every run of the check in flight (or waiting for its turn) to stop; answers how many were asked. */
export async function requestSuiteCancel(ctx: ServiceContext, checkId: string, nowMs: number) {
  const result = await ctx.db
    .updateTable('suite_runs')
    .set((eb) => ({ cancel_requested_ms: eb.fn.coalesce('cancel_requested_ms', eb.val(nowMs)) }))
    .where('check_id', '=', checkId)
    .where('alive_until_ms', '>=', nowMs)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * Asks runs a runner claimed to stop, recorded or not yet (`saveSuiteRuns` of their claimer then answers
 * them asked to stop, so they never start): a cancel landing between a claim and the run's record reaches
 * the run. A row left unrecorded (the claimer dropped the run) goes once `aliveUntilMs` passes.
 */
export async function requestClaimedSuiteCancel(
  ctx: ServiceContext,
  runs: (SuiteRun & { aliveUntilMs: number })[],
  nowMs: number,
): Promise<number> {
  if (runs.length === 0) return 0
  await ctx.db
    .insertInto('suite_runs')
    .values(
      runs.map((run) => ({
        job_id: run.jobId,
        check_id: run.checkId,
        runner: run.runner,
        alive_until_ms: run.aliveUntilMs,
        cancel_requested_ms: nowMs,
      })),
    )
    .onConflict((oc) =>
      oc.column('job_id').doUpdateSet((eb) => ({
        cancel_requested_ms: eb.fn.coalesce('suite_runs.cancel_requested_ms', eb.val(nowMs)),
      })),
    )
    .execute()
  return runs.length
}
