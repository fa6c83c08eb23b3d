import { randomUUID } from 'node:crypto'
import {
  type DashboardIncidentsTable,
  type DashboardIncidentUpdatesTable,
  isForeignKeyViolation,
} from '@svc/db'
import type { Selectable } from 'kysely'
import { isoNow, type ServiceContext } from '../../context.ts'
import { invalid, notFound } from '../../http/errors.ts'
import { inTransaction } from '../../transactions.ts'
import * as repo from './dashboard-incidents.repo.ts'
import type {
  DashboardIncident,
  DashboardIncidentCreateBody,
  DashboardIncidentEditBody,
  DashboardIncidentUpdate,
  DashboardIncidentUpdateBody,
} from './dashboard-incidents.schemas.ts'
import { findDashboardById } from './dashboards.service.ts'

/**
 * Incidents of dashboards (the hosted `/v1/incidents`): a name, an impact and a period, told in updates.
 * Status pages' incidents are another kind (services with statuses, subscribers mailed): see decisions.md.
 */

type IncidentRow = Selectable<DashboardIncidentsTable>
type UpdateRow = Selectable<DashboardIncidentUpdatesTable>

function toUpdate(row: UpdateRow): DashboardIncidentUpdate {
  return {
    id: row.id,
    incidentId: row.incident_id,
    status: row.status,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

function toIncident(row: IncidentRow, updates: UpdateRow[]): DashboardIncident {
  return {
    id: row.id,
    name: row.name,
    impact: row.impact,
    startedAt: row.started_at,
    stoppedAt: row.stopped_at,
    dashboardId: Number(row.dashboard_id),
    created_at: row.created_at,
    updated_at: row.updated_at,
    incidentUpdates: updates.map(toUpdate),
  }
}

export async function createDashboardIncident(
  ctx: ServiceContext,
  accountId: string,
  body: DashboardIncidentCreateBody,
): Promise<DashboardIncident> {
  assertPeriod(body)
  const missing = () =>
    invalid('body.dashboardId', `names dashboard ${body.dashboardId}, which this account doesn't have`)
  if (!(await findDashboardById(ctx, accountId, body.dashboardId))) throw missing()
  const now = isoNow(ctx)
  const id = randomUUID()
  const incident = {
    id,
    dashboard_id: body.dashboardId,
    account_id: accountId,
    name: body.name,
    impact: body.impact,
    started_at: body.startedAt === undefined ? now : body.startedAt,
    stopped_at: body.stoppedAt ?? null,
    created_at: now,
    updated_at: now,
  }
  const updates = body.incidentUpdates.map((update, seq) => updateRow(id, seq, update, now))
  try {
    await inTransaction(ctx, (tx) => repo.insertIncident(tx, incident, updates))
  } catch (error) {
    // The dashboard was deleted meanwhile.
    if (isForeignKeyViolation(error)) throw missing()
    throw error
  }
  return toIncident(incident, updates)
}

/** The account's incidents, or one dashboard's, newest first, each with all its updates (oldest first). */
export async function listDashboardIncidents(
  ctx: ServiceContext,
  accountId: string,
  dashboardId: number | undefined,
  page: { limit: number; offset: number },
) {
  if (dashboardId !== undefined && !(await findDashboardById(ctx, accountId, dashboardId)))
    throw invalid(
      'querystring.dashboardId',
      `names dashboard ${dashboardId}, which this account doesn't have`,
    )
  const { rows, total } = await repo.listIncidents(ctx, accountId, dashboardId, page)
  const updates = await repo.updatesOf(
    ctx,
    rows.map((row) => row.id),
  )
  return {
    items: rows.map((row) =>
      toIncident(
        row,
        updates.filter((update) => update.incident_id === row.id),
      ),
    ),
    total,
  }
}

export async function getDashboardIncident(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  allUpdates: boolean,
): Promise<DashboardIncident> {
  const row = await incidentOf(ctx, accountId, id)
  const updates = await repo.updatesOf(ctx, [id])
  return toIncident(row, allUpdates ? updates : updates.slice(-1))
}

/** Sets the name, impact and period; `probe` answers the change without saving it. */
export async function editDashboardIncident(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  body: DashboardIncidentEditBody,
  probe = false,
) {
  const row = await incidentOf(ctx, accountId, id)
  const changes = {
    name: body.name,
    impact: body.impact,
    ...(body.startedAt !== undefined ? { started_at: body.startedAt } : {}),
    ...(body.stoppedAt !== undefined ? { stopped_at: body.stoppedAt } : {}),
    updated_at: isoNow(ctx),
  }
  const changed = { ...row, ...changes }
  assertPeriod({ startedAt: changed.started_at, stoppedAt: changed.stopped_at })
  const saved = probe ? changed : await repo.updateIncident(ctx, accountId, id, changes)
  if (!saved) throw notFound(`Incident ${id} not found`)
  const { incidentUpdates: _updates, ...incident } = toIncident(saved, [])
  return incident
}

export async function deleteDashboardIncident(ctx: ServiceContext, accountId: string, id: string) {
  if (!(await repo.deleteIncident(ctx, accountId, id))) throw notFound(`Incident ${id} not found`)
}

/** A dashboard's ongoing incidents and those that stopped since `sinceIso`, newest first, with updates. */
export async function incidentsToShow(
  ctx: ServiceContext,
  dashboardId: number,
  sinceIso: string,
  limit: number,
) {
  const rows = await repo.incidentsOfDashboard(ctx, dashboardId, sinceIso, limit)
  const updates = await repo.updatesOf(
    ctx,
    rows.map((row) => row.id),
  )
  return rows.map((row) =>
    toIncident(
      row,
      updates.filter((u) => u.incident_id === row.id),
    ),
  )
}

async function incidentOf(ctx: ServiceContext, accountId: string, id: string) {
  const row = await repo.findIncident(ctx, accountId, id)
  if (!row) throw notFound(`Incident ${id} not found`)
  return row
}

function updateRow(
  incidentId: string,
  seq: number,
  update: DashboardIncidentUpdateBody,
  now: string,
): UpdateRow {
  return {
    id: randomUUID(),
    incident_id: incidentId,
    seq,
    status: update.status,
    description: update.description ?? '',
    created_at: now,
    updated_at: null,
  }
}

function assertPeriod(period: { startedAt?: string | null; stoppedAt?: string | null }) {
  const { startedAt, stoppedAt } = period
  if (startedAt && stoppedAt && Date.parse(stoppedAt) < Date.parse(startedAt))
    throw invalid('body.stoppedAt', 'must not be before startedAt')
}

/** Whether `id` is one of the account's dashboard incidents, whose updates the `/v1/incidents/{incidentId}/updates` routes serve too. */
export async function isDashboardIncident(ctx: ServiceContext, accountId: string, id: string) {
  return Boolean(await repo.findIncident(ctx, accountId, id))
}

/** An update in the shape the status-page incident update routes answer. */
function asPostedUpdate(row: UpdateRow) {
  return {
    ...toUpdate(row),
    publicIncidentUpdateDate: row.created_at,
    notifySubscribers: false,
    updated_at: row.updated_at ?? row.created_at,
  }
}

export async function addDashboardIncidentUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  body: DashboardIncidentUpdateBody,
) {
  await incidentOf(ctx, accountId, incidentId)
  return inTransaction(ctx, async (tx) => {
    const row = updateRow(incidentId, await repo.nextSeq(tx, incidentId), body, isoNow(ctx))
    await repo.insertUpdates(tx, [row])
    return asPostedUpdate(row)
  })
}

export async function editDashboardIncidentUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  updateId: string,
  body: { status?: string; description: string },
) {
  await incidentOf(ctx, accountId, incidentId)
  const changes = {
    description: body.description,
    updated_at: isoNow(ctx),
    ...(body.status ? { status: body.status } : {}),
  }
  const row = await repo.updateUpdate(ctx, incidentId, updateId, changes)
  if (!row) throw notFound(`Incident update ${updateId} not found`)
  return asPostedUpdate(row)
}

/** Its last update too, as the hosted API deletes it (and a status page's incident's). */
export async function deleteDashboardIncidentUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  updateId: string,
) {
  await incidentOf(ctx, accountId, incidentId)
  await inTransaction(ctx, async (tx) => {
    const updates = await repo.updatesOf(tx, [incidentId])
    if (!updates.some((u) => u.id === updateId)) throw notFound(`Incident update ${updateId} not found`)
    await repo.deleteUpdate(tx, updateId)
  })
}
