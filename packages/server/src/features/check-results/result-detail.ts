import type { CheckResultsTable } from '@svc/db'

/**
 * Reading a stored result's detail. It comes from the runner, or from a private location's agent, whose
 * detail is stored as posted (an agent may be buggy or hostile): every value is checked for its type
 * where it is read, and one of another type reads as absent (undefined).
 */

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A text; with `max`, cut to that many characters (see cutText). */
export const stringOf = (value: unknown, max?: number): string | undefined =>
  typeof value !== 'string' ? undefined : max === undefined ? value : cutText(value, max)

export const numberOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined

/** A whole number within `min`…`max` (both included). */
export const integerOf = (
  value: unknown,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined =>
  Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
    ? (value as number)
    : undefined

/** `text` cut to `max` characters, the last an ellipsis, when longer (never ending in half a surrogate pair). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max - 1
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}…`
}

/** The whole detail of a result: an object keyed by its check type's key (`apiCheckResult`, ...), else {}. */
export function parsedDetailOf(row: Pick<CheckResultsTable, 'detail'> | undefined): Record<string, unknown> {
  if (!row || typeof row.detail !== 'string') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(row.detail)
  } catch {
    return {}
  }
  return isRecord(parsed) ? parsed : {}
}
