import type { ServiceContext } from '../../context.ts'
import { hourlyOverview } from '../analytics/overview.ts'
import { statusReads } from '../check-results/check-results.service.ts'
import { statusOf } from '../check-statuses/check-statuses.ts'
import { listCheckRowsOfAccount } from '../checks/checks.service.ts'
import { type ResolvedCheck, resolveCheckRows } from '../checks/resolve-check.ts'
import {
  OVERVIEW_PAGE_SIZE,
  OVERVIEW_STATUSES,
  type Overview,
  type OverviewCheck,
  type OverviewQuery,
  type OverviewStatus,
} from './dashboard.schemas.ts'
import { statusesSince } from './status-since.ts'

/** Failing first: the first page holds what needs a look. */
const STATUS_ORDER: Record<OverviewStatus, number> = {
  failing: 0,
  degraded: 1,
  passing: 2,
  'no-data': 3,
  paused: 4,
}
// One collator for the whole sort: localeCompare makes one per comparison.
const NAMES = new Intl.Collator('en')

type LatestResult = Awaited<ReturnType<typeof statusReads.latestResults>>[number]

/** What filtering and ordering need, for every check; the page's rows are completed from it. */
interface Listed {
  check: ResolvedCheck
  status: OverviewStatus
  tags: string[]
  latest: LatestResult | undefined
}

function matches(listed: Listed, query: OverviewQuery): boolean {
  const { check, status, tags } = listed
  const needle = query.q?.trim().toLowerCase()
  return (
    (!query.id || check.row.id === query.id) &&
    (!needle || check.row.name.toLowerCase().includes(needle)) &&
    (!query.status || status === query.status) &&
    (!query.type || check.row.check_type === query.type) &&
    (!query.tag || tags.includes(query.tag)) &&
    (query.group === undefined || check.row.group_id === query.group) &&
    (!query.location ||
      check.effective.locations.includes(query.location) ||
      check.effective.privateLocations.includes(query.location))
  )
}

const sortedDistinct = <T>(values: Iterable<T>, compare?: (a: T, b: T) => number) =>
  [...new Set(values)].sort(compare)

/**
 * One page of the account's checks, filtered and ordered here, with every check's count by status and the
 * filters' choices. Status needs each check's latest result; "since when" and the 24-hour figures are read
 * for the page's checks only: those were most of the cost with 1,000 checks. A fixed number of statements
 * whatever the number of checks.
 */
export async function accountOverview(
  ctx: ServiceContext,
  accountId: string,
  query: OverviewQuery,
): Promise<Overview> {
  const checks = await resolveCheckRows(ctx, await listCheckRowsOfAccount(ctx, accountId))
  const latest = new Map(
    (
      await statusReads.latestResults(
        ctx,
        checks.map((check) => check.row.id),
      )
    ).map((result) => [result.check_id, result]),
  )
  const listed = checks.map((check): Listed => {
    const result = latest.get(check.row.id)
    const paused = !check.definition.activated || !check.groupActivated
    const status = paused ? 'paused' : result ? (statusOf(result) as OverviewStatus) : 'no-data'
    return { check, status, tags: (check.definition.tags as string[] | undefined) ?? [], latest: result }
  })
  const counts = Object.fromEntries(OVERVIEW_STATUSES.map((status) => [status, 0])) as Overview['counts']
  for (const { status } of listed) counts[status]++
  const matching = listed
    .filter((entry) => matches(entry, query))
    .sort(
      (a, b) =>
        STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
        NAMES.compare(a.check.row.name, b.check.row.name) ||
        a.check.row.id.localeCompare(b.check.row.id),
    )
  const limit = query.limit ?? OVERVIEW_PAGE_SIZE
  const page = Math.min(query.page ?? 1, Math.max(1, Math.ceil(matching.length / limit)))
  const rows = await overviewRows(ctx, matching.slice((page - 1) * limit, page * limit))
  return {
    checks: rows,
    total: matching.length,
    page,
    limit,
    counts,
    tags: sortedDistinct(listed.flatMap((entry) => entry.tags)),
    groupIds: sortedDistinct(
      listed.flatMap((entry) => (entry.check.row.group_id === null ? [] : [entry.check.row.group_id])),
      (a, b) => a - b,
    ),
    locations: sortedDistinct(
      listed.flatMap(({ check }) => [...check.effective.locations, ...check.effective.privateLocations]),
    ),
  }
}

/** The page's rows in full: since when each status holds and the last 24 hours. */
async function overviewRows(ctx: ServiceContext, page: Listed[]): Promise<OverviewCheck[]> {
  const held = page.filter((entry) => entry.latest && entry.status !== 'paused')
  const since = await statusesSince(
    ctx,
    new Map(
      held.map((entry) => [
        entry.check.row.id,
        { status: entry.status, latestAt: String(entry.latest?.started_at) },
      ]),
    ),
  )
  const figures = await hourlyOverview(
    ctx,
    page.map(({ check }) => ({ id: check.row.id, checkType: check.row.check_type })),
  )
  return page.map(
    ({ check: { row, definition, effective }, status, tags, latest }): OverviewCheck => ({
      id: row.id,
      name: row.name,
      checkType: row.check_type,
      activated: Boolean(definition.activated),
      muted: Boolean(row.muted),
      tags,
      groupId: row.group_id,
      locations: effective.locations,
      privateLocations: effective.privateLocations,
      frequency: effective.frequency,
      status,
      statusSince: status === 'paused' || status === 'no-data' ? null : (since.get(row.id) ?? null),
      lastRunAt: latest?.started_at ?? null,
      lastResponseTime: latest ? Number(latest.response_time) : null,
      availability24h: figures.get(row.id)?.availability ?? null,
      responseTimes24h: figures.get(row.id)?.hourlyAverages ?? [],
    }),
  )
}
