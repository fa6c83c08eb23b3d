import { localDateAt, resolveWindow, startOfLocalDay } from '@svc/core'
import { badRequest } from '../../http/errors.ts'
import { MAX_REPORT_BUCKETS, MAX_REPORT_DAYS, type ReportingQuery } from './reporting.schemas.ts'

const DAY_MS = 86_400_000

export interface Period {
  fromMs: number
  toMs: number
}

/** The report's window: `from`/`to` when given, else the quick range in `timeZone`, ending now. */
export function reportWindow(query: ReportingQuery, timeZone: string, nowMs: number): Period {
  const quickRange = query.quickRange === 'last24Hrs' || !query.quickRange ? 'last24Hours' : query.quickRange
  const window = resolveWindow({ quickRange, from: query.from, to: query.to }, timeZone, nowMs)
  if (window.fromMs >= window.toMs) {
    throw invalidQuery('querystring.from', 'must be before `to` (the window is empty or inverted)')
  }
  return window
}

/** Calendar buckets of `window` in `timeZone` (the first and last clipped to the window). */
export function calendarBuckets(
  window: Period,
  granularity: NonNullable<ReportingQuery['granularity']>,
  timeZone: string,
): Period[] {
  if (window.toMs - window.fromMs > MAX_REPORT_DAYS * DAY_MS) {
    throw invalidQuery('querystring.granularity', `needs a window of at most ${MAX_REPORT_DAYS} days`)
  }
  const first = localDateAt(window.fromMs, timeZone)
  const startAt = (step: number) => {
    if (granularity === 'day') return startOfLocalDay(first.year, first.month, first.day + step, timeZone)
    if (granularity === 'week') {
      return startOfLocalDay(first.year, first.month, first.day - first.weekday + 7 * step, timeZone)
    }
    return startOfLocalDay(first.year, first.month + step, 1, timeZone)
  }
  const buckets: Period[] = []
  for (let step = 0; startAt(step) < window.toMs; step++) {
    if (buckets.length === MAX_REPORT_BUCKETS) {
      throw invalidQuery('querystring.granularity', `makes more than ${MAX_REPORT_BUCKETS} buckets`)
    }
    buckets.push({
      fromMs: Math.max(startAt(step), window.fromMs),
      toMs: Math.min(startAt(step + 1), window.toMs),
    })
  }
  return buckets
}

export function invalidQuery(path: string, message: string) {
  return badRequest(`${path} ${message}`, { errors: [{ path, message }] })
}
