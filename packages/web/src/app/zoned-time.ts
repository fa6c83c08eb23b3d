/**
 * A `datetime-local` input's value (`2026-12-01T02:00`) read as the wall clock of an IANA zone, and back:
 * a maintenance window's times are entered in the window's own zone, whatever the browser's is.
 */

/** How far `zone`'s wall clock is ahead of UTC at `instant` (ms); 0 for a zone this browser doesn't know. */
function offsetAt(instant: number, zone: string): number {
  let parts: Intl.DateTimeFormatPart[]
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(instant)
  } catch {
    return 0
  }
  const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value)
  const wall = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  )
  return wall - Math.floor(instant / 1000) * 1000
}

/** The instant (ISO, UTC) at which `zone`'s clock shows `value`; undefined for an empty or bad value. */
export function wallTimeToIso(value: unknown, zone: string): string | undefined {
  const match = typeof value === 'string' && /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)/.exec(value)
  if (!match) return undefined
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ]
  const asUtc = Date.UTC(year, month - 1, day, hour, minute)
  // The offset at the guess, then at the answer: right on both sides of a DST change.
  const first = asUtc - offsetAt(asUtc, zone)
  return new Date(asUtc - offsetAt(first, zone)).toISOString()
}

/** `iso` as `zone`'s wall clock, for a `datetime-local` input; '' when there is none. */
export function isoToWallTime(iso: unknown, zone: string): string {
  if (typeof iso !== 'string') return ''
  const instant = Date.parse(iso)
  if (Number.isNaN(instant)) return ''
  return new Date(instant + offsetAt(instant, zone)).toISOString().slice(0, 16)
}
