import type { ServiceContext } from '../../context.ts'
import { getAccount } from '../accounts/accounts.service.ts'
import { periodFigures } from '../analytics/period-figures.ts'
import { listGroups } from '../check-groups/check-groups.service.ts'
import { statusReads } from '../check-results/check-results.service.ts'
import { listChecksOfAccount } from '../checks/check-lookups.service.ts'
import { type ResolvedCheck, resolveChecks } from '../checks/resolve-check.ts'
import { cachedChecksPart } from './checks-part-cache.ts'
import type { DashboardIncident } from './dashboard-incidents.schemas.ts'
import { incidentsToShow } from './dashboard-incidents.service.ts'
import type { DashboardSettings } from './dashboards.schemas.ts'
import { type DashboardRow, settingsOf } from './dashboards.service.ts'

/** What a dashboard's public page shows: the checks its tags select, one page of them at a time. */

const DAY_MS = 86_400_000
const MAX_GROUPS = 1000
const MAX_INCIDENTS = 20
/** Incidents that stopped within this long are still shown, under "Recent incidents". */
const RECENT_INCIDENTS_MS = 7 * DAY_MS

export type CheckState = 'passing' | 'degraded' | 'failing' | 'none'

export interface DashboardCheckView {
  id: string
  name: string
  checkType: string
  state: CheckState
  tags: string[]
  groupName: string | null
  lastRunAt: string | null
  /** Over the last 24 hours; null without results. */
  availability: number | null
  avg: number | null
  p95: number | null
  p99: number | null
}

export interface DashboardView {
  settings: DashboardSettings
  checks: DashboardCheckView[]
  /** 1-based; `pages` is at least 1. */
  page: number
  pages: number
  counts: Record<CheckState, number>
  ongoing: DashboardIncident[]
  recent: DashboardIncident[]
  /** When the incidents were read (the checks part may be older): an end after it is still ahead. */
  incidentsReadAt: string
  generatedAt: string
}

// Failing first when sorted by status; checks that never ran last.
const STATE_ORDER: CheckState[] = ['failing', 'degraded', 'passing', 'none']

export async function buildDashboardView(
  ctx: ServiceContext,
  row: DashboardRow,
  requestedPage: number,
): Promise<DashboardView> {
  const settings = settingsOf(row)
  const version = row.updated_at ?? row.created_at
  const checksPart = await cachedChecksPart(ctx, `${row.id}|${version}|${requestedPage}`, () =>
    buildChecksPart(ctx, row, settings, requestedPage),
  )
  const nowMs = ctx.clock.now().getTime()
  // Read fresh on every request: a few rows by the dashboard's index, and an incident must show at once.
  const incidents = settings.enableIncidents
    ? await incidentsToShow(ctx, row.id, new Date(nowMs - RECENT_INCIDENTS_MS).toISOString(), MAX_INCIDENTS)
    : []
  const isOngoing = (incident: DashboardIncident) =>
    (incident.stoppedAt === null || Date.parse(incident.stoppedAt) > nowMs) &&
    incident.incidentUpdates.at(-1)?.status !== 'RESOLVED'
  return {
    settings,
    ...checksPart,
    ongoing: incidents.filter(isOngoing),
    recent: incidents.filter((incident) => !isOngoing(incident)),
    incidentsReadAt: new Date(nowMs).toISOString(),
  }
}

type ChecksPart = Pick<DashboardView, 'checks' | 'page' | 'pages' | 'counts' | 'generatedAt'>

/** The checks the dashboard's tags select, counted by state and cut to the page asked for. */
async function buildChecksPart(
  ctx: ServiceContext,
  row: DashboardRow,
  settings: DashboardSettings,
  requestedPage: number,
): Promise<ChecksPart> {
  const tags = JSON.parse(row.tags) as string[]
  const resolved = (await resolveChecks(ctx, row.account_id, await listChecksOfAccount(ctx, row.account_id)))
    .filter((check) => selects(check, tags, settings))
    .sort((a, b) => a.definition.name.localeCompare(b.definition.name))
  const states = await statesOf(ctx, resolved)
  const counts: Record<CheckState, number> = { failing: 0, degraded: 0, passing: 0, none: 0 }
  for (const check of resolved) counts[states.get(check.row.id)?.state ?? 'none']++
  if (settings.sortByStatus) {
    const rank = (check: ResolvedCheck) => STATE_ORDER.indexOf(states.get(check.row.id)?.state ?? 'none')
    resolved.sort((a, b) => rank(a) - rank(b))
  }
  const perPage = settings.paginate ? (settings.checksPerPage ?? 15) : Math.max(resolved.length, 1)
  const pages = Math.max(1, Math.ceil(resolved.length / perPage))
  const page = Math.min(Math.max(1, requestedPage), pages)
  const shown = resolved.slice((page - 1) * perPage, page * perPage)
  return {
    checks: await checkViews(ctx, row.account_id, shown, states, settings.showGroupNames),
    page,
    pages,
    counts,
    generatedAt: ctx.clock.now().toISOString(),
  }
}

/** Any of the tags (every one with useTagsAndOperator), the group's counted; no tags: every check. */
function selects(check: ResolvedCheck, tags: string[], settings: DashboardSettings): boolean {
  if (tags.length === 0) return true
  const has = (tag: string) => check.effective.tags.includes(tag)
  return settings.useTagsAndOperator ? tags.every(has) : tags.some(has)
}

async function statesOf(ctx: ServiceContext, checks: ResolvedCheck[]) {
  const latest = await statusReads.latestResults(
    ctx,
    checks.map((check) => check.row.id),
  )
  return new Map(
    latest.map((result) => {
      const state: CheckState = result.has_failures ? 'failing' : result.is_degraded ? 'degraded' : 'passing'
      return [result.check_id, { state, lastRunAt: result.started_at }]
    }),
  )
}

async function checkViews(
  ctx: ServiceContext,
  accountId: string,
  checks: ResolvedCheck[],
  states: Map<string, { state: CheckState; lastRunAt: string }>,
  withGroups: boolean,
): Promise<DashboardCheckView[]> {
  const groupNames = new Map<number, string>()
  if (withGroups && checks.some((check) => check.row.group_id !== null)) {
    const { items } = await listGroups(ctx, accountId, { limit: MAX_GROUPS, page: 1, offset: 0 })
    for (const group of items) groupNames.set(group.id, group.name)
  }
  const timeZone = (await getAccount(ctx, accountId)).settings.timezone
  const nowMs = ctx.clock.now().getTime()
  const views: DashboardCheckView[] = []
  for (const check of checks) {
    const [day] = await periodFigures(
      ctx,
      { id: check.row.id, checkType: check.row.check_type },
      [{ fromMs: nowMs - DAY_MS, toMs: nowMs }],
      timeZone,
    )
    const state = states.get(check.row.id)
    views.push({
      id: check.row.id,
      name: check.definition.name,
      checkType: check.row.check_type,
      state: state?.state ?? 'none',
      tags: check.effective.tags,
      groupName: check.row.group_id === null ? null : (groupNames.get(check.row.group_id) ?? null),
      lastRunAt: state?.lastRunAt ?? null,
      availability: day?.availability ?? null,
      avg: day?.avg ?? null,
      p95: day?.p95 ?? null,
      p99: day?.p99 ?? null,
    })
  }
  return views
}
