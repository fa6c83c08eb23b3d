import type { CheckResultsTable } from '@svc/db'
import { integerOf, isRecord, numberOf, parsedDetailOf, stringOf } from '../check-results/result-detail.ts'

// A result's detail comes from the runner, or from a private location's agent (which may be buggy or
// hostile): every read below checks the shape and skips what is not as expected, so an odd detail
// (not JSON, null, wrong types, huge or deeply nested lists, endless texts) never fails an analysis.
/** At most this many entries of a list in a detail are read. */
export const LIST_READ = 200
/** At most this many characters of a text from a result (its error, its detail) are shown in evidence. */
export const TEXT_SHOWN = 2048
export const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value.slice(0, LIST_READ) : [])

export const detailOf = (row: CheckResultsTable | undefined): Record<string, unknown> => {
  const first = Object.values(parsedDetailOf(row))[0]
  return isRecord(first) ? first : {}
}

export interface HttpDetail {
  request?: { method?: string; url?: string }
  response?: { status?: number; body?: string; contentLength?: string } | null
  tls?: { subject?: string; issuer?: string; validTo?: string } | null
  timingPhases?: Record<string, number>
}

/** The HTTP parts of a result's detail that are of the expected types; the rest is left out. */
export function httpDetailOf(row: CheckResultsTable | undefined): HttpDetail {
  const detail = detailOf(row)
  const http: HttpDetail = {}
  if (isRecord(detail.request)) {
    http.request = {
      method: stringOf(detail.request.method, TEXT_SHOWN),
      url: stringOf(detail.request.url, TEXT_SHOWN),
    }
  }
  if (isRecord(detail.response)) {
    const headers = isRecord(detail.response.headers) ? detail.response.headers : {}
    const length = headers['content-length']
    http.response = {
      status: integerOf(detail.response.status, 100, 999),
      body: stringOf(detail.response.body),
      contentLength: typeof length === 'string' || typeof length === 'number' ? String(length) : undefined,
    }
  }
  if (isRecord(detail.tls)) {
    const { subject, issuer, validTo } = detail.tls
    if (typeof issuer === 'string' || typeof validTo === 'string') {
      http.tls = {
        subject: stringOf(subject, TEXT_SHOWN),
        issuer: stringOf(issuer, TEXT_SHOWN),
        validTo: stringOf(validTo, TEXT_SHOWN),
      }
    }
  }
  if (isRecord(detail.timingPhases)) {
    const phases: Record<string, number> = {}
    for (const [name, value] of Object.entries(detail.timingPhases).slice(0, LIST_READ)) {
      const ms = numberOf(value)
      if (ms !== undefined) phases[name] = ms
    }
    http.timingPhases = phases
  }
  return http
}

export function sizeOf(detail: HttpDetail): number | null {
  const header = detail.response?.contentLength
  if (header && Number.isFinite(Number(header))) return Number(header)
  return typeof detail.response?.body === 'string' ? Buffer.byteLength(detail.response.body) : null
}
