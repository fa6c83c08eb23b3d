/** Analytics windows and buckets in an account's time zone (IANA), DST-correct. */

export const QUICK_RANGES = [
  'last24Hours',
  'last7Days',
  'last30Days',
  'thisWeek',
  'thisMonth',
  'lastWeek',
  'lastMonth',
] as const
export type QuickRange = (typeof QUICK_RANGES)[number]

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS
const MINUTES_PER_DAY = 1440

export interface LocalDate {
  year: number
  /** 1–12 */
  month: number
  day: number
  /** 0 Monday … 6 Sunday (weeks start on Monday, ISO 8601). */
  weekday: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']

function partsAt(ms: number, timeZone: string) {
  const parts: Record<string, string> = {}
  for (const part of formatterFor(timeZone).formatToParts(ms)) parts[part.type] = part.value
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
  }
}

/** The calendar date in `timeZone` at instant `ms`. */
export function localDateAt(ms: number, timeZone: string): LocalDate {
  if (timeZone === 'UTC') {
    const date = new Date(ms)
    const weekday = (date.getUTCDay() + 6) % 7
    return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), weekday }
  }
  const { year, month, day, weekday } = partsAt(ms, timeZone)
  return { year, month, day, weekday }
}

/** How far `timeZone` is ahead of UTC at instant `ms`. */
function offsetMs(ms: number, timeZone: string): number {
  return wallAt(ms, timeZone) - ms
}

/**
 * The wall-clock reading in `zone` at instant `ms`, as the milliseconds the same reading would have in
 * UTC: adding days or months to such a reading keeps the local time of day across DST changes.
 */
export function wallAt(ms: number, zone: string): number {
  if (zone === 'UTC') return ms
  const hour = Math.floor(ms / HOUR_MS)
  const key = `${zone} ${hour}`
  let offset = hourOffsets.get(key)
  if (offset === undefined) {
    // No zone changes its offset twice within an hour: the same offset at both ends holds throughout.
    const first = offsetByParts(hour * HOUR_MS, zone)
    offset = first === offsetByParts((hour + 1) * HOUR_MS - 1000, zone) ? first : null
    if (hourOffsets.size >= MAX_CACHED_HOURS) hourOffsets.clear()
    hourOffsets.set(key, offset)
  }
  return ms + (offset ?? offsetByParts(ms, zone))
}

/**
 * Offsets by zone and UTC hour (null: it changes within that hour). Intl's formatToParts takes ~5–30 µs,
 * and deciding "in maintenance" reads a handful of readings per window for every check evaluated.
 */
const hourOffsets = new Map<string, number | null>()
const MAX_CACHED_HOURS = 20_000

/** How far `zone` is ahead of UTC at `ms`, read from Intl (whole seconds). */
function offsetByParts(ms: number, zone: string): number {
  const p = partsAt(ms, zone)
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  return asUtc - Math.floor(ms / 1000) * 1000
}

/**
 * The instant the wall clock of `zone` reads `wall` (see `wallAt`). Where clocks go back and the
 * reading happens twice, the first; where they jump forward over it, the reading counted on at the
 * offset before the jump (02:30 in a 02:00→03:00 jump is 03:30), as calendar apps do.
 */
export function instantAt(wall: number, zone: string): number {
  if (zone === 'UTC') return wall
  const offsetBefore = wallAt(wall - DAY_MS, zone) - (wall - DAY_MS)
  const offsetAfter = wallAt(wall + DAY_MS, zone) - (wall + DAY_MS)
  const readings = [wall - offsetBefore, wall - offsetAfter].filter((ms) => wallAt(ms, zone) === wall)
  return readings.length > 0 ? Math.min(...readings) : wall - offsetBefore
}

/**
 * The instant local midnight starts `year-month-day` in `timeZone` (month and day may overflow, as
 * Date.UTC allows). Where midnight doesn't exist (a DST jump at 00:00) it is the first instant of the day.
 */
export function startOfLocalDay(year: number, month: number, day: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day)
  if (timeZone === 'UTC') return wall
  let guess = wall - offsetMs(wall, timeZone)
  guess = wall - offsetMs(guess, timeZone)
  const date = localDateAt(guess, timeZone)
  const wanted = new Date(wall)
  if (date.day !== wanted.getUTCDate()) {
    // Midnight was skipped: step forward to the first hour that exists on that day.
    while (localDateAt(guess, timeZone).day !== wanted.getUTCDate()) guess += HOUR_MS / 4
  }
  return guess
}

/**
 * The window a query covers: `from`/`to` (unix seconds) when given, else the quick range in the
 * account's time zone, ending now for the ranges that include today.
 */
export function resolveWindow(
  query: { from?: number; to?: number; quickRange?: QuickRange },
  timeZone: string,
  nowMs: number,
): { fromMs: number; toMs: number } {
  const range = query.quickRange ?? 'last24Hours'
  let fromMs: number
  let toMs = nowMs
  const today = localDateAt(nowMs, timeZone)
  const dayStart = (offsetDays: number) =>
    startOfLocalDay(today.year, today.month, today.day + offsetDays, timeZone)
  switch (range) {
    case 'last24Hours':
      fromMs = nowMs - DAY_MS
      break
    case 'last7Days':
      fromMs = nowMs - 7 * DAY_MS
      break
    case 'last30Days':
      fromMs = nowMs - 30 * DAY_MS
      break
    case 'thisWeek':
      fromMs = dayStart(-today.weekday)
      break
    case 'lastWeek':
      fromMs = dayStart(-today.weekday - 7)
      toMs = dayStart(-today.weekday)
      break
    case 'thisMonth':
      fromMs = startOfLocalDay(today.year, today.month, 1, timeZone)
      break
    case 'lastMonth':
      fromMs = startOfLocalDay(today.year, today.month - 1, 1, timeZone)
      toMs = startOfLocalDay(today.year, today.month, 1, timeZone)
      break
  }
  if (query.from !== undefined) fromMs = query.from * 1000
  if (query.to !== undefined) toMs = query.to * 1000
  return { fromMs, toMs }
}

/**
 * Bucket start instants covering [fromMs, toMs), the first one clipped to `fromMs`. An interval of whole
 * days follows the local calendar (buckets start at local midnight, so a DST day is 23 or 25 hours long);
 * an interval that divides a day is laid on a grid from each local midnight (hours start on the local
 * hour; a day's last bucket ends at the next midnight); any other interval is a fixed length counted from
 * `fromMs`. With `max`, it stops once it has more than `max` starts (so a caller refusing that many
 * never lays out billions of them).
 */
export function bucketStarts(
  fromMs: number,
  toMs: number,
  intervalMinutes: number,
  timeZone: string,
  max = Number.POSITIVE_INFINITY,
): number[] {
  const starts: number[] = []
  const intervalMs = intervalMinutes * 60_000
  if (intervalMinutes % MINUTES_PER_DAY === 0) {
    const days = intervalMinutes / MINUTES_PER_DAY
    const first = localDateAt(fromMs, timeZone)
    let start = startOfLocalDay(first.year, first.month, first.day, timeZone)
    for (let i = 1; start < toMs && starts.length <= max; i++) {
      const next = startOfLocalDay(first.year, first.month, first.day + i * days, timeZone)
      if (next > fromMs) starts.push(Math.max(start, fromMs))
      start = next
    }
    return starts
  }
  if (MINUTES_PER_DAY % intervalMinutes === 0) {
    const first = localDateAt(fromMs, timeZone)
    let dayStart = startOfLocalDay(first.year, first.month, first.day, timeZone)
    for (let i = 1; dayStart < toMs && starts.length <= max; i++) {
      const nextDay = startOfLocalDay(first.year, first.month, first.day + i, timeZone)
      for (let start = dayStart; start < nextDay && start < toMs; start += intervalMs) {
        if (Math.min(start + intervalMs, nextDay) > fromMs) starts.push(Math.max(start, fromMs))
      }
      dayStart = nextDay
    }
    return starts
  }
  for (let start = fromMs; start < toMs && starts.length <= max; start += intervalMs) starts.push(start)
  return starts
}

/**
 * Rollup resolutions in minutes, coarsest first: local days (in the time zone the account had when the
 * result was folded), and hours and minutes aligned to UTC. Every real time zone's offset is whole
 * minutes, and whole hours for most, so hour rows serve most local-hour grids too.
 */
export const ROLLUP_RESOLUTIONS = [1440, 60, 1] as const

export interface RollupRange {
  resolution: number
  fromMs: number
  toMs: number
}

/** Every local midnight from the one that starts the day of `fromMs` to the first after `toMs`. */
export function localMidnights(fromMs: number, toMs: number, timeZone: string): number[] {
  const first = localDateAt(fromMs, timeZone)
  const midnights: number[] = []
  for (let i = 0; ; i++) {
    const midnight = startOfLocalDay(first.year, first.month, first.day + i, timeZone)
    midnights.push(midnight)
    if (midnight > toMs) return midnights
  }
}

/**
 * The rollup rows that cover the buckets between `boundaries` (ascending whole minutes: every bucket
 * start, then the window end) with the fewest rows. `days` are the local midnights whose day rows are
 * complete (ascending, each followed by the next midnight): a day row serves a day that lies wholly in a
 * bucket; around them, hour rows where whole UTC hours fit, minute rows elsewhere. Touching ranges of one
 * resolution are joined, so a query reads a few ranges per resolution.
 */
export function rollupRanges(boundaries: number[], days: number[] = []): RollupRange[] {
  const HOUR_MS = 3_600_000
  const ranges: RollupRange[] = []
  const last = new Map<number, RollupRange>()
  const emit = (resolution: number, fromMs: number, toMs: number) => {
    const previous = last.get(resolution)
    if (previous && previous.toMs === fromMs) previous.toMs = toMs
    else {
      const range = { resolution, fromMs, toMs }
      ranges.push(range)
      last.set(resolution, range)
    }
  }
  // The first index of `days` at or after `at`.
  const dayIndexFrom = (at: number) => {
    let low = 0
    let high = days.length
    while (low < high) {
      const mid = (low + high) >> 1
      if ((days[mid] as number) < at) low = mid + 1
      else high = mid
    }
    return low
  }
  for (let i = 0; i + 1 < boundaries.length; i++) {
    let at = boundaries[i] as number
    const end = boundaries[i + 1] as number
    while (at < end) {
      if (at % 60_000 !== 0) throw new Error(`bucket boundary ${at} is not a whole minute`)
      // Whole local days from here on, as many as fit.
      let d = dayIndexFrom(at)
      if (days[d] === at && d + 1 < days.length && (days[d + 1] as number) <= end) {
        while (d + 1 < days.length && (days[d + 1] as number) <= end) d++
        emit(1440, at, days[d] as number)
        at = days[d] as number
        continue
      }
      // Where the next usable day row starts, finer rows stop.
      let stop = end
      const nextDay = days[dayIndexFrom(at)]
      const afterNext = days[dayIndexFrom(at) + 1]
      if (nextDay !== undefined && afterNext !== undefined && afterNext <= end) stop = Math.min(stop, nextDay)
      if (at % HOUR_MS === 0 && at + HOUR_MS <= stop) {
        const until = Math.floor(stop / HOUR_MS) * HOUR_MS
        emit(60, at, until)
        at = until
        continue
      }
      const hour = Math.ceil((at + 1) / HOUR_MS) * HOUR_MS
      const until = hour + HOUR_MS <= stop ? hour : stop
      emit(1, at, until)
      at = until
    }
  }
  return ranges
}
