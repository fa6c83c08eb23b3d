import type { MaintenanceWindowBody, MaintenanceWindowPatch } from '@svc/core'
import { instantAt } from '@svc/core'
import { isoNow, type ServiceContext } from '../../context.ts'
import { cachedFoldRead } from '../../fold-reads.ts'
import { invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { inTransaction, type RowLock } from '../../transactions.ts'
import { canonicalTimeZone } from '../accounts/accounts.service.ts'
import { historyStartMs } from '../status-site/history-days.ts'
import * as occurrencesRepo from './maintenance-occurrences.repo.ts'
import {
  activeOccurrence,
  indexedOccurrencesBetween,
  isActive,
  occurrencesBetween,
} from './maintenance-schedule.ts'
import * as repo from './maintenance-windows.repo.ts'
import type { MaintenanceWindow } from './maintenance-windows.schemas.ts'

export { isActive, occurrencesBetween }

export async function createWindow(ctx: ServiceContext, accountId: string, body: MaintenanceWindowBody) {
  const now = isoNow(ctx)
  const row = await repo.insertWindow(ctx, {
    account_id: accountId,
    ...columnsOf(body),
    // Planned ahead, not declared after the fact: runs before now stay what they were.
    history_from: now,
    created_at: now,
    updated_at: now,
  })
  return toResponse(row)
}

export async function getWindow(ctx: ServiceContext, accountId: string, id: number) {
  return toResponse(await findOrThrow(ctx, accountId, id))
}

export async function listWindows(
  ctx: ServiceContext,
  accountId: string,
  page: Page,
  filters: Record<string, unknown> = {},
) {
  const { rows, total } = await repo.listWindows(ctx, accountId, page, boundsOf(filters))
  return { items: rows.map(toResponse), total }
}

/** The hosted update: the fields sent, merged onto the window, checked whole. */
export async function updateWindow(
  ctx: ServiceContext,
  accountId: string,
  id: number,
  patch: MaintenanceWindowPatch,
) {
  return inTransaction(ctx, async (tx) => {
    const row = await findOrThrow(tx, accountId, id, 'change')
    const columns = columnsOf(mergedBody(row, patch))
    const now = tx.clock.now()
    const changed = await occurrencesRepo.occurrencesOfWindow(tx, id)
    // Occurrences are named by their index in the schedule: a new schedule forgets those changed by hand.
    const newSchedule = SCHEDULE_COLUMNS.some((column) => row[column] !== columns[column])
    // A change to what it gave the past keeps that past as it was, and counts the new schedule and tags
    // from now on.
    const past = countedPast(row, now, changed)
    const after = countedPast({ ...row, ...columns }, now, newSchedule ? [] : changed)
    const pastChanged = !sameTags(row.tags, columns.tags) || !sameIntervals(past, after)
    if (pastChanged) await keepPast(tx, row, past)
    if (newSchedule) await occurrencesRepo.deleteOccurrencesOfWindow(tx, id)
    const changes = {
      ...columns,
      history_from: pastChanged ? now.toISOString() : row.history_from,
      updated_at: now.toISOString(),
    }
    await repo.updateWindow(tx, id, changes)
    return toResponse({ ...row, ...changes })
  })
}

const SCHEDULE_COLUMNS = [
  'starts_at',
  'ends_at',
  'repeat_unit',
  'repeat_interval',
  'repeat_ends_at',
  'timezone',
] as const

/** The window as a create body, with `patch` over it. Dropping `repeatUnit` drops the repeat's other fields. */
function mergedBody(row: repo.WindowRow, patch: MaintenanceWindowPatch): MaintenanceWindowBody {
  const merged = { ...toResponse(row), ...patch }
  const oneOff = 'repeatUnit' in patch && !patch.repeatUnit
  return {
    name: merged.name,
    tags: merged.tags,
    startsAt: merged.startsAt,
    endsAt: merged.endsAt,
    repeatUnit: merged.repeatUnit,
    repeatInterval: oneOff ? (patch.repeatInterval ?? null) : merged.repeatInterval,
    repeatEndsAt: oneOff ? (patch.repeatEndsAt ?? null) : merged.repeatEndsAt,
    timezone: merged.timezone,
  }
}

export async function deleteWindow(ctx: ServiceContext, accountId: string, id: number) {
  await inTransaction(ctx, async (tx) => {
    const row = await findOrThrow(tx, accountId, id, 'exclusive')
    const changed = await occurrencesRepo.occurrencesOfWindow(tx, id)
    await keepPast(tx, row, countedPast(row, tx.clock.now(), changed))
    await repo.deleteWindow(tx, id)
  })
}

/**
 * The maintenance of the account over [fromMs, toMs], for the status history: the periods kept of
 * windows deleted or changed, and the occurrences of the windows as they are since they were created
 * or last changed. Each with the tags it covered (see `coversTags`).
 */
export async function maintenanceHistory(
  ctx: ServiceContext,
  accountId: string,
  fromMs: number,
  toMs: number,
): Promise<{ tags: string[]; occurrences: [number, number][] }[]> {
  const toIso = new Date(toMs).toISOString()
  // Windows first: a deletion or change committing in between then shows in both reads (counted once),
  // never in neither.
  const windows = await repo.windowsFirstStartedBy(ctx, accountId, toIso)
  const periods = await repo.periodsBetween(ctx, accountId, new Date(fromMs).toISOString(), toIso)
  const byTags = new Map<string, [number, number][]>()
  const add = (tags: string, occurrences: [number, number][]) => {
    if (occurrences.length > 0) byTags.set(tags, [...(byTags.get(tags) ?? []), ...occurrences])
  }
  const changed = await occurrencesRepo.occurrencesOfWindows(
    ctx,
    windows.map((w) => w.id),
  )
  for (const w of windows)
    add(
      w.tags,
      countedOccurrences(
        w,
        fromMs,
        toMs,
        changed.filter((o) => o.window_id === w.id),
      ),
    )
  for (const p of periods) add(p.tags, [[Date.parse(p.starts_at), Date.parse(p.ends_at)]])
  return [...byTags].map(([tags, occurrences]) => ({ tags: JSON.parse(tags) as string[], occurrences }))
}

/**
 * The occurrences of `window` over [fromMs, toMs] that count in the status history: from `history_from`
 * on. One changed by hand counts as scheduled until its last change and as changed from then on, so
 * the past stays what the public saw.
 */
function countedOccurrences(
  window: repo.WindowRow,
  fromMs: number,
  toMs: number,
  changed: occurrencesRepo.OccurrenceRow[] = [],
): [number, number][] {
  const historyFromMs = Date.parse(window.history_from)
  const changedByIndex = new Map(changed.map((o) => [o.occurrence, o]))
  const spans: [number, number][] = []
  for (const { k, span } of indexedOccurrencesBetween(window, Math.max(fromMs, historyFromMs), toMs)) {
    const change = changedByIndex.get(k)
    spans.push(change ? [span[0], Math.min(span[1], Date.parse(change.updated_at))] : span)
  }
  for (const o of changed) {
    const span: [number, number] = [
      Math.max(Date.parse(o.starts_at), Date.parse(o.updated_at)),
      Date.parse(o.ends_at),
    ]
    if (coversNow(o.status) && span[1] > fromMs && span[0] <= toMs) spans.push(span)
  }
  return spans
    .map(([from, to]): [number, number] => [Math.max(from, historyFromMs), to])
    .filter(([from, to]) => from < to)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
}

/** What `window` gave the status history up to `now` (as far back as a page shows), cut at `now`. */
function countedPast(
  window: repo.WindowRow,
  now: Date,
  changed: occurrencesRepo.OccurrenceRow[],
): [number, number][] {
  const nowMs = now.getTime()
  return countedOccurrences(window, historyStartMs(now), nowMs, changed)
    .map(([from, to]): [number, number] => [from, Math.min(to, nowMs)])
    .filter(([from, to]) => from < to)
}

function sameTags(a: string, b: string): boolean {
  const sorted = (tags: string) => (JSON.parse(tags) as string[]).sort().join('\n')
  return sorted(a) === sorted(b)
}

function sameIntervals(a: [number, number][], b: [number, number][]): boolean {
  return a.length === b.length && a.every(([from, to], i) => from === b[i]?.[0] && to === b[i]?.[1])
}

async function keepPast(ctx: ServiceContext, window: repo.WindowRow, past: [number, number][]) {
  await repo.insertPeriods(
    ctx,
    past.map(([from, to]) => ({
      account_id: window.account_id,
      tags: window.tags,
      starts_at: new Date(from).toISOString(),
      ends_at: new Date(to).toISOString(),
    })),
  )
}

/**
 * Whether a check with `tags` is in a maintenance window of its account at `at`: what the alert fold
 * asks for each failing result, answered from the account's windows held in memory (fold-reads.ts).
 */
export async function inMaintenance(ctx: ServiceContext, accountId: string, tags: string[], at: Date) {
  if (tags.length === 0) return false
  const all = await cachedFoldRead(ctx, `maintenance:${accountId}`, async () => ({
    windows: await repo.windowsOfAccount(ctx, accountId),
    changed: await occurrencesRepo.occurrencesOfAccount(ctx, accountId),
  }))
  const atIso = at.toISOString()
  const windows = (all?.windows ?? []).filter((w) => repo.startedBy(w, atIso))
  const changed = (all?.changed ?? []).filter((o) => occurrencesRepo.covering(o, atIso))
  return coversTags(tagsActiveAt(windows, changed, at), tags)
}

/** The tag lists of the account's windows active at `at`: one lookup for many checks (see `coversTags`). */
export async function activeWindowTags(
  ctx: ServiceContext,
  accountId: string,
  at: Date,
): Promise<string[][]> {
  const atIso = at.toISOString()
  const windows = await repo.windowsStartedBy(ctx, accountId, atIso)
  const changed = await occurrencesRepo.occurrencesCovering(ctx, accountId, atIso)
  return tagsActiveAt(windows, changed, at)
}

/**
 * The tag lists of `windows` (started by `at`) active at `at`, with `changed` (the changed occurrences
 * covering `at`, originally or now).
 */
function tagsActiveAt(
  windows: repo.WindowRow[],
  changed: {
    window_id: number
    occurrence: number
    starts_at: string
    ends_at: string
    status: string | null
    tags: string
  }[],
  at: Date,
): string[][] {
  const atIso = at.toISOString()
  // An occurrence changed by hand (moved, cancelled, deleted) covers what its row says, not its schedule.
  const changedKeys = new Set(changed.map((o) => `${o.window_id}:${o.occurrence}`))
  const tags: string[][] = []
  for (const w of windows) {
    const k = activeOccurrence(w, at)
    if (k !== null && !changedKeys.has(`${w.id}:${k}`)) tags.push(JSON.parse(w.tags) as string[])
  }
  for (const o of changed)
    if (coversNow(o.status) && o.starts_at <= atIso && atIso < o.ends_at)
      tags.push(JSON.parse(o.tags) as string[])
  return tags
}

/** Whether a changed occurrence in this status silences alerts over its span. */
const coversNow = (status: string | null) => status !== 'CANCELLED' && status !== 'DELETED'

/** Whether one of `windowTags` (from `activeWindowTags`) covers a check with `tags`. */
export function coversTags(windowTags: string[][], tags: string[]): boolean {
  return windowTags.some((wanted) => wanted.some((tag) => tags.includes(tag)))
}

export async function findOrThrow(ctx: ServiceContext, accountId: string, id: number, lock?: RowLock) {
  const row = await repo.findWindow(ctx, accountId, id, lock)
  if (!row) throw notFound(`Maintenance window ${id} not found`)
  return row
}

function columnsOf(body: MaintenanceWindowBody) {
  const timezone = body.timezone == null ? null : canonicalTimeZone(body.timezone)
  if (timezone === undefined) throw invalid('body.timezone', 'is not an IANA time zone')
  const zone = timezone ?? 'UTC'
  const startsAt = instantOfInput(body.startsAt, zone)
  const endsAt = instantOfInput(body.endsAt, zone)
  const repeatEndsAt = body.repeatEndsAt ? instantOfInput(body.repeatEndsAt, zone) : null
  if (endsAt <= startsAt) throw invalid('body.endsAt', 'must be after startsAt')
  const repeating = Boolean(body.repeatUnit)
  if (!repeating && (body.repeatInterval || body.repeatEndsAt))
    throw invalid('body.repeatUnit', 'is required with repeatInterval or repeatEndsAt')
  if (repeatEndsAt !== null && repeatEndsAt < startsAt)
    throw invalid('body.repeatEndsAt', 'must not be before startsAt')
  return {
    name: body.name,
    tags: JSON.stringify([...new Set(body.tags)]),
    starts_at: new Date(startsAt).toISOString(),
    ends_at: new Date(endsAt).toISOString(),
    repeat_unit: body.repeatUnit ?? null,
    repeat_interval: repeating ? (body.repeatInterval ?? 1) : null,
    repeat_ends_at: repeatEndsAt === null ? null : new Date(repeatEndsAt).toISOString(),
    timezone,
  }
}

const FILTER_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const
const FILTER_COLUMNS = { startsAt: 'starts_at', endsAt: 'ends_at' } as const

/** `startsAt[gte]`-style filters (validated by the route) as bounds on the stored instants. */
function boundsOf(filters: Record<string, unknown>): repo.WindowBound[] {
  const bounds: repo.WindowBound[] = []
  for (const [key, value] of Object.entries(filters)) {
    const match = /^(startsAt|endsAt)\[(gte?|lte?)\]$/.exec(key)
    if (!match || typeof value !== 'string') continue
    const iso = new Date(instantOfInput(value, 'UTC')).toISOString()
    const column = FILTER_COLUMNS[match[1] as keyof typeof FILTER_COLUMNS]
    bounds.push({ column, op: FILTER_OPERATORS[match[2] as keyof typeof FILTER_OPERATORS], iso })
  }
  return bounds
}

/** An instant as sent, or a date alone: the midnight that starts it in `zone`. */
export function instantOfInput(value: string, zone: string): number {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (!date) return Date.parse(value)
  return instantAt(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])), zone)
}

function toResponse(row: repo.WindowRow): MaintenanceWindow {
  return {
    id: row.id,
    name: row.name,
    tags: JSON.parse(row.tags),
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    repeatUnit: row.repeat_unit as MaintenanceWindow['repeatUnit'],
    repeatInterval: row.repeat_interval,
    repeatEndsAt: row.repeat_ends_at,
    timezone: row.timezone,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** For the retention sweep: forgets the periods of changed or deleted windows that were over before `beforeIso`. */
export function pruneMaintenancePeriods(ctx: ServiceContext, accountId: string, beforeIso: string) {
  return repo.prunePeriods(ctx, accountId, beforeIso)
}
