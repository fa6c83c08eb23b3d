import { createHash } from 'node:crypto'
import type { CheckResultsTable } from '@svc/db'
import { isRecord } from './result-detail.ts'

/**
 * How a result's detail is stored. A failing, degraded, erroring or cancelled result keeps its detail as
 * the runner gave it, and so does every result of a check type other than URL and API. A passing URL or
 * API result whose detail is the same as the last one kept in full for its check and location, apart from
 * its timings and its `date` header, is stored as its timings, TLS certificate and a hash of the rest:
 * the request, response headers, body and assertions are those of that kept one, and reads that show them
 * copy them from it (`withCopiedDetails`). One in full is kept at least every `KEEP_FULL_EVERY_MS` per
 * check and location, and after every change (a server start keeps the next one). What analytics and
 * alerting (SSL days) read of a passing result stays stored.
 */

const HTTP_DETAIL_KEYS: Record<string, string> = { URL: 'urlCheckResult', API: 'apiCheckResult' }
/** An HTTP result's timing phases, in the order a compact detail stores them. */
const HTTP_TIMING_PHASES = ['wait', 'dns', 'tcp', 'tls', 'firstByte', 'download', 'total'] as const
const KEEP_FULL_EVERY_MS = 60 * 60_000

/** What a result read back says when its detail was not kept (top level of the API's result). */
export const DETAIL_OMITTED = 'detailOmitted'
/** The result whose request, response and assertions a result read back shows (top level). */
export const DETAIL_COPIED_FROM = 'detailCopiedFrom'
export const KEPT_WITHIN_MS = KEEP_FULL_EVERY_MS

/** The last detail kept in full per check and location in this process: its signature's hash and when. */
const lastKept = new Map<string, { signature: string; atMs: number }>()
/** Bounds the map: past it, it starts again (the next result of each check is kept in full). */
const LAST_KEPT_MAX = 200_000

/** The `detail` to store for `row`: as it is, or its compact form (see above). */
export function storedDetailOf(row: CheckResultsTable): string {
  const key = HTTP_DETAIL_KEYS[row.check_type]
  if (!key || row.has_failures || row.has_errors || row.is_degraded || row.is_cancelled) return row.detail
  const http = httpDetailOf(row.detail, key)
  if (!http) return row.detail
  const { phases, signature, tls } = http
  const slot = `${row.check_id}|${row.run_location}`
  const atMs = Date.parse(row.started_at)
  const kept = lastKept.get(slot)
  if (kept && kept.signature === signature && atMs >= kept.atMs && atMs - kept.atMs < KEEP_FULL_EVERY_MS)
    return JSON.stringify([phases, tls, signature])
  if (lastKept.size >= LAST_KEPT_MAX) lastKept.clear()
  lastKept.set(slot, { signature, atMs })
  return row.detail
}

/** `row` as stored, its detail expanded back into the runner's shape when compact, marked as such. */
export function withReadableDetail<Row extends Pick<CheckResultsTable, 'detail' | 'check_type'>>(
  row: Row,
): Row {
  if (typeof row.detail !== 'string' || !row.detail.startsWith('[')) return row
  const key = HTTP_DETAIL_KEYS[row.check_type]
  let compact: unknown
  try {
    compact = JSON.parse(row.detail)
  } catch {
    return row
  }
  const [phases, tls] = Array.isArray(compact) ? compact : []
  if (!key || !Array.isArray(phases)) return row
  const timingPhases = Object.fromEntries(HTTP_TIMING_PHASES.map((name, i) => [name, phases[i]]))
  return { ...row, detail: JSON.stringify({ [key]: { timingPhases, tls }, [DETAIL_OMITTED]: true }) }
}

/** The hash of the rest of a compact row's detail, undefined for a row stored in full. */
export function signatureOfCompact(row: Pick<CheckResultsTable, 'detail'>): string | undefined {
  if (!isCompact(row)) return undefined
  try {
    const signature = (JSON.parse(row.detail) as unknown[])[2]
    return typeof signature === 'string' ? signature : undefined
  } catch {
    return undefined
  }
}

export const isCompact = (row: Pick<CheckResultsTable, 'detail'>) =>
  typeof row.detail === 'string' && row.detail.startsWith('[')

/** The hash of a full stored detail's steady part, as a compact row names it; undefined when not HTTP. */
export function signatureOfFull(row: Pick<CheckResultsTable, 'detail' | 'check_type'>): string | undefined {
  const key = HTTP_DETAIL_KEYS[row.check_type]
  return key && !isCompact(row) ? httpDetailOf(row.detail, key)?.signature : undefined
}

/**
 * A compact row's detail completed from `kept`, the result kept in full it repeats: its request,
 * response and assertions, with this row's timings and certificate, and without the kept one's `date`.
 */
export function copiedDetail<Row extends Pick<CheckResultsTable, 'detail' | 'check_type'>>(
  row: Row,
  kept: Pick<CheckResultsTable, 'detail' | 'id'>,
): Row {
  const key = HTTP_DETAIL_KEYS[row.check_type] as string
  const own = (JSON.parse(withReadableDetail(row).detail) as Record<string, Record<string, unknown>>)[key]
  const full = JSON.parse(kept.detail)[key] as Record<string, unknown>
  const response = isRecord(full.response) ? full.response : undefined
  const headers = response && isRecord(response.headers) ? response.headers : undefined
  const { date: _date, ...steadyHeaders } = headers ?? {}
  const detail = {
    ...full,
    ...(response ? { response: { ...response, headers: headers && steadyHeaders } } : {}),
    ...own,
  }
  return {
    ...row,
    detail: JSON.stringify({ [key]: detail, [DETAIL_OMITTED]: true, [DETAIL_COPIED_FROM]: kept.id }),
  }
}

/**
 * The parts of a stored HTTP detail that compact form keeps, and the signature of the rest; undefined
 * when it is not the runner's shape (an agent's odd detail is kept as posted).
 */
function httpDetailOf(detail: string, key: string) {
  let parsed: unknown
  try {
    parsed = JSON.parse(detail)
  } catch {
    return undefined
  }
  if (!isRecord(parsed) || Object.keys(parsed).length !== 1 || !isRecord(parsed[key])) return undefined
  const { timingPhases, ...rest } = parsed[key]
  if (!isRecord(timingPhases) || Object.keys(timingPhases).length !== HTTP_TIMING_PHASES.length)
    return undefined
  const phases = HTTP_TIMING_PHASES.map((name) => timingPhases[name])
  if (!phases.every((value) => typeof value === 'number' && Number.isFinite(value))) return undefined
  const tls = rest.tls ?? null
  if (tls !== null && !isRecord(tls)) return undefined
  // The date header changes every run; anything else that changes makes this result kept in full.
  const response = isRecord(rest.response) ? rest.response : undefined
  const headers = response && isRecord(response.headers) ? response.headers : undefined
  const { date: _date, ...steadyHeaders } = headers ?? {}
  const steady = response ? { ...rest, response: { ...response, headers: headers && steadyHeaders } } : rest
  const signature = createHash('sha256').update(JSON.stringify(steady)).digest('base64url').slice(0, 12)
  return { phases: phases as number[], tls, signature }
}
