import { randomUUID } from 'node:crypto'
import { isoNow, type ServiceContext } from '../../context.ts'
import { invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { inTransaction } from '../../transactions.ts'
import { enqueueMaintenanceNotifications } from '../status-page-subscribers/maintenance-notices.service.ts'
import * as repo from './maintenance-occurrences.repo.ts'
import type {
  MaintenanceOccurrence,
  MaintenanceOccurrenceUpdate,
  MoveOccurrenceBody,
  OccurrenceStatus,
  OccurrenceUpdateBody,
  OccurrenceUpdateEditBody,
} from './maintenance-occurrences.schemas.ts'
import { occurrenceOf, occurrencesStartedBy } from './maintenance-schedule.ts'
import type { WindowRow } from './maintenance-windows.repo.ts'
import { coversTags, findOrThrow, instantOfInput } from './maintenance-windows.service.ts'

/**
 * The occurrences ("maintenances") of a window: its schedule gives each one; an occurrence changed by
 * hand (moved, cancelled, deleted, given a status) is a row that replaces what the schedule gives it.
 * Its id is its index in the schedule, so a changed schedule forgets the changes (see `updateWindow`).
 */

const LIST_HORIZON_MS = 365 * 86_400_000
const DELETED = 'DELETED'

interface Resolved {
  window: WindowRow
  k: number
  span: [number, number]
  override: repo.OccurrenceRow | undefined
}

export async function listOccurrences(ctx: ServiceContext, accountId: string, windowId: number, page: Page) {
  const window = await findOrThrow(ctx, accountId, windowId)
  const overrides = new Map((await repo.occurrencesOfWindow(ctx, windowId)).map((o) => [o.occurrence, o]))
  const updates = await repo.updatesOfWindow(ctx, windowId)
  // Every occurrence that started, and those starting within a year (a window's first always).
  const count = occurrencesStartedBy(window, ctx.clock.now().getTime() + LIST_HORIZON_MS)
  const items: MaintenanceOccurrence[] = []
  let total = 0
  for (let k = 0; k < count; k++) {
    const override = overrides.get(k)
    if (override?.status === DELETED) continue
    total++
    if (total <= page.offset || items.length >= page.limit) continue
    const span = occurrenceOf(window, k)
    if (!span) break
    items.push(toView(ctx, { window, k, span, override }, updates))
  }
  return { items, total }
}

export async function getOccurrence(ctx: ServiceContext, accountId: string, windowId: number, id: string) {
  const found = await resolve(ctx, accountId, windowId, id)
  return toView(ctx, found, await repo.updatesOfWindow(ctx, windowId))
}

/** Moves one occurrence; the others keep to the schedule. A date alone is midnight in the window's zone. */
export async function moveOccurrence(
  ctx: ServiceContext,
  accountId: string,
  windowId: number,
  id: string,
  body: MoveOccurrenceBody,
) {
  return inTransaction(ctx, async (tx) => {
    const found = await resolve(tx, accountId, windowId, id, true)
    const [from, to] = spanOf(found)
    const zone = found.window.timezone ?? 'UTC'
    const startsAt = body.startsAt === undefined ? from : instantOfInput(body.startsAt, zone)
    const endsAt = body.endsAt === undefined ? to : instantOfInput(body.endsAt, zone)
    if (endsAt <= startsAt) throw invalid('body.endsAt', 'must be after startsAt')
    await save(tx, found, { starts_at: iso(startsAt), ends_at: iso(endsAt) })
    return getOccurrence(tx, accountId, windowId, id)
  })
}

/** Deletes one occurrence: it covers nothing and leaves the list; the window's other occurrences stay. */
export async function deleteOccurrence(ctx: ServiceContext, accountId: string, windowId: number, id: string) {
  await inTransaction(ctx, async (tx) => {
    const found = await resolve(tx, accountId, windowId, id, true)
    await save(tx, found, { status: DELETED })
  })
}

/**
 * Posts a status update, which acts on the occurrence: CANCELLED stops it covering anything;
 * IN_PROGRESS or VERIFYING before its start starts it now; COMPLETED before its end ends it now;
 * SCHEDULED, IN_PROGRESS and COMPLETED take a cancellation back.
 */
export async function postUpdate(
  ctx: ServiceContext,
  accountId: string,
  windowId: number,
  id: string,
  body: OccurrenceUpdateBody,
) {
  return inTransaction(ctx, async (tx) => {
    const found = await resolve(tx, accountId, windowId, id, true)
    const nowMs = tx.clock.now().getTime()
    const [from, to] = spanOf(found)
    const previousStatus = statusOf(found, nowMs)
    let [newFrom, newTo] = [from, to]
    if ((body.status === 'IN_PROGRESS' || body.status === 'VERIFYING') && nowMs < from) newFrom = nowMs
    if (body.status === 'COMPLETED' && nowMs < to) [newFrom, newTo] = [Math.min(from, nowMs), nowMs]
    const kept = body.status === 'CANCELLED' || body.status === 'VERIFYING' ? body.status : null
    await save(tx, found, { starts_at: iso(newFrom), ends_at: iso(newTo), status: kept })
    const adjusted = newFrom !== from || newTo !== to
    const row = await repo.insertUpdate(tx, {
      id: randomUUID(),
      window_id: windowId,
      occurrence: found.k,
      status: body.status,
      description: body.description,
      notify_subscribers: body.notifySubscribers ?? false,
      previous_status: previousStatus,
      previous_starts_at: iso(from),
      previous_ends_at: iso(to),
      adjusted_starts_at: adjusted ? iso(newFrom) : null,
      adjusted_ends_at: adjusted ? iso(newTo) : null,
      created_at: isoNow(tx),
    })
    if (row.notify_subscribers) await notifySubscribers(tx, found.window, row, [newFrom, newTo])
    return updateView(row)
  })
}

/** Mails the update to the subscribers of the status pages its window's checks show on. */
async function notifySubscribers(
  tx: ServiceContext,
  window: WindowRow,
  update: repo.OccurrenceUpdateRow,
  [from, to]: [number, number],
) {
  const windowTags = [JSON.parse(window.tags) as string[]]
  await enqueueMaintenanceNotifications(tx, {
    accountId: window.account_id,
    updateId: update.id,
    windowName: window.name,
    status: update.status,
    description: update.description,
    startsAt: iso(from),
    endsAt: iso(to),
    coversTags: (tags) => coversTags(windowTags, tags),
  })
}

/** Edits an update's text and status as recorded; what it did to the occurrence stays. */
export async function editUpdate(
  ctx: ServiceContext,
  accountId: string,
  windowId: number,
  id: string,
  updateId: string,
  body: OccurrenceUpdateEditBody,
) {
  const found = await resolve(ctx, accountId, windowId, id)
  const row = await findUpdateOrThrow(ctx, found, updateId)
  const changes = { description: body.description, status: body.status ?? row.status }
  await repo.changeUpdate(ctx, row.id, changes)
  return updateView({ ...row, ...changes })
}

export async function deleteUpdate(
  ctx: ServiceContext,
  accountId: string,
  windowId: number,
  id: string,
  updateId: string,
) {
  const found = await resolve(ctx, accountId, windowId, id)
  await repo.deleteUpdate(ctx, (await findUpdateOrThrow(ctx, found, updateId)).id)
}

async function findUpdateOrThrow(ctx: ServiceContext, found: Resolved, updateId: string) {
  const row = await repo.findUpdate(ctx, found.window.id, found.k, updateId)
  if (!row) throw notFound(`Maintenance update ${updateId} not found`)
  return row
}

/** The occurrence `id` names: its index in the window's schedule. Deleted ones are gone. */
async function resolve(
  ctx: ServiceContext,
  accountId: string,
  windowId: number,
  id: string,
  forChange = false,
): Promise<Resolved> {
  const window = await findOrThrow(ctx, accountId, windowId, forChange ? 'change' : undefined)
  const k = /^\d{1,9}$/.test(id) ? Number(id) : -1
  const span = k < 0 ? null : occurrenceOf(window, k)
  const override = span ? await repo.findOccurrence(ctx, windowId, k) : undefined
  if (!span || override?.status === DELETED)
    throw notFound(`Maintenance ${id} of maintenance window ${windowId} not found`)
  return { window, k, span, override }
}

async function save(
  ctx: ServiceContext,
  found: Resolved,
  changes: Partial<Pick<repo.OccurrenceRow, 'starts_at' | 'ends_at' | 'status'>>,
) {
  const now = isoNow(ctx)
  const [from, to] = spanOf(found)
  await repo.upsertOccurrence(ctx, {
    window_id: found.window.id,
    occurrence: found.k,
    account_id: found.window.account_id,
    original_starts_at: iso(found.span[0]),
    original_ends_at: iso(found.span[1]),
    starts_at: changes.starts_at ?? iso(from),
    ends_at: changes.ends_at ?? iso(to),
    status: changes.status === undefined ? (found.override?.status ?? null) : changes.status,
    created_at: found.override?.created_at ?? now,
    updated_at: now,
  })
}

function spanOf({ span, override }: Resolved): [number, number] {
  return override ? [Date.parse(override.starts_at), Date.parse(override.ends_at)] : span
}

function statusOf(found: Resolved, nowMs: number): OccurrenceStatus {
  if (found.override?.status === 'CANCELLED') return 'CANCELLED'
  const [from, to] = spanOf(found)
  if (nowMs < from) return 'SCHEDULED'
  if (nowMs < to) return found.override?.status === 'VERIFYING' ? 'VERIFYING' : 'IN_PROGRESS'
  return 'COMPLETED'
}

function toView(
  ctx: ServiceContext,
  found: Resolved,
  updates: repo.OccurrenceUpdateRow[],
): MaintenanceOccurrence {
  const [from, to] = spanOf(found)
  return {
    id: String(found.k),
    maintenanceWindowId: found.window.id,
    startsAt: iso(from),
    endsAt: iso(to),
    status: statusOf(found, ctx.clock.now().getTime()),
    created_at: found.override?.created_at ?? found.window.updated_at,
    updated_at: found.override?.updated_at ?? found.window.updated_at,
    updates: updates.filter((u) => u.occurrence === found.k).map(updateView),
  }
}

function updateView(row: repo.OccurrenceUpdateRow): MaintenanceOccurrenceUpdate {
  return {
    id: row.id,
    maintenanceWindowId: row.window_id,
    maintenanceId: String(row.occurrence),
    status: row.status as OccurrenceStatus,
    description: row.description,
    notifySubscribers: Boolean(row.notify_subscribers),
    created_at: row.created_at,
    previousStatus: row.previous_status,
    previousStartsAt: row.previous_starts_at,
    previousEndsAt: row.previous_ends_at,
    dateAdjustments:
      row.adjusted_starts_at && row.adjusted_ends_at
        ? { startsAt: row.adjusted_starts_at, endsAt: row.adjusted_ends_at }
        : null,
  }
}

const iso = (ms: number) => new Date(ms).toISOString()
