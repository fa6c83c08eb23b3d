import { type DashboardsTable, fetchPage } from '@svc/db'
import type { Insertable, Updateable } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `dashboards`. */

export async function insertDashboard(ctx: ServiceContext, row: Insertable<DashboardsTable>) {
  return ctx.db.insertInto('dashboards').values(row).returningAll().executeTakeFirstOrThrow()
}

/** By `public_id`, `custom_url` or `custom_domain`; `accountId` undefined: of any account. */
export async function findDashboardBy(
  ctx: ServiceContext,
  column: 'public_id' | 'custom_url' | 'custom_domain' | 'id',
  value: string | number,
  accountId?: string,
) {
  let query = ctx.db
    .selectFrom('dashboards')
    .selectAll()
    .where(column, '=', value as never)
  if (accountId !== undefined) query = query.where('account_id', '=', accountId)
  return query.executeTakeFirst()
}

export async function listDashboards(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('dashboards').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('id'), page)
}

export async function updateDashboard(
  ctx: ServiceContext,
  accountId: string,
  id: number,
  changes: Updateable<DashboardsTable>,
) {
  return ctx.db
    .updateTable('dashboards')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteDashboard(ctx: ServiceContext, accountId: string, id: number): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('dashboards')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
