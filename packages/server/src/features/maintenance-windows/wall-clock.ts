/**
 * Wall-clock time in an IANA zone, as the milliseconds the same reading would have in UTC: adding
 * days or months to such a reading keeps the local time of day across DST changes.
 */

const DAY_MS = 86_400_000
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formatters.set(zone, formatter)
  }
  return formatter
}

/** The wall-clock reading in `zone` at instant `ms`. */
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
const HOUR_MS = 3_600_000
const MAX_CACHED_HOURS = 20_000

/** How far `zone` is ahead of UTC at `ms`, read from Intl (whole seconds). */
function offsetByParts(ms: number, zone: string): number {
  const parts: Record<string, number> = {}
  for (const part of formatterFor(zone).formatToParts(ms)) parts[part.type] = Number(part.value)
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts
  return Date.UTC(year, month - 1, day, hour, minute, second) - (ms - (((ms % 1000) + 1000) % 1000))
}

/**
 * The instant the wall clock of `zone` reads `wall`. Where clocks go back and the reading happens
 * twice, the first; where they jump forward over it, the reading counted on at the offset before the
 * jump (02:30 in a 02:00→03:00 jump is 03:30), as calendar apps do.
 */
export function instantAt(wall: number, zone: string): number {
  if (zone === 'UTC') return wall
  const offsetBefore = wallAt(wall - DAY_MS, zone) - (wall - DAY_MS)
  const offsetAfter = wallAt(wall + DAY_MS, zone) - (wall + DAY_MS)
  const readings = [wall - offsetBefore, wall - offsetAfter].filter((ms) => wallAt(ms, zone) === wall)
  return readings.length > 0 ? Math.min(...readings) : wall - offsetBefore
}
