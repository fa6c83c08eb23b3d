import type { RootCauseAnalysesTable } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `root_cause_analyses`. */

export async function insertAnalysis(ctx: ServiceContext, row: RootCauseAnalysesTable): Promise<void> {
  await ctx.db.insertInto('root_cause_analyses').values(row).execute()
}

export async function findAnalysis(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('root_cause_analyses')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * Claims the oldest job that is pending, or running under a lease that ran out (its node died): it is
 * RUNNING under `owner` until `leaseUntilMs`, and its attempts counted. Undefined when there is none.
 */
export async function claimNext(ctx: ServiceContext, owner: string, nowMs: number, leaseUntilMs: number) {
  let next = ctx.db
    .selectFrom('root_cause_analyses')
    .select('id')
    .where((eb) =>
      eb.or([
        eb('status', '=', 'PENDING'),
        eb.and([eb('status', '=', 'RUNNING'), eb('lease_until_ms', '<', nowMs)]),
      ]),
    )
    .orderBy('created_at')
    .limit(1)
  if (ctx.engine === 'postgres') next = next.forUpdate().skipLocked()
  return ctx.db
    .updateTable('root_cause_analyses')
    .set({
      status: 'RUNNING',
      lease_owner: owner,
      lease_until_ms: leaseUntilMs,
      attempts: sql<number>`attempts + 1`,
      updated_at: new Date(nowMs).toISOString(),
    })
    .where('id', '=', next)
    .returningAll()
    .executeTakeFirst()
}

/** Extends the lease of a job this owner still holds; false when it was taken over. */
export async function renewLease(ctx: ServiceContext, id: string, owner: string, leaseUntilMs: number) {
  const result = await ctx.db
    .updateTable('root_cause_analyses')
    .set({ lease_until_ms: leaseUntilMs })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'RUNNING')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Ends a job this owner holds as COMPLETED or FAILED; false when another node took it over meanwhile. */
export async function finishAnalysis(
  ctx: ServiceContext,
  id: string,
  owner: string,
  outcome: Pick<
    RootCauseAnalysesTable,
    | 'status'
    | 'analysis'
    | 'failure_reason'
    | 'provider'
    | 'model'
    | 'duration_ms'
    | 'completed_at'
    | 'updated_at'
  >,
): Promise<boolean> {
  const result = await ctx.db
    .updateTable('root_cause_analyses')
    .set({ ...outcome, lease_owner: null, lease_until_ms: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'RUNNING')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** When the earliest lease of a running job ends (its node may have died then); undefined when none runs. */
export async function nextLeaseEndMs(ctx: ServiceContext): Promise<number | undefined> {
  const row = await ctx.db
    .selectFrom('root_cause_analyses')
    .select((eb) => eb.fn.min('lease_until_ms').as('until'))
    .where('status', '=', 'RUNNING')
    .executeTakeFirst()
  return row?.until == null ? undefined : Number(row.until) + 1
}
