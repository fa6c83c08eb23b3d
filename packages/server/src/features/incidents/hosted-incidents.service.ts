import type { ComponentStatus, INCIDENT_SEVERITIES } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { servicesByIds } from '../status-page-services/status-page-services.service.ts'
import { pagesShowingServices } from '../status-pages/status-pages.service.ts'
import type {
  HostedCreateIncidentBody,
  HostedIncident,
  HostedIncidentBody,
  HostedUpdateBody,
} from './hosted-incidents.schemas.ts'
import * as repo from './incidents.repo.ts'
import type { Incident, IncidentUpdate } from './incidents.schemas.ts'
import * as incidents from './incidents.service.ts'

/**
 * The hosted API's status-page incidents (`/v1/status-pages/incidents*`): the same incidents as the
 * seed spec's `/v3/status-pages/{id}/incidents`, named by id alone, impacting services rather than
 * components with statuses.
 */

/** The status a service takes when an incident of this severity names it (the hosted form has none). */
const STATUS_OF_SEVERITY: Record<(typeof INCIDENT_SEVERITIES)[number], ComponentStatus> = {
  CRITICAL: 'MAJOR_OUTAGE',
  MAJOR: 'PARTIAL_OUTAGE',
  MEDIUM: 'DEGRADED_PERFORMANCE',
  MINOR: 'DEGRADED_PERFORMANCE',
}

export async function listHostedIncidents(ctx: ServiceContext, accountId: string, page: Page) {
  const { rows, total } = await repo.listIncidentsOfAccount(ctx, accountId, page)
  return { items: await hostedForms(ctx, accountId, await incidents.assemble(ctx, rows)), total }
}

export async function getHostedIncident(ctx: ServiceContext, accountId: string, id: string) {
  const [hosted] = await hostedForms(ctx, accountId, [await incidentOfAccount(ctx, accountId, id)])
  return hosted as HostedIncident
}

export async function createHostedIncident(
  ctx: ServiceContext,
  accountId: string,
  body: HostedCreateIncidentBody,
): Promise<HostedIncident> {
  const serviceIds = body.services.map((s) => s.id)
  const pageId = body.statusPageId ?? (await pagesShowingServices(ctx, accountId, serviceIds))[0]
  if (pageId === undefined) {
    throw invalid(
      'body.services',
      'no status page of the account shows every one of these services: show them on a page, or name the page in statusPageId',
    )
  }
  const status = STATUS_OF_SEVERITY[body.severity]
  const created = await incidents.createIncident(ctx, accountId, pageId, {
    name: body.name,
    severity: body.severity,
    componentImpacts: unique(serviceIds).map((componentId) => ({ componentId, status })),
    incidentUpdates: body.incidentUpdates.map((update) => ({
      description: update.description,
      status: update.status ?? 'INVESTIGATING',
      ...(update.publicIncidentUpdateDate
        ? { publicIncidentUpdateDate: update.publicIncidentUpdateDate }
        : {}),
      ...(update.notifySubscribers !== undefined ? { notifySubscribers: update.notifySubscribers } : {}),
    })),
  })
  return getHostedIncident(ctx, accountId, created.id)
}

/**
 * Renames the incident, sets its severity and the services it impacts: a service impacted already keeps
 * its status, a new one takes the severity's, one left out is OPERATIONAL again.
 */
export async function updateHostedIncident(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  body: HostedIncidentBody,
): Promise<HostedIncident> {
  const incident = await incidentOfAccount(ctx, accountId, id)
  const open = new Map(
    incident.componentImpacts.filter((i) => i.endedAt === null).map((i) => [i.componentId, i.status]),
  )
  const status = STATUS_OF_SEVERITY[body.severity]
  await incidents.updateIncident(ctx, accountId, incident.statusPageId, id, {
    name: body.name,
    severity: body.severity,
    componentImpacts: unique(body.services.map((s) => s.id)).map((componentId) => ({
      componentId,
      status: open.get(componentId) ?? status,
    })),
  })
  return getHostedIncident(ctx, accountId, id)
}

export async function deleteHostedIncident(ctx: ServiceContext, accountId: string, id: string) {
  const incident = await incidentOfAccount(ctx, accountId, id)
  await incidents.deleteIncident(ctx, accountId, incident.statusPageId, id)
}

export async function listHostedUpdates(ctx: ServiceContext, accountId: string, incidentId: string) {
  return (await incidentOfAccount(ctx, accountId, incidentId)).incidentUpdates
}

export async function getHostedUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  updateId: string,
): Promise<IncidentUpdate> {
  const update = (await listHostedUpdates(ctx, accountId, incidentId)).find((u) => u.id === updateId)
  if (!update) throw notFound(`Incident update ${updateId} not found`)
  return update
}

/** Posts an update; without a status it keeps the incident's current one. */
export async function addHostedUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  body: HostedUpdateBody,
): Promise<IncidentUpdate> {
  const incident = await incidentOfAccount(ctx, accountId, incidentId)
  const { id: _id, created_at: _created, updated_at: _updated, ...update } = body
  return incidents.addIncidentUpdate(ctx, accountId, incidentId, {
    ...update,
    status: update.status ?? incident.lastUpdateStatus,
  })
}

export async function editHostedUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  updateId: string,
  body: HostedUpdateBody,
): Promise<IncidentUpdate> {
  const { id: _id, created_at: _created, updated_at: _updated, ...edit } = body
  return incidents.replaceIncidentUpdate(ctx, accountId, incidentId, updateId, edit)
}

async function incidentOfAccount(ctx: ServiceContext, accountId: string, id: string): Promise<Incident> {
  const row = await repo.findIncident(ctx, accountId, id)
  if (!row) throw notFound(`Incident ${id} not found`)
  const [incident] = await incidents.assemble(ctx, [row])
  return incident as Incident
}

async function hostedForms(
  ctx: ServiceContext,
  accountId: string,
  list: Incident[],
): Promise<HostedIncident[]> {
  const ids = list.flatMap((incident) => incident.componentImpacts.map((i) => i.componentId))
  const services = new Map((await servicesByIds(ctx, accountId, ids)).map((s) => [s.id, s]))
  return list.map((incident) => ({
    ...incident,
    severity: incident.severity ?? 'MINOR',
    services: unique(incident.componentImpacts.map((i) => i.componentId)).flatMap((id) => {
      const service = services.get(id)
      return service ? [service] : []
    }),
  }))
}

const unique = (ids: string[]) => [...new Set(ids)]

export async function deleteHostedUpdate(
  ctx: ServiceContext,
  accountId: string,
  incidentId: string,
  updateId: string,
) {
  await incidents.deleteIncidentUpdate(ctx, accountId, incidentId, updateId)
}
