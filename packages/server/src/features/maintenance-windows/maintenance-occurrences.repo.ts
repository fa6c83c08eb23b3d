import type { MaintenanceOccurrencesTable, MaintenanceOccurrenceUpdatesTable } from '@svc/db'
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { foldReadsChanged } from '../../fold-reads.ts'

/** The only SQL for `maintenance_occurrences` and `maintenance_occurrence_updates`. */

export type OccurrenceRow = Selectable<MaintenanceOccurrencesTable>
export type OccurrenceUpdateRow = Selectable<MaintenanceOccurrenceUpdatesTable>

export async function occurrencesOfWindow(ctx: ServiceContext, windowId: number) {
  return ctx.db.selectFrom('maintenance_occurrences').selectAll().where('window_id', '=', windowId).execute()
}

export async function findOccurrence(ctx: ServiceContext, windowId: number, occurrence: number) {
  return ctx.db
    .selectFrom('maintenance_occurrences')
    .selectAll()
    .where('window_id', '=', windowId)
    .where('occurrence', '=', occurrence)
    .executeTakeFirst()
}

/** The account's changed occurrences whose original or current span covers `atIso`, with their window's tags. */
export async function occurrencesCovering(ctx: ServiceContext, accountId: string, atIso: string) {
  return ctx.db
    .selectFrom('maintenance_occurrences as o')
    .innerJoin('maintenance_windows as w', 'w.id', 'o.window_id')
    .select(['o.window_id', 'o.occurrence', 'o.starts_at', 'o.ends_at', 'o.status', 'w.tags'])
    .where('o.account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        eb.and([eb('o.starts_at', '<=', atIso), eb('o.ends_at', '>', atIso)]),
        eb.and([eb('o.original_starts_at', '<=', atIso), eb('o.original_ends_at', '>', atIso)]),
      ]),
    )
    .execute()
}

/** Every changed occurrence of the account, with its window's tags: `covering` picks those of an instant. */
export async function occurrencesOfAccount(ctx: ServiceContext, accountId: string) {
  return ctx.db
    .selectFrom('maintenance_occurrences as o')
    .innerJoin('maintenance_windows as w', 'w.id', 'o.window_id')
    .select(['o.window_id', 'o.occurrence', 'o.starts_at', 'o.ends_at', 'o.status', 'w.tags'])
    .select(['o.original_starts_at', 'o.original_ends_at'])
    .where('o.account_id', '=', accountId)
    .execute()
}

/** `occurrencesCovering`'s condition, for occurrences held in memory (`occurrencesOfAccount`). */
export const covering = (
  o: { starts_at: string; ends_at: string; original_starts_at: string; original_ends_at: string },
  atIso: string,
): boolean =>
  (o.starts_at <= atIso && o.ends_at > atIso) || (o.original_starts_at <= atIso && o.original_ends_at > atIso)

/** The changed occurrences of `windowIds`: to apply to their schedules over a span. */
export async function occurrencesOfWindows(ctx: ServiceContext, windowIds: number[]) {
  if (windowIds.length === 0) return []
  return ctx.db
    .selectFrom('maintenance_occurrences')
    .selectAll()
    .where('window_id', 'in', windowIds)
    .execute()
}

export async function upsertOccurrence(ctx: ServiceContext, row: Insertable<MaintenanceOccurrencesTable>) {
  await ctx.db
    .insertInto('maintenance_occurrences')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['window_id', 'occurrence']).doUpdateSet({
        starts_at: row.starts_at,
        ends_at: row.ends_at,
        status: row.status,
        updated_at: row.updated_at,
      }),
    )
    .execute()
  await foldReadsChanged(ctx)
}

/** Forgets every changed occurrence of a window, with their updates: its schedule changed under them. */
export async function deleteOccurrencesOfWindow(ctx: ServiceContext, windowId: number) {
  await ctx.db.deleteFrom('maintenance_occurrence_updates').where('window_id', '=', windowId).execute()
  await ctx.db.deleteFrom('maintenance_occurrences').where('window_id', '=', windowId).execute()
  await foldReadsChanged(ctx)
}

export async function updatesOfWindow(ctx: ServiceContext, windowId: number) {
  return ctx.db
    .selectFrom('maintenance_occurrence_updates')
    .selectAll()
    .where('window_id', '=', windowId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export async function findUpdate(ctx: ServiceContext, windowId: number, occurrence: number, id: string) {
  return ctx.db
    .selectFrom('maintenance_occurrence_updates')
    .selectAll()
    .where('window_id', '=', windowId)
    .where('occurrence', '=', occurrence)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function insertUpdate(ctx: ServiceContext, row: Insertable<MaintenanceOccurrenceUpdatesTable>) {
  return ctx.db
    .insertInto('maintenance_occurrence_updates')
    .values(row)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function changeUpdate(
  ctx: ServiceContext,
  id: string,
  changes: Updateable<MaintenanceOccurrenceUpdatesTable>,
) {
  await ctx.db.updateTable('maintenance_occurrence_updates').set(changes).where('id', '=', id).execute()
}

export async function deleteUpdate(ctx: ServiceContext, id: string) {
  await ctx.db.deleteFrom('maintenance_occurrence_updates').where('id', '=', id).execute()
}
