import { type DashboardIncidentsTable, type DashboardIncidentUpdatesTable, fetchPage } from '@svc/db'
import type { Insertable, Updateable } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `dashboard_incidents` and `dashboard_incident_updates`. */

export async function insertIncident(
  ctx: ServiceContext,
  incident: Insertable<DashboardIncidentsTable>,
  updates: Insertable<DashboardIncidentUpdatesTable>[],
) {
  await ctx.db.insertInto('dashboard_incidents').values(incident).execute()
  await insertUpdates(ctx, updates)
}

export function findIncident(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('dashboard_incidents')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** Updates of `incidentIds`, oldest first. */
export function updatesOf(ctx: ServiceContext, incidentIds: string[]) {
  if (incidentIds.length === 0) return Promise.resolve([])
  return ctx.db
    .selectFrom('dashboard_incident_updates')
    .selectAll()
    .where('incident_id', 'in', incidentIds)
    .orderBy('incident_id')
    .orderBy('seq')
    .execute()
}

/** The account's incidents (of one dashboard when `dashboardId` is set), newest first, and how many. */
export async function listIncidents(
  ctx: ServiceContext,
  accountId: string,
  dashboardId: number | undefined,
  page: { limit: number; offset: number },
) {
  let query = ctx.db.selectFrom('dashboard_incidents').where('account_id', '=', accountId)
  if (dashboardId !== undefined) query = query.where('dashboard_id', '=', dashboardId)
  return fetchPage(query, (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id'), page)
}

/** A dashboard's incidents, newest first: those not stopped before `sinceIso`. */
export function incidentsOfDashboard(
  ctx: ServiceContext,
  dashboardId: number,
  sinceIso: string,
  limit: number,
) {
  return ctx.db
    .selectFrom('dashboard_incidents')
    .selectAll()
    .where('dashboard_id', '=', dashboardId)
    .where((eb) => eb.or([eb('stopped_at', 'is', null), eb('stopped_at', '>=', sinceIso)]))
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()
}

export async function updateIncident(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  changes: Updateable<DashboardIncidentsTable>,
) {
  return ctx.db
    .updateTable('dashboard_incidents')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteIncident(ctx: ServiceContext, accountId: string, id: string): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('dashboard_incidents')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function insertUpdates(ctx: ServiceContext, rows: Insertable<DashboardIncidentUpdatesTable>[]) {
  await ctx.db.insertInto('dashboard_incident_updates').values(rows).execute()
}

export async function nextSeq(ctx: ServiceContext, incidentId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('dashboard_incident_updates')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('incident_id', '=', incidentId)
    .executeTakeFirst()
  return row?.seq == null ? 0 : Number(row.seq) + 1
}

export function updateUpdate(
  ctx: ServiceContext,
  incidentId: string,
  id: string,
  changes: Updateable<DashboardIncidentUpdatesTable>,
) {
  return ctx.db
    .updateTable('dashboard_incident_updates')
    .set(changes)
    .where('incident_id', '=', incidentId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteUpdate(ctx: ServiceContext, id: string) {
  await ctx.db.deleteFrom('dashboard_incident_updates').where('id', '=', id).execute()
}
