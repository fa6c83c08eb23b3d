import type { CheckResultsTable, ErrorGroupsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { finalResultsAround } from '../check-results/result-lookups.service.ts'
import { findCheck } from '../checks/check-lookups.service.ts'
import { resolveCheck } from '../checks/resolve-check.ts'
import { groupsOverlapping } from '../error-groups/error-group-lookups.service.ts'
import { errorOf } from '../error-groups/error-groups.service.ts'
import { type Change, changesAround } from './changes.ts'
import { failingPhase } from './failing-phase.ts'
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

export type { Change } from './changes.ts'
export { failingPhase } from './failing-phase.ts'

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

  const byLocation = resultsByLocation(results)
  const { affected, episodeRows } = latestEpisodes(byLocation, matches)
  const since = affected[0]?.since ?? group.first_seen_at
  const healthyLocations = healthyLocationsSince(byLocation, affected, since)

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
    errorGroup: errorGroupEvidence(group),
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

function resultsByLocation(results: CheckResultsTable[]): Map<string, CheckResultsTable[]> {
  const byLocation = new Map<string, CheckResultsTable[]>()
  for (const row of results)
    byLocation.set(row.run_location, [...(byLocation.get(row.run_location) ?? []), row])
  return byLocation
}

/** Per location, the latest run of consecutive failures with this error, earliest start first. */
function latestEpisodes(
  byLocation: Map<string, CheckResultsTable[]>,
  matches: (row: CheckResultsTable) => boolean,
): { affected: LocationEvidence[]; episodeRows: CheckResultsTable[] } {
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
  return { affected, episodeRows }
}

/** The locations not affected that passed at least once since the failures started. */
function healthyLocationsSince(
  byLocation: Map<string, CheckResultsTable[]>,
  affected: LocationEvidence[],
  since: string,
): string[] {
  return [...byLocation]
    .filter(
      ([location, rows]) =>
        !affected.some((a) => a.location === location) &&
        rows.some((row) => !row.has_failures && row.started_at >= since),
    )
    .map(([location]) => location)
    .sort()
}

function errorGroupEvidence(group: ErrorGroupsTable): Evidence['errorGroup'] {
  return {
    id: group.id,
    errorType: group.error_type,
    rawErrorMessage: group.raw_message,
    cleanedErrorMessage: group.cleaned_message,
    firstSeen: group.first_seen_at,
    lastSeen: group.last_seen_at,
    count: group.count,
    archived: Boolean(group.archived),
  }
}

function targetOf(request: unknown): string | null {
  const r = (request ?? {}) as { url?: string; hostname?: string; query?: string; port?: number }
  if (r.url) return r.url
  if (r.hostname) return r.port ? `${r.hostname}:${r.port}` : r.hostname
  return r.query ?? null
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
