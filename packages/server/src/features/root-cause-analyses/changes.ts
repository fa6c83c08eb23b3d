import type { CheckResultsTable, ChecksTable } from '@svc/db'
import { type HttpDetail, httpDetailOf, sizeOf } from './result-reading.ts'

const HOUR_MS = 3_600_000

export interface Change {
  kind: 'CHECK_CONFIG' | 'REQUEST' | 'CERTIFICATE' | 'RESPONSE_STATUS' | 'RESPONSE_SIZE' | 'LATENCY'
  at: string | null
  description: string
}

const minutesBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 60_000)

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)] as number
}

/** What differs between the results before the failures started and those since. */
export function changesAround(
  check: ChecksTable,
  since: string,
  before: CheckResultsTable[],
  during: CheckResultsTable[],
  after: CheckResultsTable[],
): Change[] {
  const firstBadAt = during[0]?.started_at ?? null
  const recentGood = before.slice(-20).map((row) => httpDetailOf(row))
  const failing = during.slice(0, 20).map((row) => httpDetailOf(row))
  return [
    ...configChange(check, since, before),
    ...requestChange(before, during),
    ...certificateChange(recentGood, failing, after, firstBadAt),
    ...responseChanges(recentGood, failing, since, firstBadAt),
    ...latencyChanges(since, before, during, after),
  ]
}

/** The check's configuration saved between the last good run (or a day before) and the first failure. */
function configChange(check: ChecksTable, since: string, before: CheckResultsTable[]): Change[] {
  const windowStart = before.at(-1)?.started_at ?? new Date(Date.parse(since) - 24 * HOUR_MS).toISOString()
  if (!(check.updated_at > windowStart && check.updated_at <= since)) return []
  return [
    {
      kind: 'CHECK_CONFIG',
      at: check.updated_at,
      description: `The check's configuration was changed at ${check.updated_at}, ${minutesBetween(check.updated_at, since)} minutes before the first failure.`,
    },
  ]
}

function requestChange(before: CheckResultsTable[], during: CheckResultsTable[]): Change[] {
  const firstBad = during[0]
  const goodRequest = httpDetailOf(before.at(-1)).request
  const badRequest = httpDetailOf(firstBad).request
  if (!goodRequest || !badRequest) return []
  if (goodRequest.url === badRequest.url && goodRequest.method === badRequest.method) return []
  return [
    {
      kind: 'REQUEST',
      at: firstBad?.started_at ?? null,
      description: `The request changed from ${goodRequest.method} ${goodRequest.url} to ${badRequest.method} ${badRequest.url}.`,
    },
  ]
}

function certificateChange(
  recentGood: HttpDetail[],
  failing: HttpDetail[],
  after: CheckResultsTable[],
  firstBadAt: string | null,
): Change[] {
  const lastCert = recentGood.findLast((d) => d.tls)?.tls
  const newCert = [...failing, ...after.map((row) => httpDetailOf(row))].find((d) => d.tls)?.tls
  if (!lastCert || !newCert) return []
  if (lastCert.validTo === newCert.validTo && lastCert.issuer === newCert.issuer) return []
  return [
    {
      kind: 'CERTIFICATE',
      at: firstBadAt,
      description: `The certificate changed around the start: issuer ${lastCert.issuer} → ${newCert.issuer}, valid to ${lastCert.validTo} → ${newCert.validTo}.`,
    },
  ]
}

/** Other response statuses, and bodies of a clearly other size, since the failures started. */
function responseChanges(
  recentGood: HttpDetail[],
  failing: HttpDetail[],
  since: string,
  firstBadAt: string | null,
): Change[] {
  const changes: Change[] = []
  const statuses = (list: HttpDetail[]) =>
    [
      ...new Set(list.flatMap((d) => (typeof d.response?.status === 'number' ? [d.response.status] : []))),
    ].sort()
  const statusBefore = statuses(recentGood)
  const statusDuring = statuses(failing)
  if (statusBefore.length > 0 && statusDuring.length > 0 && statusBefore.join() !== statusDuring.join()) {
    changes.push({
      kind: 'RESPONSE_STATUS',
      at: firstBadAt,
      description: `Responses were ${statusBefore.join('/')} before and ${statusDuring.join('/')} since ${since}.`,
    })
  }
  const sizesBefore = recentGood.flatMap((d) => (sizeOf(d) === null ? [] : [sizeOf(d) as number]))
  const sizesDuring = failing.flatMap((d) => (sizeOf(d) === null ? [] : [sizeOf(d) as number]))
  if (sizesBefore.length > 0 && sizesDuring.length > 0) {
    const was = median(sizesBefore)
    const now = median(sizesDuring)
    if (Math.abs(now - was) > Math.max(100, 0.3 * was)) {
      changes.push({
        kind: 'RESPONSE_SIZE',
        at: firstBadAt,
        description: `Response bodies went from about ${was} to ${now} bytes.`,
      })
    }
  }
  return changes
}

/** Phase by phase, the passing results of the last hours before the start against those since. */
function latencyChanges(
  since: string,
  before: CheckResultsTable[],
  during: CheckResultsTable[],
  after: CheckResultsTable[],
): Change[] {
  const changes: Change[] = []
  const phasesOf = (rows: CheckResultsTable[]) =>
    rows.map((row) => httpDetailOf(row).timingPhases).filter((p): p is Record<string, number> => !!p)
  const beforePhases = phasesOf(
    before.filter(
      (row) => row.started_at >= new Date(Date.parse(since) - 6 * HOUR_MS).toISOString() && !row.has_failures,
    ),
  )
  const afterPhases = phasesOf(after.filter((row) => !row.has_failures).concat(during))
  for (const name of Object.keys(beforePhases[0] ?? {})) {
    if (name === 'total' || name === 'wait') continue
    const was = beforePhases.map((p) => p[name]).filter((v): v is number => typeof v === 'number' && v > 0)
    const now = afterPhases.map((p) => p[name]).filter((v): v is number => typeof v === 'number' && v > 0)
    if (was.length < 3 || now.length < 3) continue
    const a = median(was)
    const b = median(now)
    if (Math.abs(b - a) > Math.max(20, 0.5 * a)) {
      changes.push({
        kind: 'LATENCY',
        at: null,
        description: `${name} took about ${Math.round(a)} ms before and ${Math.round(b)} ms since (median).`,
      })
    }
  }
  return changes
}
