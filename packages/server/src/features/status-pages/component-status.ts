import { type ComponentStatus, worseComponentStatus } from '@svc/core'
import type { StatusPagesTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { latestResults } from '../check-results/result-lookups.service.ts'
import { resolveChecksById } from '../checks/resolve-check.ts'
import { openImpactsOfPage } from '../incidents/incident-lookups.service.ts'
import { activeWindowTags, coversTags } from '../maintenance-windows/maintenance-windows.service.ts'

/**
 * The current status of each service on a page. An open impact of one of the page's ongoing incidents
 * sets it (the worst such impact wins). Otherwise the service follows the latest final results of its
 * reporting checks: all failing is a major outage, some failing a partial one, any degraded is degraded
 * performance. A deactivated check (or one of a deactivated group) reports nothing, as on Checkly. A check
 * in an active maintenance window of its tags reports no failure and puts its service UNDER_MAINTENANCE
 * (unless its other checks show worse). A service without reporting checks or results is OPERATIONAL.
 */
export async function componentStatusesOfPage(
  ctx: ServiceContext,
  page: Pick<StatusPagesTable, 'id' | 'account_id'>,
  checkIdsByService: Map<string, string[]>,
): Promise<Map<string, ComponentStatus>> {
  const now = ctx.clock.now()
  const allCheckIds = [...new Set([...checkIdsByService.values()].flat())]
  const [impacts, checks, windowTags] = await Promise.all([
    openImpactsOfPage(ctx, page.id),
    resolveChecksById(ctx, allCheckIds),
    activeWindowTags(ctx, page.account_id, now),
  ])
  const reporting = new Set<string>()
  const inMaintenance = new Set<string>()
  for (const [id, check] of checks) {
    if (check.row.account_id !== page.account_id || !check.row.activated || !check.groupActivated) continue
    if (coversTags(windowTags, check.effective.tags)) inMaintenance.add(id)
    else reporting.add(id)
  }
  const latest = await latestResults(ctx, [...reporting])
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
    const results = checkIds.flatMap((id) => (reporting.has(id) ? (latestByCheck.get(id) ?? []) : []))
    const failing = results.filter((r) => Boolean(r.has_failures)).length
    const degraded = results.some((r) => !r.has_failures && Boolean(r.is_degraded))
    const fromChecks: ComponentStatus =
      failing > 0 && failing === results.length
        ? 'MAJOR_OUTAGE'
        : failing > 0
          ? 'PARTIAL_OUTAGE'
          : degraded
            ? 'DEGRADED_PERFORMANCE'
            : 'OPERATIONAL'
    const maintenance = checkIds.some((id) => inMaintenance.has(id))
    statuses.set(serviceId, maintenance ? worseComponentStatus(fromChecks, 'UNDER_MAINTENANCE') : fromChecks)
  }
  return statuses
}
