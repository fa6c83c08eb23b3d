import type { StatusPagesTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { resolveChecksById } from '../checks/resolve-check.ts'
import { allServices } from '../status-page-services/status-page-services.service.ts'
import { findPageById, pageIdsShowingServices } from '../status-pages/page-lookups.service.ts'
import { enqueuePageNotice } from './status-page-subscribers.service.ts'

/** A maintenance update to tell subscribers of, with the checks its window covers. */
export interface MaintenanceNotice {
  accountId: string
  /** The update's id: each subscriber gets one email per update, ever. */
  updateId: string
  windowName: string
  status: string
  description: string
  startsAt: string
  endsAt: string
  /** Whether the window covers a check with these tags (its services then show UNDER_MAINTENANCE). */
  coversTags: (tags: string[]) => boolean
}

const LABELS: Record<string, string> = {
  SCHEDULED: 'Scheduled',
  IN_PROGRESS: 'In progress',
  VERIFYING: 'Verifying',
  COMPLETED: 'Completed',
  CANCELLED: 'Cancelled',
}

/**
 * Mails a maintenance update to the subscribers of every status page it concerns: the account's pages
 * showing a service with a check the window covers, as those are the pages the maintenance shows on.
 * In the caller's transaction when `ctx` is one. Answers how many emails were queued.
 */
export async function enqueueMaintenanceNotifications(
  ctx: ServiceContext,
  notice: MaintenanceNotice,
): Promise<number> {
  let queued = 0
  for (const page of await pagesConcerned(ctx, notice)) {
    const status = LABELS[notice.status] ?? notice.status
    queued += await enqueuePageNotice(ctx, page, {
      key: `maintenance-update:${notice.updateId}`,
      subject: `Maintenance ${notice.windowName}: ${status}`,
      lines: [
        `Maintenance: ${notice.windowName}`,
        `${status} (${utc(notice.startsAt)} to ${utc(notice.endsAt)} UTC)`,
        '',
        notice.description,
      ],
    })
  }
  return queued
}

async function pagesConcerned(ctx: ServiceContext, notice: MaintenanceNotice): Promise<StatusPagesTable[]> {
  const services = await allServices(ctx, notice.accountId)
  const checks = await resolveChecksById(
    ctx,
    services.flatMap((service) => service.checkIds),
  )
  const covered = (id: string) => {
    const check = checks.get(id)
    return check?.row.account_id === notice.accountId && notice.coversTags(check.effective.tags)
  }
  const serviceIds = services.filter((s) => s.checkIds.some(covered)).map((s) => s.id)
  const pages: StatusPagesTable[] = []
  for (const id of await pageIdsShowingServices(ctx, serviceIds)) {
    const page = await findPageById(ctx, id)
    if (page?.account_id === notice.accountId) pages.push(page)
  }
  return pages.sort((a, b) => a.created_at.localeCompare(b.created_at))
}

const utc = (iso: string) => iso.replace('T', ' ').slice(0, 16)
