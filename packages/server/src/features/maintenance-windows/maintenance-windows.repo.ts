import { fetchPage, type MaintenancePeriodsTable, type MaintenanceWindowsTable } from '@svc/db'
import type { Insertable, Selectable } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { foldReadsChanged } from '../../fold-reads.ts'
import { locked, type RowLock } from '../../transactions.ts'

/** The only SQL for `maintenance_windows` and `maintenance_periods`. */

export type WindowRow = Selectable<MaintenanceWindowsTable>

export async function insertWindow(ctx: ServiceContext, row: Insertable<MaintenanceWindowsTable>) {
  const inserted = await ctx.db
    .insertInto('maintenance_windows')
    .values(row)
    .returningAll()
    .executeTakeFirstOrThrow()
  await foldReadsChanged(ctx)
  return inserted
}

export async function findWindow(ctx: ServiceContext, accountId: string, id: number, lock?: RowLock) {
  const query = ctx.db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
  return (lock ? locked(ctx, query, lock) : query).executeTakeFirst()
}

/** A bound on a window's first start or end: stored instants are ISO strings in UTC, so they compare as text. */
export interface WindowBound {
  column: 'starts_at' | 'ends_at'
  op: '>' | '>=' | '<' | '<='
  iso: string
}

export async function listWindows(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
  bounds: WindowBound[] = [],
) {
  let query = ctx.db.selectFrom('maintenance_windows').where('account_id', '=', accountId)
  for (const { column, op, iso } of bounds) query = query.where(column, op, iso)
  return fetchPage(query, (q) => q.selectAll().orderBy('id'), page)
}

/** The account's windows whose first occurrence started by `atIso` (ended ones too): for past days. */
export async function windowsFirstStartedBy(ctx: ServiceContext, accountId: string, atIso: string) {
  return ctx.db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('starts_at', '<=', atIso)
    .execute()
}

/** Every window of the account that may cover `atIso`: started, and not over for good. */
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

/** `windowsStartedBy`'s condition, for windows held in memory (`windowsOfAccount`). */
export const startedBy = (w: WindowRow, atIso: string): boolean =>
  w.starts_at <= atIso &&
  (w.ends_at > atIso || (w.repeat_unit !== null && (w.repeat_ends_at === null || w.repeat_ends_at > atIso)))

/** Every window of the account. */
export async function windowsOfAccount(ctx: ServiceContext, accountId: string) {
  return ctx.db.selectFrom('maintenance_windows').selectAll().where('account_id', '=', accountId).execute()
}

export async function updateWindow(
  ctx: ServiceContext,
  id: number,
  changes: Omit<Insertable<MaintenanceWindowsTable>, 'id' | 'account_id' | 'created_at'>,
) {
  await ctx.db.updateTable('maintenance_windows').set(changes).where('id', '=', id).execute()
  await foldReadsChanged(ctx)
}

export async function deleteWindow(ctx: ServiceContext, id: number) {
  await ctx.db.deleteFrom('maintenance_windows').where('id', '=', id).execute()
  await foldReadsChanged(ctx)
}

/** Rows per insert: four parameters each, well within both engines' limits. */
const PERIODS_PER_QUERY = 1000

export async function insertPeriods(ctx: ServiceContext, rows: Insertable<MaintenancePeriodsTable>[]) {
  for (let at = 0; at < rows.length; at += PERIODS_PER_QUERY)
    await ctx.db
      .insertInto('maintenance_periods')
      .values(rows.slice(at, at + PERIODS_PER_QUERY))
      .execute()
}

/** The account's kept periods overlapping [fromIso, toIso]. */
export async function periodsBetween(ctx: ServiceContext, accountId: string, fromIso: string, toIso: string) {
  return ctx.db
    .selectFrom('maintenance_periods')
    .select(['tags', 'starts_at', 'ends_at'])
    .where('account_id', '=', accountId)
    .where('ends_at', '>', fromIso)
    .where('starts_at', '<=', toIso)
    .execute()
}

/** Drops the account's kept periods over by `beforeIso` (result retention). */
export async function prunePeriods(ctx: ServiceContext, accountId: string, beforeIso: string) {
  await ctx.db
    .deleteFrom('maintenance_periods')
    .where('account_id', '=', accountId)
    .where('ends_at', '<=', beforeIso)
    .execute()
}
