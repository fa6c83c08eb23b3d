import {
  fetchPage,
  type IncidentComponentImpactsTable,
  type IncidentsTable,
  type IncidentUpdatesTable,
} from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `incidents`, `incident_updates` and `incident_component_impacts`. */

export async function insertIncident(ctx: ServiceContext, row: IncidentsTable): Promise<void> {
  await ctx.db.insertInto('incidents').values(row).execute()
}

export async function findIncident(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('incidents')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** Reads the incident and, on PostgreSQL, locks it until the transaction ends (SQLite has one writer). */
export async function lockIncident(ctx: ServiceContext, id: string) {
  const query = ctx.db.selectFrom('incidents').selectAll().where('id', '=', id)
  return (ctx.engine === 'postgres' ? query.forUpdate() : query).executeTakeFirst()
}

export async function listIncidents(
  ctx: ServiceContext,
  pageId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('incidents').where('status_page_id', '=', pageId)
  return fetchPage(query, (q) => q.selectAll().orderBy('updated_at', 'desc').orderBy('id'), page)
}

export async function listIncidentsOfAccount(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('incidents').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('updated_at', 'desc').orderBy('id'), page)
}

/** Incidents (as `n`) that overlapped the window since `sinceIso`: ongoing, started in it, or resolved in it. */
function overlappedWindowSince(sinceIso: string) {
  return sql<boolean>`(n.last_update_status != 'RESOLVED' or n.started_at >= ${sinceIso} or n.resolved_at >= ${sinceIso})`
}

/**
 * The page's incidents that are ongoing, or started or resolved at or after `sinceIso`: the ongoing ones
 * first (so however many incidents started since, one still going is never cut off), each part newest
 * first.
 */
export async function recentIncidentsOfPage(
  ctx: ServiceContext,
  pageId: string,
  sinceIso: string,
  limit: number,
) {
  return ctx.db
    .selectFrom('incidents as n')
    .selectAll('n')
    .where('n.status_page_id', '=', pageId)
    .where(overlappedWindowSince(sinceIso))
    .orderBy(sql`case when last_update_status = 'RESOLVED' then 1 else 0 end`)
    .orderBy('started_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute()
}

/**
 * The impacts of every incident of the page that overlapped the window since `sinceIso` (as
 * `recentIncidentsOfPage` selects them, without its limit: a busy page's older incidents still colour
 * their days), with their incident's resolution; in the order `impactsOfIncidents` gives.
 */
export async function impactsOfPageSince(ctx: ServiceContext, pageId: string, sinceIso: string) {
  return ctx.db
    .selectFrom('incident_component_impacts as i')
    .innerJoin('incidents as n', 'n.id', 'i.incident_id')
    .selectAll('i')
    .select('n.resolved_at as incident_resolved_at')
    .where('n.status_page_id', '=', pageId)
    .where(overlappedWindowSince(sinceIso))
    .orderBy('i.started_at')
    .orderBy('i.created_at')
    .orderBy('i.id')
    .execute()
}

/** `impactChangesOf` for the impacts `impactsOfPageSince` answers, in one statement. */
export async function impactChangesOfPageSince(ctx: ServiceContext, pageId: string, sinceIso: string) {
  const rows = await ctx.db
    .selectFrom('incident_impact_changes as c')
    .innerJoin('incident_component_impacts as i', 'i.id', 'c.impact_id')
    .innerJoin('incidents as n', 'n.id', 'i.incident_id')
    .select(['c.impact_id', 'c.status', 'c.until'])
    .where('n.status_page_id', '=', pageId)
    .where(overlappedWindowSince(sinceIso))
    .orderBy('c.until')
    .execute()
  const byImpact = new Map<string, { status: string; until: string }[]>()
  for (const row of rows) {
    const list = byImpact.get(row.impact_id) ?? []
    list.push({ status: row.status, until: row.until })
    byImpact.set(row.impact_id, list)
  }
  return byImpact
}

/**
 * The update statuses and dates of the incidents `impactsOfPageSince` reads, in each incident's order:
 * when each was resolved, and reopened.
 */
export async function updateTimesOfPageSince(ctx: ServiceContext, pageId: string, sinceIso: string) {
  return ctx.db
    .selectFrom('incident_updates as u')
    .innerJoin('incidents as n', 'n.id', 'u.incident_id')
    .select(['u.incident_id', 'u.status', 'u.public_date'])
    .where('n.status_page_id', '=', pageId)
    .where(overlappedWindowSince(sinceIso))
    .orderBy('u.public_date')
    .orderBy('u.seq')
    .execute()
}

export async function ongoingIncidentsOfCheck(ctx: ServiceContext, checkId: string) {
  return ctx.db
    .selectFrom('incidents')
    .selectAll()
    .where('source_check_id', '=', checkId)
    .where('last_update_status', '!=', 'RESOLVED')
    .execute()
}

export async function setIncident(
  ctx: ServiceContext,
  id: string,
  changes: Partial<Omit<IncidentsTable, 'id' | 'account_id' | 'status_page_id' | 'created_at'>>,
): Promise<void> {
  await ctx.db.updateTable('incidents').set(changes).where('id', '=', id).execute()
}

export async function deleteIncident(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('incidents').where('id', '=', id).execute()
}

export async function insertUpdates(ctx: ServiceContext, rows: IncidentUpdatesTable[]): Promise<void> {
  if (rows.length > 0) await ctx.db.insertInto('incident_updates').values(rows).execute()
}

export async function nextUpdateSeq(ctx: ServiceContext, incidentId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('incident_updates')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('incident_id', '=', incidentId)
    .executeTakeFirst()
  return Number(row?.seq ?? 0) + 1
}

/** Updates of each incident in the order they are shown as posted (public date, then posting order). */
export async function updatesOfIncidents(ctx: ServiceContext, incidentIds: string[]) {
  const byIncident = new Map<string, IncidentUpdatesTable[]>(incidentIds.map((id) => [id, []]))
  if (incidentIds.length === 0) return byIncident
  const rows = await ctx.db
    .selectFrom('incident_updates')
    .selectAll()
    .where('incident_id', 'in', incidentIds)
    .orderBy('public_date')
    .orderBy('seq')
    .execute()
  for (const row of rows) byIncident.get(row.incident_id)?.push(row)
  return byIncident
}

export async function findUpdate(ctx: ServiceContext, incidentId: string, id: string) {
  return ctx.db
    .selectFrom('incident_updates')
    .selectAll()
    .where('incident_id', '=', incidentId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function setUpdate(
  ctx: ServiceContext,
  id: string,
  changes: Pick<
    IncidentUpdatesTable,
    'description' | 'status' | 'public_date' | 'notify_subscribers' | 'updated_at'
  >,
): Promise<void> {
  await ctx.db.updateTable('incident_updates').set(changes).where('id', '=', id).execute()
}

export async function deleteUpdate(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('incident_updates').where('id', '=', id).execute()
}

export async function impactsOfIncidents(ctx: ServiceContext, incidentIds: string[]) {
  const byIncident = new Map<string, IncidentComponentImpactsTable[]>(incidentIds.map((id) => [id, []]))
  if (incidentIds.length === 0) return byIncident
  const rows = await ctx.db
    .selectFrom('incident_component_impacts')
    .selectAll()
    .where('incident_id', 'in', incidentIds)
    .orderBy('started_at')
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  for (const row of rows) byIncident.get(row.incident_id)?.push(row)
  return byIncident
}

export async function insertImpact(ctx: ServiceContext, row: IncidentComponentImpactsTable): Promise<void> {
  await ctx.db.insertInto('incident_component_impacts').values(row).execute()
}

export async function setImpact(
  ctx: ServiceContext,
  id: string,
  changes: Partial<Pick<IncidentComponentImpactsTable, 'status' | 'declared_status' | 'ended_at'>>,
): Promise<void> {
  await ctx.db.updateTable('incident_component_impacts').set(changes).where('id', '=', id).execute()
}

/** Records that an open impact held `status` until `until` (it changed to another non-operational status). */
export async function recordImpactChange(
  ctx: ServiceContext,
  row: { impact_id: string; status: string; until: string },
): Promise<void> {
  await ctx.db
    .insertInto('incident_impact_changes')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .execute()
}

/** Open impacts (no end yet) of the page's ongoing incidents: they set their components' status. */
export async function openImpactsOfPage(ctx: ServiceContext, pageId: string) {
  return ctx.db
    .selectFrom('incident_component_impacts as i')
    .innerJoin('incidents as n', 'n.id', 'i.incident_id')
    .select(['i.service_id', 'i.status'])
    .where('n.status_page_id', '=', pageId)
    .where('n.last_update_status', '!=', 'RESOLVED')
    .where('i.ended_at', 'is', null)
    .execute()
}
