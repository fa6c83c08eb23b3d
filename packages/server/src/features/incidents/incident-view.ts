// An incident as the API shows it: its updates and component impacts, read in one go for many incidents.
import type { ComponentStatus, IncidentStatus } from '@svc/core'
import type { IncidentComponentImpactsTable, IncidentsTable, IncidentUpdatesTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import * as repo from './incidents.repo.ts'
import type { Incident, IncidentUpdate } from './incidents.schemas.ts'

export async function assemble(ctx: ServiceContext, rows: IncidentsTable[]): Promise<Incident[]> {
  const ids = rows.map((r) => r.id)
  const [updates, impacts] = await Promise.all([
    repo.updatesOfIncidents(ctx, ids),
    repo.impactsOfIncidents(ctx, ids),
  ])
  return rows.map((row) => ({
    id: row.id,
    statusPageId: row.status_page_id,
    name: row.name,
    severity: row.severity as Incident['severity'],
    lastUpdateStatus: row.last_update_status as IncidentStatus,
    duration: row.duration === null ? null : Number(row.duration),
    startedAt: row.started_at,
    resolvedAt: row.resolved_at,
    componentImpacts: (impacts.get(row.id) ?? []).map((impact) => toImpact(impact, row.resolved_at)),
    incidentUpdates: (updates.get(row.id) ?? []).map(toUpdate),
    created_at: row.created_at,
    updated_at: row.updated_at,
  }))
}

/**
 * An impact still open when its incident is resolved ends with the incident, as one ended by a PUT does:
 * derived rather than stored, so reopening the incident reopens it.
 */
function toImpact(row: IncidentComponentImpactsTable, resolvedAt: string | null) {
  if (row.ended_at === null && resolvedAt !== null) {
    return {
      componentId: row.service_id,
      status: 'OPERATIONAL' as ComponentStatus,
      startedAt: row.started_at,
      endedAt: resolvedAt > row.started_at ? resolvedAt : row.started_at,
    }
  }
  return {
    componentId: row.service_id,
    status: row.status as ComponentStatus,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  }
}

export function toUpdate(row: IncidentUpdatesTable): IncidentUpdate {
  return {
    id: row.id,
    incidentId: row.incident_id,
    description: row.description,
    status: row.status as IncidentStatus,
    publicIncidentUpdateDate: row.public_date,
    notifySubscribers: Boolean(row.notify_subscribers),
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
