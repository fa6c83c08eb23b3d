// How an incident's stored rows follow what is posted: its state from its updates, its component
// impacts opened, changed and ended, dates checked, and the incident found (or locked) for a verb.
import { randomUUID } from 'node:crypto'
import type { ComponentStatus } from '@svc/core'
import type { IncidentsTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { invalid, notFound } from '../../http/errors.ts'
import { incidentStateOf } from './incident-state.ts'
import * as repo from './incidents.repo.ts'

/** How far ahead of the server's clock an update may be dated (clock skew), never more. */
const FUTURE_TOLERANCE_MS = 5 * 60_000

/**
 * The earliest date an update may carry. Backdating is for real history, not centuries: the stored
 * duration (seconds, a 32-bit integer on PostgreSQL) then fits until 2068.
 */
const EARLIEST_DATE = '2000-01-01T00:00:00Z'

const EARLIEST_MS = Date.parse(EARLIEST_DATE)

export function publicDate(ctx: ServiceContext, value: string | undefined, path: string): string | undefined {
  if (value === undefined) return undefined
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) throw invalid(`${path}.publicIncidentUpdateDate`, 'must be a date-time')
  if (ms > ctx.clock.now().getTime() + FUTURE_TOLERANCE_MS)
    throw invalid(`${path}.publicIncidentUpdateDate`, 'must not be in the future')
  if (ms < EARLIEST_MS)
    throw invalid(`${path}.publicIncidentUpdateDate`, `must not be before ${EARLIEST_DATE}`)
  return new Date(ms).toISOString()
}

export async function recompute(
  tx: ServiceContext,
  incidentId: string,
  now: string,
): Promise<IncidentsTable> {
  const updates = (await repo.updatesOfIncidents(tx, [incidentId])).get(incidentId) ?? []
  if (updates.length === 0) {
    // Its last update deleted (the hosted API allows it): it stays what its updates last said.
    await repo.setIncident(tx, incidentId, { updated_at: now })
    return lockedIncident(tx, incidentId)
  }
  const state = incidentStateOf(updates)
  const changes = {
    last_update_status: state.lastUpdateStatus,
    started_at: state.startedAt,
    resolved_at: state.resolvedAt,
    duration: state.duration,
    updated_at: now,
  }
  await repo.setIncident(tx, incidentId, changes)
  return lockedIncident(tx, incidentId)
}

export type ImpactRequest = { componentId: string; status: ComponentStatus }

/**
 * Listed components take the listed status, the rest become OPERATIONAL: an open impact whose component
 * turns OPERATIONAL ends now; a component that degrades again gets a new impact; a change between two
 * non-operational statuses keeps the open impact and its start.
 */
export async function reconcileImpacts(
  tx: ServiceContext,
  incidentId: string,
  listed: ImpactRequest[],
  at: string,
) {
  const impacts = (await repo.impactsOfIncidents(tx, [incidentId])).get(incidentId) ?? []
  const open = new Map(impacts.filter((i) => i.ended_at === null).map((i) => [i.service_id, i]))
  const wanted = new Map(listed.map((i) => [i.componentId, i.status]))
  for (const [serviceId, status] of wanted) {
    const current = open.get(serviceId)
    if (status === 'OPERATIONAL') {
      if (current) await repo.setImpact(tx, current.id, { status, ended_at: at })
    } else if (current) {
      if (current.status !== status) {
        // The impact keeps its start; what it held until now stays for the page's past bars.
        await repo.recordImpactChange(tx, { impact_id: current.id, status: current.status, until: at })
        await repo.setImpact(tx, current.id, { status, declared_status: status })
      }
    } else {
      await repo.insertImpact(tx, {
        id: randomUUID(),
        incident_id: incidentId,
        service_id: serviceId,
        status,
        declared_status: status,
        started_at: at,
        ended_at: null,
        created_at: isoNow(tx),
      })
    }
  }
  for (const [serviceId, current] of open) {
    if (!wanted.has(serviceId)) await repo.setImpact(tx, current.id, { status: 'OPERATIONAL', ended_at: at })
  }
}

/** The incident, locked until the transaction ends; 404 when it was deleted since it was found. */
export async function lockedIncident(tx: ServiceContext, id: string) {
  const row = await repo.lockIncident(tx, id)
  if (!row) throw notFound(`Incident ${id} not found`)
  return row
}

export async function incidentOfAccount(ctx: ServiceContext, accountId: string, id: string) {
  const row = await repo.findIncident(ctx, accountId, id)
  if (!row) throw notFound(`Incident ${id} not found`)
  return row
}

export async function incidentOfPage(ctx: ServiceContext, accountId: string, pageId: string, id: string) {
  const row = await incidentOfAccount(ctx, accountId, id)
  if (row.status_page_id !== pageId) throw notFound(`Incident ${id} not found`)
  return row
}
