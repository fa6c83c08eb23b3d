import { fetchPage, type StatusPageServicesTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { inTransaction, locked, type RowLock } from '../../transactions.ts'

/** The only SQL for `status_page_services` and `status_page_service_checks`. */

export async function insertService(
  ctx: ServiceContext,
  row: StatusPageServicesTable,
  checkIds: string[],
): Promise<void> {
  await inTransaction(ctx, async ({ db }) => {
    await db.insertInto('status_page_services').values(row).execute()
    if (checkIds.length > 0) {
      await db
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
  await inTransaction(ctx, async ({ db }) => {
    await db.updateTable('status_page_services').set(changes).where('id', '=', id).execute()
    await db.deleteFrom('status_page_service_checks').where('service_id', '=', id).execute()
    if (checkIds.length > 0) {
      await db
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

/** `findService` in a transaction, the row locked as `lock` says (see RowLock) until it ends. */
export async function lockService(ctx: ServiceContext, accountId: string, id: string, lock: RowLock) {
  const query = ctx.db
    .selectFrom('status_page_services')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
  return locked(ctx, query, lock).executeTakeFirst()
}

/** `findServices`, locked as referenced until the transaction ends. */
export async function lockReferencedServices(ctx: ServiceContext, accountId: string, ids: string[]) {
  if (ids.length === 0) return []
  const query = ctx.db
    .selectFrom('status_page_services')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
  return locked(ctx, query, 'referenced').execute()
}

/** Which of `ids` are services (of any account), locked as referenced until the transaction ends. */
export async function lockReferencedServiceIds(ctx: ServiceContext, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return []
  const query = ctx.db.selectFrom('status_page_services').select('id').where('id', 'in', ids).orderBy('id')
  return (await locked(ctx, query, 'referenced').execute()).map((row) => row.id)
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

/** The services `checkId` is linked to. */
export async function servicesOfCheck(ctx: ServiceContext, checkId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('status_page_service_checks')
    .select('service_id')
    .where('check_id', '=', checkId)
    .execute()
  return rows.map((row) => row.service_id)
}

/** Rows per insert: six parameters each, well within both engines' limits. */
const KEPT_DAYS_PER_QUERY = 1000

/**
 * Keeps `days` of `checkId` for each of `serviceIds` (`status_page_service_days`) in place of what they
 * kept of it before: keeping a check's days twice at once (simultaneous requests) keeps them once.
 */
export async function keepServiceDays(
  ctx: ServiceContext,
  checkId: string,
  serviceIds: string[],
  days: { day: string; total: number; failed: number; maintenance: number }[],
): Promise<void> {
  if (serviceIds.length === 0) return
  await ctx.db
    .deleteFrom('status_page_service_days')
    .where('service_id', 'in', serviceIds)
    .where('check_id', '=', checkId)
    .execute()
  // In key order, so that two transactions keeping the same rows wait on each other instead of deadlocking.
  const inOrder = [...days].sort((a, b) => a.day.localeCompare(b.day))
  const rows = [...serviceIds]
    .sort()
    .flatMap((service_id) => inOrder.map((d) => ({ service_id, check_id: checkId, ...d })))
  for (let at = 0; at < rows.length; at += KEPT_DAYS_PER_QUERY) {
    await ctx.db
      .insertInto('status_page_service_days')
      .values(rows.slice(at, at + KEPT_DAYS_PER_QUERY))
      .onConflict((oc) =>
        oc.columns(['service_id', 'check_id', 'day']).doUpdateSet((eb) => ({
          total: eb.ref('excluded.total'),
          failed: eb.ref('excluded.failed'),
          maintenance: eb.ref('excluded.maintenance'),
        })),
      )
      .execute()
  }
}

/** The daily counts `serviceIds` kept of checks deleted or taken off, from `sinceDay` (YYYY-MM-DD). */
export async function serviceDaysOf(ctx: ServiceContext, serviceIds: string[], sinceDay: string) {
  if (serviceIds.length === 0) return []
  return ctx.db
    .selectFrom('status_page_service_days')
    .selectAll()
    .where('service_id', 'in', serviceIds)
    .where('day', '>=', sinceDay)
    .execute()
}

/** Drops the kept daily counts of the account's services before `beforeDay` (result retention). */
export async function pruneServiceDays(ctx: ServiceContext, accountId: string, beforeDay: string) {
  await ctx.db
    .deleteFrom('status_page_service_days')
    .where('day', '<', beforeDay)
    .where('service_id', 'in', (eb) =>
      eb.selectFrom('status_page_services').select('id').where('account_id', '=', accountId),
    )
    .execute()
}

export async function deleteService(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('status_page_services').where('id', '=', id).execute()
}
