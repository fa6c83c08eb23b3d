import { fetchPage, type MaintenanceWindowsTable } from '@svc/db'
import type { Insertable, Selectable } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `maintenance_windows`. */

export type WindowRow = Selectable<MaintenanceWindowsTable>

export async function insertWindow(ctx: ServiceContext, row: Insertable<MaintenanceWindowsTable>) {
  return ctx.db.insertInto('maintenance_windows').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findWindow(ctx: ServiceContext, accountId: string, id: number) {
  return ctx.db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function listWindows(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('maintenance_windows').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('id'), page)
}

/** Every window of the account that may cover `atIso`: started, and not over for good. */
/** The account's windows whose first occurrence started by `atIso` (ended ones too): for past days. */
export async function windowsFirstStartedBy(ctx: ServiceContext, accountId: string, atIso: string) {
  return ctx.db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('starts_at', '<=', atIso)
    .execute()
}

export async function windowsStartedBy(ctx: ServiceContext, accountId: string, atIso: string) {
  return ctx.db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('starts_at', '<=', atIso)
    .where((eb) =>
      eb.or([
        eb('ends_at', '>', atIso),
        eb.and([
          eb('repeat_unit', 'is not', null),
          eb.or([eb('repeat_ends_at', 'is', null), eb('repeat_ends_at', '>', atIso)]),
        ]),
      ]),
    )
    .execute()
}

export async function updateWindow(
  ctx: ServiceContext,
  id: number,
  changes: Omit<Insertable<MaintenanceWindowsTable>, 'id' | 'account_id' | 'created_at'>,
) {
  await ctx.db.updateTable('maintenance_windows').set(changes).where('id', '=', id).execute()
}

export async function deleteWindow(ctx: ServiceContext, id: number) {
  await ctx.db.deleteFrom('maintenance_windows').where('id', '=', id).execute()
}
