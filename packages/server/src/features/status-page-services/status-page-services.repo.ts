import { fetchPage, type StatusPageServicesTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `status_page_services` and `status_page_service_checks`. */

export async function insertService(
  ctx: ServiceContext,
  row: StatusPageServicesTable,
  checkIds: string[],
): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    await tx.insertInto('status_page_services').values(row).execute()
    if (checkIds.length > 0) {
      await tx
        .insertInto('status_page_service_checks')
        .values(checkIds.map((check_id) => ({ service_id: row.id, check_id })))
        .execute()
    }
  })
}

export async function replaceService(
  ctx: ServiceContext,
  id: string,
  changes: Pick<StatusPageServicesTable, 'name' | 'description' | 'updated_at'>,
  checkIds: string[],
): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    await tx.updateTable('status_page_services').set(changes).where('id', '=', id).execute()
    await tx.deleteFrom('status_page_service_checks').where('service_id', '=', id).execute()
    if (checkIds.length > 0) {
      await tx
        .insertInto('status_page_service_checks')
        .values(checkIds.map((check_id) => ({ service_id: id, check_id })))
        .execute()
    }
  })
}

export async function findService(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('status_page_services')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function findServices(ctx: ServiceContext, accountId: string, ids: string[]) {
  if (ids.length === 0) return []
  return ctx.db
    .selectFrom('status_page_services')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute()
}

export async function listServices(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('status_page_services').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('created_at').orderBy('id'), page)
}

/** The linked check ids of each of `serviceIds`. */
export async function checkIdsOfServices(
  ctx: ServiceContext,
  serviceIds: string[],
): Promise<Map<string, string[]>> {
  const links = new Map<string, string[]>(serviceIds.map((id) => [id, []]))
  if (serviceIds.length === 0) return links
  const rows = await ctx.db
    .selectFrom('status_page_service_checks')
    .select(['service_id', 'check_id'])
    .where('service_id', 'in', serviceIds)
    .orderBy('check_id')
    .execute()
  for (const row of rows) links.get(row.service_id)?.push(row.check_id)
  return links
}

export async function deleteService(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('status_page_services').where('id', '=', id).execute()
}
