import type { CheckResultsTable, ChecksTable, ErrorGroupsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { finalResultsAround } from '../check-results/check-results.repo.ts'
import {
  cutText,
  integerOf,
  isRecord,
  numberOf,
  parsedDetailOf,
  stringOf,
} from '../check-results/result-detail.ts'
import { findCheck } from '../checks/checks.repo.ts'
import { resolveCheck } from '../checks/resolve-check.ts'
import { groupsOverlapping } from '../error-groups/error-groups.repo.ts'
import { errorOf } from '../error-groups/error-groups.service.ts'
import type { Phase } from './root-cause-analyses.schemas.ts'

/**
 * What a root cause analysis knows, gathered from stored results only: which phase fails, since when
 * and where, what changed around the start, and whether other checks of the account fail alike.
 */

/** A reason an analysis can't be made that its FAILED status may show. */
export class AnalysisError extends Error {}

export interface LocationEvidence {
  location: string
  /** The start of the current run of failures with this error in the location. */
  since: string
  lastSeen: string
  failures: number
  /** The location's last final result before `since` that did not fail this way. */
  lastGoodBefore: string | null
}

export interface Change {
  kind: 'CHECK_CONFIG' | 'REQUEST' | 'CERTIFICATE' | 'RESPONSE_STATUS' | 'RESPONSE_SIZE' | 'LATENCY'
  at: string | null
  description: string
}

export interface SimilarGroup {
  errorGroupId: string
  checkId: string
  checkName: string
  cleanedErrorMessage: string
  firstSeen: string
  sameError: boolean
}

export interface Evidence {
  check: { id: string; name: string; checkType: string; target: string | null; locations: string[] }
  errorGroup: {
    id: string
    errorType: string | null
    rawErrorMessage: string | null
    cleanedErrorMessage: string
    firstSeen: string
    lastSeen: string
    count: number
    archived: boolean
  }
  phase: Phase
  /** What in the phase: a status code, a host name, a script location. */
  phaseDetail: string | null
  since: string
  affectedLocations: LocationEvidence[]
  /** Locations of the check that passed while the error went on. */
  healthyLocations: string[]
  changes: Change[]
  similarGroups: SimilarGroup[]
  userContext: string
}

/** How many of the check's latest results (up to the group's last sighting) the analysis reads. */
const RESULTS_READ = 5_000
const HOUR_MS = 3_600_000

export async function gatherEvidence(
  ctx: ServiceContext,
  group: ErrorGroupsTable,
  userContext: string,
): Promise<Evidence> {
  const check = await findCheck(ctx, group.account_id, group.check_id)
  if (!check) throw new AnalysisError('The check of this error group no longer exists')
  const { definition, effective } = await resolveCheck(ctx, check)
  const until = new Date(Date.parse(group.last_seen_at) + 1).toISOString()
  const results = (await finalResultsAround(ctx, check.id, until, 'before', RESULTS_READ)).reverse()
  const matches = (row: CheckResultsTable) =>
    Boolean(row.has_failures) && errorOf(row).hash === group.error_hash

  // Per location, the latest run of consecutive failures with this error.
  const byLocation = new Map<string, CheckResultsTable[]>()
  for (const row of results)
    byLocation.set(row.run_location, [...(byLocation.get(row.run_location) ?? []), row])
  const affected: LocationEvidence[] = []
  const episodeRows: CheckResultsTable[] = []
  for (const [location, rows] of byLocation) {
    let end = rows.length - 1
    while (end >= 0 && !matches(rows[end] as CheckResultsTable)) end--
    if (end < 0) continue
    let start = end
    while (start > 0 && matches(rows[start - 1] as CheckResultsTable)) start--
    const episode = rows.slice(start, end + 1)
    episodeRows.push(...episode)
    affected.push({
      location,
      since: (episode[0] as CheckResultsTable).started_at,
      lastSeen: (episode.at(-1) as CheckResultsTable).started_at,
      failures: episode.length,
      lastGoodBefore: start > 0 ? (rows[start - 1] as CheckResultsTable).started_at : null,
    })
  }
  affected.sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : 0))
  const since = affected[0]?.since ?? group.first_seen_at
  const healthyLocations = [...byLocation]
    .filter(
      ([location, rows]) =>
        !affected.some((a) => a.location === location) &&
        rows.some((row) => !row.has_failures && row.started_at >= since),
    )
    .map(([location]) => location)
    .sort()

  const sample = episodeRows.at(-1) ?? results.findLast(matches)
  const { phase, detail } = failingPhase(check.check_type, group.error_type, group.raw_message ?? '', sample)
  const before = results.filter((row) => row.started_at < since && !matches(row))
  const during = episodeRows.sort((a, b) => (a.started_at < b.started_at ? -1 : 1))

  return {
    check: {
      id: check.id,
      name: check.name,
      checkType: check.check_type,
      target: targetOf(definition.request),
      locations: effective.locations,
    },
    errorGroup: {
      id: group.id,
      errorType: group.error_type,
      rawErrorMessage: group.raw_message,
      cleanedErrorMessage: group.cleaned_message,
      firstSeen: group.first_seen_at,
      lastSeen: group.last_seen_at,
      count: group.count,
      archived: Boolean(group.archived),
    },
    phase,
    phaseDetail: detail,
    since,
    affectedLocations: affected,
    healthyLocations,
    changes: changesAround(
      check,
      since,
      before,
      during,
      results.filter((row) => row.started_at >= since),
    ),
    similarGroups: await similarGroups(ctx, group, phase, since),
    userContext,
  }
}

function targetOf(request: unknown): string | null {
  const r = (request ?? {}) as { url?: string; hostname?: string; query?: string; port?: number }
  if (r.url) return r.url
  if (r.hostname) return r.port ? `${r.hostname}:${r.port}` : r.hostname
  return r.query ?? null
}

// A result's detail comes from the runner, or from a private location's agent (which may be buggy or
// hostile): every read below checks the shape and skips what is not as expected, so an odd detail
// (not JSON, null, wrong types, huge or deeply nested lists, endless texts) never fails an analysis.
/** At most this many entries of a list in a detail are read. */
const LIST_READ = 200
/** At most this many characters of a text from a result (its error, its detail) are shown in evidence. */
const TEXT_SHOWN = 2048
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value.slice(0, LIST_READ) : [])

const detailOf = (row: CheckResultsTable | undefined): Record<string, unknown> => {
  const first = Object.values(parsedDetailOf(row))[0]
  return isRecord(first) ? first : {}
}

// A path starts where no path character precedes it: tried from inside a long run of them as well, the
// scan was quadratic (a 100 KB error took 13 s, freezing the node).
const SCRIPT_LOCATION = /(?<![\w./-])([\w./-]+\.(?:[cm]?[jt]s)):(\d+)(?::(\d+))?/
// An assertion's message names what it got within a few hundred characters (its target is shown cut at
// 200): unbounded, `.*` scanned the rest of the line from every STATUS_CODE (a 1 MB error took minutes).
const ASSERTED_STATUS = /Status code (\d{3})|STATUS_CODE.{0,300}got (\d{3})/

/** Which phase of a run fails, from the error and the sample result's detail; what in it cut to be shown. */
export function failingPhase(
  checkType: string,
  errorType: string | null,
  message: string,
  sample?: CheckResultsTable,
): { phase: Phase; detail: string | null } {
  const found = phaseOf(checkType, errorType, message, sample)
  return found.detail === null ? found : { ...found, detail: cutText(found.detail, TEXT_SHOWN) }
}

function phaseOf(
  checkType: string,
  errorType: string | null,
  message: string,
  sample?: CheckResultsTable,
): { phase: Phase; detail: string | null } {
  const detail = detailOf(sample)
  const host = /ENOTFOUND\s+(\S+)|ERR_NAME_NOT_RESOLVED at \S*?\/\/([^/\s:]+)/.exec(message)
  if (checkType === 'HEARTBEAT') return { phase: 'HEARTBEAT', detail: message || null }
  if (/DNS|ENOTFOUND|EAI_AGAIN|getaddrinfo|NXDOMAIN|SERVFAIL|ERR_NAME_NOT_RESOLVED/i.test(message)) {
    return { phase: 'DNS', detail: host?.[1] ?? host?.[2] ?? null }
  }
  const responseCode = stringOf(detail.responseCode)
  if (checkType === 'DNS' && responseCode !== undefined && responseCode !== 'NOERROR') {
    return { phase: 'DNS', detail: `response code ${responseCode}` }
  }
  if (/\bTLS\b|SSL|CERT_|certificate|self[- ]signed/i.test(message)) return { phase: 'TLS', detail: null }
  if (
    /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|Connection (refused|reset)|ERR_CONNECTION/i.test(
      message,
    )
  ) {
    return { phase: 'TCP', detail: /ECONN\w+|EHOST\w+|ENET\w+|ERR_CONNECTION_\w+/.exec(message)?.[0] ?? null }
  }
  if (/Packet loss/i.test(message)) return { phase: 'PACKET_LOSS', detail: message }
  const status = ASSERTED_STATUS.exec(message)
  if (status) return { phase: 'HTTP_STATUS', detail: status[1] ?? status[2] ?? null }
  if (errorType === 'TIMEOUT' || /timed? ?out|Timeout \d+ms/i.test(message)) {
    const script = SCRIPT_LOCATION.exec(message) ?? scriptLocationOf(detail)
    return { phase: 'TIMEOUT', detail: script ? `${script[1]}:${script[2]}` : null }
  }
  if (
    errorType === 'SCRIPT' ||
    checkType === 'BROWSER' ||
    checkType === 'MULTI_STEP' ||
    checkType === 'AUTOMATION'
  ) {
    const script = SCRIPT_LOCATION.exec(message) ?? scriptLocationOf(detail)
    return { phase: 'SCRIPT', detail: script ? `${script[1]}:${script[2]}` : null }
  }
  if (errorType === 'ASSERTION') return { phase: 'ASSERTION', detail: message }
  return { phase: 'UNKNOWN', detail: null }
}

/** The first failing step's `file:line`, or a script error's stack frame. */
function scriptLocationOf(detail: Record<string, unknown>): RegExpExecArray | null {
  const failedStep = (steps: unknown, depth: number): string | null => {
    if (depth > 20) return null
    for (const step of listOf(steps)) {
      if (!isRecord(step) || step.status !== 'failed') continue
      return failedStep(step.steps, depth + 1) ?? stringOf(step.location) ?? null
    }
    return null
  }
  const stackOf = (errors: unknown) =>
    listOf(errors)
      .map((error) => (isRecord(error) ? stringOf(error.stack) : undefined))
      .find((stack) => stack)
  for (const test of listOf(detail.tests)) {
    if (!isRecord(test) || test.failed !== true) continue
    const found = failedStep(test.steps, 0) ?? stackOf(test.errors) ?? null
    const match = found ? SCRIPT_LOCATION.exec(found) : null
    if (match) return match
  }
  for (const error of listOf(detail.errors)) {
    const stack = isRecord(error) ? stringOf(error.stack) : undefined
    const match = stack ? SCRIPT_LOCATION.exec(stack) : null
    if (match) return match
  }
  return null
}

const minutesBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 60_000)

interface HttpDetail {
  request?: { method?: string; url?: string }
  response?: { status?: number; body?: string; contentLength?: string } | null
  tls?: { subject?: string; issuer?: string; validTo?: string } | null
  timingPhases?: Record<string, number>
}

/** The HTTP parts of a result's detail that are of the expected types; the rest is left out. */
function httpDetailOf(row: CheckResultsTable | undefined): HttpDetail {
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

function sizeOf(detail: HttpDetail): number | null {
  const header = detail.response?.contentLength
  if (header && Number.isFinite(Number(header))) return Number(header)
  return typeof detail.response?.body === 'string' ? Buffer.byteLength(detail.response.body) : null
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)] as number
}

/** What differs between the results before the failures started and those since. */
function changesAround(
  check: ChecksTable,
  since: string,
  before: CheckResultsTable[],
  during: CheckResultsTable[],
  after: CheckResultsTable[],
): Change[] {
  const changes: Change[] = []
  const lastGood = before.at(-1)
  const firstBad = during[0]
  const windowStart = lastGood?.started_at ?? new Date(Date.parse(since) - 24 * HOUR_MS).toISOString()
  if (check.updated_at > windowStart && check.updated_at <= since) {
    changes.push({
      kind: 'CHECK_CONFIG',
      at: check.updated_at,
      description: `The check's configuration was changed at ${check.updated_at}, ${minutesBetween(check.updated_at, since)} minutes before the first failure.`,
    })
  }
  const good = httpDetailOf(lastGood)
  const bad = httpDetailOf(firstBad)
  const goodRequest = good.request
  const badRequest = bad.request
  if (goodRequest && badRequest) {
    if (goodRequest.url !== badRequest.url || goodRequest.method !== badRequest.method) {
      changes.push({
        kind: 'REQUEST',
        at: firstBad?.started_at ?? null,
        description: `The request changed from ${goodRequest.method} ${goodRequest.url} to ${badRequest.method} ${badRequest.url}.`,
      })
    }
  }
  const recentGood = before.slice(-20).map((row) => httpDetailOf(row))
  const failing = during.slice(0, 20).map((row) => httpDetailOf(row))
  const lastCert = recentGood.findLast((d) => d.tls)?.tls
  const newCert = [...failing, ...after.map((row) => httpDetailOf(row))].find((d) => d.tls)?.tls
  if (lastCert && newCert && (lastCert.validTo !== newCert.validTo || lastCert.issuer !== newCert.issuer)) {
    changes.push({
      kind: 'CERTIFICATE',
      at: firstBad?.started_at ?? null,
      description: `The certificate changed around the start: issuer ${lastCert.issuer} → ${newCert.issuer}, valid to ${lastCert.validTo} → ${newCert.validTo}.`,
    })
  }
  const statuses = (list: HttpDetail[]) =>
    [
      ...new Set(list.flatMap((d) => (typeof d.response?.status === 'number' ? [d.response.status] : []))),
    ].sort()
  const statusBefore = statuses(recentGood)
  const statusDuring = statuses(failing)
  if (statusBefore.length > 0 && statusDuring.length > 0 && statusBefore.join() !== statusDuring.join()) {
    changes.push({
      kind: 'RESPONSE_STATUS',
      at: firstBad?.started_at ?? null,
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
        at: firstBad?.started_at ?? null,
        description: `Response bodies went from about ${was} to ${now} bytes.`,
      })
    }
  }
  // Phase by phase, the passing results of the last hours before the start against those since.
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

async function similarGroups(
  ctx: ServiceContext,
  group: ErrorGroupsTable,
  phase: Phase,
  since: string,
): Promise<SimilarGroup[]> {
  const sinceMs = Date.parse(since)
  const candidates = await groupsOverlapping(
    ctx,
    group.account_id,
    group.check_id,
    new Date(sinceMs - HOUR_MS).toISOString(),
    new Date(Date.parse(group.last_seen_at) + HOUR_MS).toISOString(),
  )
  const similar: SimilarGroup[] = []
  for (const other of candidates) {
    const sameError = other.error_hash === group.error_hash
    const startedNear = Math.abs(Date.parse(other.first_seen_at) - sinceMs) <= HOUR_MS
    const check = await findCheck(ctx, other.account_id, other.check_id)
    if (!check) continue
    const otherPhase = failingPhase(check.check_type, other.error_type, other.raw_message ?? '').phase
    if (!sameError && !(startedNear && otherPhase === phase && phase !== 'UNKNOWN')) continue
    similar.push({
      errorGroupId: other.id,
      checkId: other.check_id,
      checkName: check.name,
      cleanedErrorMessage: other.cleaned_message,
      firstSeen: other.first_seen_at,
      sameError,
    })
  }
  return similar
}
