import { randomUUID } from 'node:crypto'
import type { StatusPageServicesTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { conflict, invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { inTransaction } from '../../transactions.ts'
import { listChecksOfAccount, lockReferencedChecks } from '../checks/check-lookups.service.ts'
import { pageIdsShowingServices } from '../status-pages/page-lookups.service.ts'
import { touchPages } from '../status-pages/touch-pages.ts'
import { keepStatusHistory } from '../status-site/uptime-history.ts'
import * as repo from './status-page-services.repo.ts'
import type { Service, ServiceBody } from './status-page-services.schemas.ts'

export async function createService(
  ctx: ServiceContext,
  accountId: string,
  body: ServiceBody,
): Promise<Service> {
  const now = isoNow(ctx)
  const row: StatusPageServicesTable = {
    id: randomUUID(),
    account_id: accountId,
    name: body.name,
    description: body.description ?? null,
    created_at: now,
    updated_at: now,
  }
  const checkIds = await inTransaction(ctx, async (tx) => {
    const checkIds = await lockLinkedChecks(tx, accountId, body.checkIds ?? [])
    await repo.insertService(tx, row, checkIds)
    return checkIds
  })
  return toService(row, checkIds)
}

export async function getService(ctx: ServiceContext, accountId: string, id: string): Promise<Service> {
  const row = await findOrThrow(ctx, accountId, id)
  const links = await repo.checkIdsOfServices(ctx, [id])
  return toService(row, links.get(id) ?? [])
}

export async function listServices(ctx: ServiceContext, accountId: string, page: Page) {
  const { rows, total } = await repo.listServices(ctx, accountId, page)
  const links = await repo.checkIdsOfServices(
    ctx,
    rows.map((r) => r.id),
  )
  return { items: rows.map((row) => toService(row, links.get(row.id) ?? [])), total }
}

/** The account's services among `ids`, in the order asked; ids that name none are left out. */
export async function servicesByIds(
  ctx: ServiceContext,
  accountId: string,
  ids: string[],
): Promise<Service[]> {
  const unique = [...new Set(ids)]
  const rows = new Map((await repo.findServices(ctx, accountId, unique)).map((r) => [r.id, r]))
  const links = await repo.checkIdsOfServices(ctx, [...rows.keys()])
  return unique.flatMap((id) => {
    const row = rows.get(id)
    return row ? [toService(row, links.get(id) ?? [])] : []
  })
}

/** Every service of the account, a page of 100 at a time. */
export async function allServices(ctx: ServiceContext, accountId: string): Promise<Service[]> {
  const all: Service[] = []
  for (let offset = 0; ; offset += 100) {
    const { items, total } = await listServices(ctx, accountId, {
      limit: 100,
      offset,
      page: offset / 100 + 1,
    })
    all.push(...items)
    if (items.length === 0 || all.length >= total) return all
  }
}

/** Replaces the service's name, description and checks; pages showing it change at once. */
export async function updateService(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  body: ServiceBody,
): Promise<Service> {
  const changes = { name: body.name, description: body.description ?? null, updated_at: isoNow(ctx) }
  // The service, then its checks locked before anything is written (as a check's deletion locks the check,
  // then its services): a deletion of either waits for this, or this finds it gone. A check taken off
  // leaves what it showed in the service's past bars, as a deleted check does: in the transaction that
  // unlinks it.
  const { row, checkIds } = await inTransaction(ctx, async (tx) => {
    const row = await repo.lockService(tx, accountId, id, 'change')
    if (!row) throw notFound(`Service ${id} not found`)
    const checkIds = await lockLinkedChecks(tx, accountId, body.checkIds ?? [])
    const before = (await repo.checkIdsOfServices(tx, [id])).get(id) ?? []
    for (const checkId of before.filter((c) => !checkIds.includes(c))) {
      await keepStatusHistory(tx, accountId, checkId, [id])
    }
    await repo.replaceService(tx, id, changes, checkIds)
    return { row, checkIds }
  })
  await touchPages(ctx, await pageIdsShowingServices(ctx, [id]))
  return toService({ ...row, ...changes }, checkIds)
}

/**
 * A service shown on a status page can't be deleted: take it off the page's cards first. Nor can one a
 * check's triggerIncident names: the check would stop opening incidents and refuse every later update.
 */
export async function deleteService(ctx: ServiceContext, accountId: string, id: string): Promise<void> {
  // Locked first: a page or check being saved with it commits before (and is seen), or waits and finds
  // it gone.
  await inTransaction(ctx, async (tx) => {
    if (!(await repo.lockService(tx, accountId, id, 'exclusive'))) throw notFound(`Service ${id} not found`)
    const pages = await pageIdsShowingServices(tx, [id])
    if (pages.length > 0) {
      throw conflict(
        `Service ${id} is shown on ${pages.length} status page(s): take it off their cards first`,
      )
    }
    const names = (check: { definition: string }) =>
      (JSON.parse(check.definition) as { triggerIncident?: { serviceId?: string } | null }).triggerIncident
        ?.serviceId === id
    const checks = (await listChecksOfAccount(tx, accountId)).filter(names).length
    if (checks > 0) {
      throw conflict(
        `Service ${id} is named by the triggerIncident of ${checks} check(s): change or remove it there first`,
      )
    }
    await repo.deleteService(tx, id)
  })
}

/**
 * The account's services among `ids`, in the order asked; 400 naming `path` for an unknown one. In a
 * transaction, they stay (a deletion waits for it to end) and one deleted meanwhile is unknown.
 */
export async function servicesOfAccount(
  ctx: ServiceContext,
  accountId: string,
  ids: string[],
  pathOf: (index: number) => string,
) {
  const found = new Map(
    (await repo.lockReferencedServices(ctx, accountId, [...new Set(ids)])).map((r) => [r.id, r]),
  )
  return ids.map((id, index) => {
    const row = found.get(id)
    if (!row) throw invalid(pathOf(index), `unknown service ${id}`)
    return row
  })
}

/** `ids` without repeats, each a check of the account locked as referenced; 400 naming an unknown one. */
async function lockLinkedChecks(ctx: ServiceContext, accountId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)]
  const found = await lockReferencedChecks(ctx, accountId, unique)
  const missing = unique.find((id) => !found.has(id))
  if (missing !== undefined)
    throw invalid(`body.checkIds.${ids.indexOf(missing)}`, `unknown check ${missing}`)
  return unique
}

async function findOrThrow(ctx: ServiceContext, accountId: string, id: string) {
  const row = await repo.findService(ctx, accountId, id)
  if (!row) throw notFound(`Service ${id} not found`)
  return row
}

export function toService(row: StatusPageServicesTable, checkIds: string[]): Service {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    accountId: row.account_id,
    checkIds,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** For the retention sweep: forgets the status history deleted checks left, of the days before `beforeDay`. */
export function pruneServiceDays(ctx: ServiceContext, accountId: string, beforeDay: string) {
  return repo.pruneServiceDays(ctx, accountId, beforeDay)
}
