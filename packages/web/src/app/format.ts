import { CATALOG_CHECK_TYPES, CHECK_TYPE_CATALOG } from '@svc/core/check-type-catalog'

/** Times in the account's time zone, durations and percentages as people read them. */

let timeZone = 'UTC'

export function setTimeZone(zone: string | undefined): void {
  timeZone = zone || 'UTC'
}

export function currentTimeZone(): string {
  return timeZone
}

/** An instant in the account's time zone, or in `zone` (a maintenance window's) when given. */
export function formatTime(iso: string | null | undefined, withSeconds = false, zone = timeZone): string {
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return '—'
  return formatterFor(withSeconds, zone).format(date)
}

// Making a DateTimeFormat costs far more than formatting with one; a table of 1,000 rows formats 1,000 times.
const formatters = new Map<string, Intl.DateTimeFormat>()
function formatterFor(withSeconds: boolean, zone: string): Intl.DateTimeFormat {
  const key = `${zone}|${withSeconds}`
  let formatter = formatters.get(key)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(undefined, {
      timeZone: zone,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: withSeconds ? '2-digit' : undefined,
    })
    formatters.set(key, formatter)
  }
  return formatter
}

export function formatAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never'
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000)
  if (seconds < 5) return 'just now'
  if (seconds < 60) return `${seconds}s ago`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`
  return `${Math.floor(seconds / 86_400)}d ago`
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—'
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`
  return `${Math.round(ms)} ms`
}

export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—'
  if (value === 100) return '100%'
  return `${value.toFixed(value >= 99 ? 3 : 2)}%`
}

/** Each check type's short name (the overview's type column, filters, titles), from core's catalog. */
export const CHECK_TYPE_LABELS: Record<string, string> = Object.fromEntries(
  CATALOG_CHECK_TYPES.map((type) => [type, CHECK_TYPE_CATALOG[type].short]),
)
