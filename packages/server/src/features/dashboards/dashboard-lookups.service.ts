// The reads of dashboards that other features make (status pages check their custom domain against
// dashboards'): the one door to the dashboards' table from outside this feature.
import type { ServiceContext } from '../../context.ts'
import { findDashboardBy } from './dashboards.repo.ts'

/** The dashboard served on `domain` (lower-case), if any. */
export function findDashboardByDomain(ctx: ServiceContext, domain: string) {
  return findDashboardBy(ctx, 'custom_domain', domain)
}
