import { instantAt, wallAt } from '@svc/core'
import dayjs from 'dayjs'
import utc from 'dayjs/plugin/utc.js'
import type { WindowRow } from './maintenance-windows.repo.ts'

dayjs.extend(utc)

/** A window covers `at` when one of its occurrences (the first, or a repeat) started by `at` and has not ended. */
export function isActive(window: WindowRow, at: Date): boolean {
  return activeOccurrence(window, at) !== null
}

/** The index of the occurrence of `window` (by its schedule) that covers `at`, or null. */
export function activeOccurrence(window: WindowRow, at: Date): number | null {
  const atMs = at.getTime()
  const schedule = scheduleOf(window)
  if (atMs < schedule.startMs) return null
  if (!schedule.repeat) return atMs < schedule.endMs ? 0 : null
  const k = schedule.lastStartedBy(atMs)
  const [from, to] = schedule.occurrence(k)
  if (from > schedule.repeatEndMs) return null
  return atMs < to ? k : null
}

/**
 * The occurrences ([start, end) in ms) of a window that overlap [fromMs, toMs], oldest first: the
 * same occurrences `isActive` reads.
 */
export function occurrencesBetween(window: WindowRow, fromMs: number, toMs: number): [number, number][] {
  return indexedOccurrencesBetween(window, fromMs, toMs).map(({ span }) => span)
}

/** `occurrencesBetween`, each with its index in the schedule. */
export function indexedOccurrencesBetween(
  window: WindowRow,
  fromMs: number,
  toMs: number,
): { k: number; span: [number, number] }[] {
  const schedule = scheduleOf(window)
  if (!schedule.repeat)
    return schedule.startMs <= toMs && schedule.endMs > fromMs
      ? [{ k: 0, span: [schedule.startMs, schedule.endMs] }]
      : []
  // From an occurrence a little before the first that can overlap.
  const lengthMs = schedule.endMs - schedule.startMs
  const found: { k: number; span: [number, number] }[] = []
  for (let k = Math.max(0, schedule.lastStartedBy(fromMs - lengthMs) - 1); ; k++) {
    const [from, to] = schedule.occurrence(k)
    if (from > toMs || from > schedule.repeatEndMs) break
    if (to > fromMs && to > from) found.push({ k, span: [from, to] })
  }
  return found
}

/** The k-th occurrence of `window` ([start, end) in ms), or null when its schedule has none. */
export function occurrenceOf(window: WindowRow, k: number): [number, number] | null {
  const schedule = scheduleOf(window)
  if (k < 0 || !Number.isSafeInteger(k) || (!schedule.repeat && k > 0)) return null
  const span = schedule.occurrence(k)
  return span[0] > schedule.repeatEndMs ? null : span
}

/** How many occurrences of `window` start by `atMs` (at least its first). */
export function occurrencesStartedBy(window: WindowRow, atMs: number): number {
  const schedule = scheduleOf(window)
  if (!schedule.repeat) return 1
  const last = schedule.lastStartedBy(Math.min(atMs, schedule.repeatEndMs))
  return schedule.occurrence(last)[0] > schedule.repeatEndMs ? last : last + 1
}

/**
 * A window's occurrences. The k-th starts k × interval units after the first on the wall clock of
 * its zone (UTC without one) and lasts as long on that clock, so a 02:00–03:00 window stays at 02:00
 * local across DST changes. The first is the stored instants as they are.
 */
function scheduleOf(window: WindowRow) {
  const zone = window.timezone ?? 'UTC'
  const startMs = Date.parse(window.starts_at)
  const endMs = Date.parse(window.ends_at)
  const wallStart = dayjs.utc(wallAt(startMs, zone))
  const wallLengthMs = wallAt(endMs, zone) - wallStart.valueOf()
  const unit = (window.repeat_unit?.toLowerCase() ?? 'day') as 'day' | 'week' | 'month'
  const interval = window.repeat_interval ?? 1
  const occurrence = (k: number): [number, number] => {
    if (k === 0) return [startMs, endMs]
    const wall = wallStart.add(k * interval, unit).valueOf()
    return [instantAt(wall, zone), instantAt(wall + wallLengthMs, zone)]
  }
  /** The index of the last occurrence started by `atMs` (0 before the first): an estimate, then exact steps. */
  const lastStartedBy = (atMs: number) => {
    let k = Math.max(0, Math.floor(dayjs.utc(wallAt(atMs, zone)).diff(wallStart, unit) / interval))
    while (k > 0 && occurrence(k)[0] > atMs) k--
    while (occurrence(k + 1)[0] <= atMs) k++
    return k
  }
  const repeatEndMs = window.repeat_ends_at ? Date.parse(window.repeat_ends_at) : Number.POSITIVE_INFINITY
  return { repeat: Boolean(window.repeat_unit), startMs, endMs, repeatEndMs, occurrence, lastStartedBy }
}
