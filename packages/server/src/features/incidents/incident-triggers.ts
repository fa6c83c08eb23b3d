import type { ComponentStatus } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { findService } from '../status-page-services/service-lookups.service.ts'
import { pageIdsShowingServices } from '../status-pages/page-lookups.service.ts'
import type { Incident } from './incidents.schemas.ts'
import { createIncident, ongoingIncidentsOfCheck, resolveIncident } from './incidents.service.ts'

/** A check's `triggerIncident` (the spec's check field). */
export interface IncidentTrigger {
  serviceId: string
  severity: 'MINOR' | 'MEDIUM' | 'MAJOR' | 'CRITICAL'
  name: string
  description: string
  notifySubscribers: boolean
}

export interface TriggeringCheck {
  id: string
  accountId: string
}

const IMPACT_OF_SEVERITY: Record<IncidentTrigger['severity'], ComponentStatus> = {
  MINOR: 'DEGRADED_PERFORMANCE',
  MEDIUM: 'PARTIAL_OUTAGE',
  MAJOR: 'MAJOR_OUTAGE',
  CRITICAL: 'MAJOR_OUTAGE',
}

/**
 * Called by the alerter when a check with `triggerIncident` alerts: opens an incident on every status page
 * that shows the trigger's service, unless the check has one open there already (so repeated alerts and
 * reminders open nothing new). Answers the incidents it opened.
 */
export async function openIncidentFromCheck(
  ctx: ServiceContext,
  check: TriggeringCheck,
  trigger: IncidentTrigger,
): Promise<Incident[]> {
  const service = await findService(ctx, check.accountId, trigger.serviceId)
  if (!service) return []
  const open = new Set((await ongoingIncidentsOfCheck(ctx, check.id)).map((i) => i.status_page_id))
  const opened: Incident[] = []
  for (const pageId of await pageIdsShowingServices(ctx, [service.id])) {
    if (open.has(pageId)) continue
    opened.push(
      await createIncident(
        ctx,
        check.accountId,
        pageId,
        {
          name: trigger.name,
          severity: trigger.severity,
          componentImpacts: [{ componentId: service.id, status: IMPACT_OF_SEVERITY[trigger.severity] }],
          incidentUpdates: [
            {
              description: trigger.description,
              status: 'INVESTIGATING',
              notifySubscribers: trigger.notifySubscribers,
            },
          ],
        },
        { checkId: check.id },
      ),
    )
  }
  return opened
}

/**
 * Called by the alerter when such a check recovers (and by the check's save or deletion, in its
 * transaction): every incident the check opened and that is still ongoing gets its components back to
 * OPERATIONAL and a RESOLVED update. One deleted meanwhile is passed over. Answers the incidents resolved.
 */
export async function resolveIncidentFromCheck(
  ctx: ServiceContext,
  check: TriggeringCheck,
  options: { description?: string; notifySubscribers?: boolean } = {},
): Promise<string[]> {
  const update = {
    description:
      options.description ?? 'The issue is resolved: our monitoring shows the service working again.',
    notifySubscribers: options.notifySubscribers ?? false,
  }
  // In id order, so two resolutions of one check's incidents lock them in the same order.
  const ongoing = (await ongoingIncidentsOfCheck(ctx, check.id)).sort((a, b) => (a.id < b.id ? -1 : 1))
  const resolved: string[] = []
  for (const incident of ongoing) if (await resolveIncident(ctx, incident, update)) resolved.push(incident.id)
  return resolved
}
