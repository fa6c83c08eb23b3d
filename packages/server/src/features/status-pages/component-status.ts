import { type ComponentStatus, worseComponentStatus } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { latestResults } from '../check-results/check-results.repo.ts'
import { openImpactsOfPage } from '../incidents/incidents.repo.ts'

/**
 * The current status of each service on a page. An open impact of one of the page's ongoing incidents
 * sets it (the worst such impact wins); otherwise the service follows its checks' latest final results:
 * all failing is a major outage, some failing a partial one, any degraded is degraded performance. A
 * service without checks or results is OPERATIONAL.
 */
export async function componentStatusesOfPage(
  ctx: ServiceContext,
  pageId: string,
  checkIdsByService: Map<string, string[]>,
): Promise<Map<string, ComponentStatus>> {
  const allCheckIds = [...new Set([...checkIdsByService.values()].flat())]
  const [impacts, latest] = await Promise.all([
    openImpactsOfPage(ctx, pageId),
    latestResults(ctx, allCheckIds),
  ])
  const latestByCheck = new Map(latest.map((r) => [r.check_id, r]))
  const overridden = new Map<string, ComponentStatus>()
  for (const impact of impacts) {
    const status = impact.status as ComponentStatus
    const previous = overridden.get(impact.service_id)
    overridden.set(impact.service_id, previous ? worseComponentStatus(previous, status) : status)
  }
  const statuses = new Map<string, ComponentStatus>()
  for (const [serviceId, checkIds] of checkIdsByService) {
    const fromIncident = overridden.get(serviceId)
    if (fromIncident) {
      statuses.set(serviceId, fromIncident)
      continue
    }
    const results = checkIds.flatMap((id) => latestByCheck.get(id) ?? [])
    const failing = results.filter((r) => Boolean(r.has_failures)).length
    const degraded = results.some((r) => !r.has_failures && Boolean(r.is_degraded))
    statuses.set(
      serviceId,
      failing > 0 && failing === results.length
        ? 'MAJOR_OUTAGE'
        : failing > 0
          ? 'PARTIAL_OUTAGE'
          : degraded
            ? 'DEGRADED_PERFORMANCE'
            : 'OPERATIONAL',
    )
  }
  return statuses
}
