import { randomUUID } from 'node:crypto'
import type { IncidentsTable, IncidentUpdatesTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { inTransaction } from '../../transactions.ts'
import {
  addDashboardIncidentUpdate,
  deleteDashboardIncidentUpdate,
  editDashboardIncidentUpdate,
  isDashboardIncident,
} from '../dashboards/dashboard-incidents.service.ts'
import { enqueueUpdateNotifications } from '../status-page-subscribers/status-page-subscribers.service.ts'
import { cardsOfPages, findPageById, lockPage } from '../status-pages/page-lookups.service.ts'
import { findOrThrow as findPageOrThrow } from '../status-pages/status-pages.service.ts'
import { touchPages } from '../status-pages/touch-pages.ts'
import {
  type ImpactRequest,
  incidentOfAccount,
  incidentOfPage,
  lockedIncident,
  publicDate,
  recompute,
  reconcileImpacts,
} from './incident-records.ts'
import { incidentStateOf } from './incident-state.ts'
import { assemble, toUpdate } from './incident-view.ts'
import * as repo from './incidents.repo.ts'
import type {
  CreateIncidentBody,
  EditIncidentUpdateBody,
  Incident,
  IncidentUpdate,
  IncidentUpdateBody,
  UpdateIncidentBody,
} from './incidents.schemas.ts'

export { assemble } from './incident-view.ts'

export interface IncidentSource {
  /** The check whose triggerIncident opens the incident. */
  checkId: string
}

export async function createIncident(
  ctx: ServiceContext,
  accountId: string,
  pageId: string,
  body: CreateIncidentBody,
  source?: IncidentSource,
): Promise<Incident> {
  await findPageOrThrow(ctx, accountId, pageId)
  const impacts = await validImpacts(ctx, pageId, body.componentImpacts)
  const now = isoNow(ctx)
  const id = randomUUID()
  const updates: IncidentUpdatesTable[] = body.incidentUpdates.map((update, index) => ({
    id: randomUUID(),
    incident_id: id,
    description: update.description,
    status: update.status,
    public_date: publicDate(ctx, update.publicIncidentUpdateDate, `body.incidentUpdates.${index}`) ?? now,
    seq: index + 1,
    notify_subscribers: update.notifySubscribers ?? false,
    created_at: now,
    updated_at: now,
  }))
  const state = incidentStateOf(updates)
  const row: IncidentsTable = {
    id,
    account_id: accountId,
    status_page_id: pageId,
    name: body.name,
    severity: body.severity ?? null,
    source_check_id: source?.checkId ?? null,
    last_update_status: state.lastUpdateStatus,
    started_at: state.startedAt,
    resolved_at: state.resolvedAt,
    duration: state.duration,
    created_at: now,
    updated_at: now,
  }
  await inTransaction(ctx, async (tx) => {
    // The page locked: its deletion waits for the incident, or went first (404).
    if (!(await lockPage(tx, pageId, 'referenced'))) throw notFound(`Status page ${pageId} not found`)
    await repo.insertIncident(tx, row)
    await repo.insertUpdates(tx, updates)
    // The impacts began when the incident did, backdated or not.
    if (impacts) await reconcileImpacts(tx, id, impacts, state.startedAt)
    for (const update of updates) if (update.notify_subscribers) await notify(tx, row, update)
  })
  await touchPages(ctx, [pageId])
  return getIncident(ctx, accountId, pageId, id)
}

export async function getIncident(
  ctx: ServiceContext,
  accountId: string,
  pageId: string,
  id: string,
): Promise<Incident> {
  const [incident] = await assemble(ctx, [await incidentOfPage(ctx, accountId, pageId, id)])
  return incident as Incident
}

export async function listIncidents(ctx: ServiceContext, accountId: string, pageId: string, page: Page) {
  await findPageOrThrow(ctx, accountId, pageId)
  const { rows, total } = await repo.listIncidents(ctx, pageId, page)
  return { items: await assemble(ctx, rows), total }
}

/** Renames the incident and, when `componentImpacts` is given, reconciles its components' statuses. */
export async function updateIncident(
  ctx: ServiceContext,
  accountId: string,
  pageId: string,
  id: string,
  body: UpdateIncidentBody,
): Promise<Incident> {
  await incidentOfPage(ctx, accountId, pageId, id)
  const impacts = await validImpacts(ctx, pageId, body.componentImpacts)
  const now = isoNow(ctx)
  await inTransaction(ctx, async (tx) => {
    await lockedIncident(tx, id)
    const changes: Partial<IncidentsTable> = { name: body.name, updated_at: now }
    if (body.severity !== undefined) changes.severity = body.severity
    await repo.setIncident(tx, id, changes)
    if (impacts) await reconcileImpacts(tx, id, impacts, now)
  })
  await touchPages(ctx, [pageId])
  return getIncident(ctx, accountId, pageId, id)
}

export async function deleteIncident(ctx: ServiceContext, accountId: string, pageId: string, id: string) {
  await incidentOfPage(ctx, accountId, pageId, id)
  await repo.deleteIncident(ctx, id)
  await touchPages(ctx, [pageId])
}

/**
 * The hosted API posts the updates of dashboard incidents (`/v1/incidents/{id}`) through these same
 * routes: a dashboard's incident is served by the dashboards feature.
 */
async function ofDashboard(ctx: ServiceContext, accountId: string, incidentId: string) {
  return (
    !(await repo.findIncident(ctx, accountId, incidentId)) &&
    (await isDashboardIncident(ctx, accountId, incidentId))
  )
}

/** Posts an update; a later-dated unresolved update reopens a resolved incident. */
export async function addIncidentUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  body: IncidentUpdateBody,
): Promise<IncidentUpdate> {
  if (await ofDashboard(ctx, accountId, incidentId))
    return addDashboardIncidentUpdate(ctx, accountId, incidentId, body) as Promise<IncidentUpdate>
  const incident = await incidentOfAccount(ctx, accountId, incidentId)
  const now = isoNow(ctx)
  const date = publicDate(ctx, body.publicIncidentUpdateDate, 'body') ?? now
  const row = await inTransaction(ctx, async (tx) => {
    await lockedIncident(tx, incidentId)
    const update: IncidentUpdatesTable = {
      id: randomUUID(),
      incident_id: incidentId,
      description: body.description,
      status: body.status,
      public_date: date,
      seq: await repo.nextUpdateSeq(tx, incidentId),
      notify_subscribers: body.notifySubscribers ?? false,
      created_at: now,
      updated_at: now,
    }
    await repo.insertUpdates(tx, [update])
    const refreshed = await recompute(tx, incidentId, now)
    if (update.notify_subscribers) await notify(tx, refreshed, update)
    return update
  })
  await touchPages(ctx, [incident.status_page_id])
  return toUpdate(row)
}

/** Edits an update; a date or notifySubscribers left out stays as it was. */
export async function replaceIncidentUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  updateId: string,
  body: EditIncidentUpdateBody,
): Promise<IncidentUpdate> {
  if (await ofDashboard(ctx, accountId, incidentId))
    return editDashboardIncidentUpdate(ctx, accountId, incidentId, updateId, body) as Promise<IncidentUpdate>
  const incident = await incidentOfAccount(ctx, accountId, incidentId)
  const now = isoNow(ctx)
  const date = publicDate(ctx, body.publicIncidentUpdateDate, 'body')
  const row = await inTransaction(ctx, async (tx) => {
    await lockedIncident(tx, incidentId)
    const existing = await repo.findUpdate(tx, incidentId, updateId)
    if (!existing) throw notFound(`Incident update ${updateId} not found`)
    const changes = {
      description: body.description,
      status: body.status ?? existing.status,
      public_date: date ?? existing.public_date,
      notify_subscribers: body.notifySubscribers ?? Boolean(existing.notify_subscribers),
      updated_at: now,
    }
    await repo.setUpdate(tx, updateId, changes)
    const refreshed = await recompute(tx, incidentId, now)
    const update = { ...existing, ...changes }
    // Each subscriber gets an update at most once, so switching the flag on later sends it then.
    if (update.notify_subscribers) await notify(tx, refreshed, update)
    return update
  })
  await touchPages(ctx, [incident.status_page_id])
  return toUpdate(row)
}

/** Deletes an update and recomputes the incident; its last update can't go (409). */
export async function deleteIncidentUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  updateId: string,
): Promise<void> {
  if (await ofDashboard(ctx, accountId, incidentId))
    return deleteDashboardIncidentUpdate(ctx, accountId, incidentId, updateId)
  const incident = await incidentOfAccount(ctx, accountId, incidentId)
  await inTransaction(ctx, async (tx) => {
    await lockedIncident(tx, incidentId)
    const updates = (await repo.updatesOfIncidents(tx, [incidentId])).get(incidentId) ?? []
    if (!updates.some((u) => u.id === updateId)) throw notFound(`Incident update ${updateId} not found`)
    await repo.deleteUpdate(tx, updateId)
    await recompute(tx, incidentId, isoNow(ctx))
  })
  await touchPages(ctx, [incident.status_page_id])
}

/**
 * Resolves an incident a check opened, as the check's recovery does: its components back to OPERATIONAL
 * and a RESOLVED update, in one transaction (the caller's, if any). Its page is locked first, then the
 * incident, the order the page's deletion takes them in. Answers false, changing nothing, when either is
 * gone or the incident was resolved meanwhile.
 */
export async function resolveIncident(
  ctx: ServiceContext,
  incident: Pick<IncidentsTable, 'id' | 'status_page_id'>,
  update: { description: string; notifySubscribers: boolean },
): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    if (!(await lockPage(tx, incident.status_page_id, 'referenced'))) return false
    const locked = await repo.lockIncident(tx, incident.id)
    if (!locked || locked.last_update_status === 'RESOLVED') return false
    const now = isoNow(tx)
    await reconcileImpacts(tx, incident.id, [], now)
    const row: IncidentUpdatesTable = {
      id: randomUUID(),
      incident_id: incident.id,
      description: update.description,
      status: 'RESOLVED',
      public_date: now,
      seq: await repo.nextUpdateSeq(tx, incident.id),
      notify_subscribers: update.notifySubscribers,
      created_at: now,
      updated_at: now,
    }
    await repo.insertUpdates(tx, [row])
    const refreshed = await recompute(tx, incident.id, now)
    if (row.notify_subscribers) await notify(tx, refreshed, row)
    await touchPages(tx, [incident.status_page_id])
    return true
  })
}

/** Ongoing incidents opened by `checkId`'s triggerIncident. */
export async function ongoingIncidentsOfCheck(ctx: ServiceContext, checkId: string) {
  return repo.ongoingIncidentsOfCheck(ctx, checkId)
}

async function validImpacts(
  ctx: ServiceContext,
  pageId: string,
  impacts: ImpactRequest[] | undefined,
): Promise<ImpactRequest[] | undefined> {
  if (!impacts) return undefined
  const cards = (await cardsOfPages(ctx, [pageId])).get(pageId) ?? []
  const shown = new Set(cards.flatMap((card) => card.serviceIds))
  const seen = new Set<string>()
  for (const [index, impact] of impacts.entries()) {
    const path = `body.componentImpacts.${index}.componentId`
    if (!shown.has(impact.componentId))
      throw invalid(path, `is not a service shown on this status page: ${impact.componentId}`)
    if (seen.has(impact.componentId)) throw invalid(path, 'appears twice')
    seen.add(impact.componentId)
  }
  return impacts
}

async function notify(tx: ServiceContext, incident: IncidentsTable, update: IncidentUpdatesTable) {
  const page = await findPageById(tx, incident.status_page_id)
  if (page) await enqueueUpdateNotifications(tx, page, incident, update)
}
