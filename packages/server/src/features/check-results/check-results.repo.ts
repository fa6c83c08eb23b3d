import type { CheckResultsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `check_results`. */

/** Stores a result once per job id: a job re-run after a lost lease can't store it twice. */
export async function insertResultOnce(ctx: ServiceContext, row: CheckResultsTable): Promise<boolean> {
  const inserted = await ctx.db
    .insertInto('check_results')
    .values(row)
    .onConflict((oc) => oc.column('job_id').doNothing())
    .returning('id')
    .executeTakeFirst()
  return inserted !== undefined
}

export interface ResultFilter {
  fromIso?: string
  toIso?: string
  location?: string
  hasFailures?: boolean
  resultType?: string
}

export async function listResults(
  ctx: ServiceContext,
  checkId: string,
  filter: ResultFilter,
  page: { limit: number; offset: number },
) {
  let query = ctx.db.selectFrom('check_results').where('check_id', '=', checkId)
  if (filter.fromIso) query = query.where('started_at', '>=', filter.fromIso)
  if (filter.toIso) query = query.where('started_at', '<=', filter.toIso)
  if (filter.location) query = query.where('run_location', '=', filter.location)
  if (filter.hasFailures !== undefined) query = query.where('has_failures', '=', filter.hasFailures)
  if (filter.resultType) query = query.where('result_type', '=', filter.resultType)
  const [rows, total] = await Promise.all([
    query
      .selectAll()
      .orderBy('started_at', 'desc')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(total.n) }
}

export async function findResult(ctx: ServiceContext, checkId: string, resultId: string) {
  return ctx.db
    .selectFrom('check_results')
    .selectAll()
    .where('check_id', '=', checkId)
    .where('id', '=', resultId)
    .executeTakeFirst()
}
