import {
  COMPONENT_STATUSES,
  type ComponentStatus,
  type IncidentStatus,
  type StatusPageTheme,
  type ThemeColors,
  worseComponentStatus,
} from '@svc/core'
import type { StatusPagesTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import {
  impactChangesOfPageSince,
  impactsOfPageSince,
  recentIncidentsOfPage,
  updateTimesOfPageSince,
} from '../incidents/incident-lookups.service.ts'
import { assemble } from '../incidents/incidents.service.ts'
import {
  checkIdsOfServices,
  findServices,
  serviceDaysOf,
} from '../status-page-services/service-lookups.service.ts'
import { componentStatusesOfPage } from '../status-pages/component-status.ts'
import { cardsOfPages } from '../status-pages/page-lookups.service.ts'
import { themeColorsOf } from '../status-pages/status-pages.service.ts'
import { HISTORY_DAYS, historyStartMs } from './history-days.ts'
import { historyCounts } from './uptime-history.ts'

/** Everything a public page shows, and nothing else: no account ids, no check ids or settings. */
export interface PageView {
  name: string
  description: string | null
  logo: string | null
  logoDark: string | null
  favicon: string | null
  redirectTo: string | null
  defaultTheme: StatusPageTheme
  themeColors: ThemeColors
  whiteLabel: boolean
  overall: ComponentStatus
  cards: { name: string; services: ServiceView[] }[]
  ongoing: IncidentView[]
  past: IncidentView[]
  generatedAt: string
}

export type BarLevel = 'ok' | 'minor' | 'partial' | 'major' | 'maintenance' | 'none'

export interface DayBar {
  /** YYYY-MM-DD, UTC. */
  date: string
  /** Percentage of passing final check runs that day, runs during maintenance windows left out; null without runs. */
  uptime: number | null
  level: BarLevel
  /** The worst status an incident declared for the service that day. */
  declared: ComponentStatus | null
}

export interface ServiceView {
  id: string
  name: string
  description: string | null
  status: ComponentStatus
  uptime: number | null
  days: DayBar[]
}

export interface IncidentView {
  id: string
  name: string
  severity: string | null
  status: IncidentStatus
  startedAt: string
  resolvedAt: string | null
  duration: number | null
  components: {
    id: string
    name: string
    status: ComponentStatus
    startedAt: string
    endedAt: string | null
  }[]
  updates: { id: string; status: IncidentStatus; description: string; publishedAt: string }[]
}

const MAX_INCIDENTS = 100
const DAY_MS = 86_400_000

const LEVEL_OF_IMPACT: Record<ComponentStatus, BarLevel> = {
  OPERATIONAL: 'ok',
  UNDER_MAINTENANCE: 'maintenance',
  DEGRADED_PERFORMANCE: 'minor',
  PARTIAL_OUTAGE: 'partial',
  MAJOR_OUTAGE: 'major',
}
const LEVEL_RANK: BarLevel[] = ['none', 'ok', 'maintenance', 'minor', 'partial', 'major']

type PageData = Awaited<ReturnType<typeof loadPageData>>
type ImpactRow = PageData['pageImpacts'][number]
type ServiceDayCounts = { total: number; failed: number; maintenance: number }

export async function buildPageView(ctx: ServiceContext, page: StatusPagesTable): Promise<PageView> {
  const now = ctx.clock.now()
  const firstDayMs = historyStartMs(now)
  const data = await loadPageData(ctx, page, firstDayMs, now)
  const days = Array.from({ length: HISTORY_DAYS }, (_, i) =>
    new Date(firstDayMs + i * DAY_MS).toISOString().slice(0, 10),
  )
  const serviceById = new Map(data.services.map((s) => [s.id, s]))
  const declared = declaredByServiceDay(data, days, firstDayMs, now)
  const serviceView = serviceViewMaker(data, serviceById, days, declared)
  const cardViews = data.cards.map((card) => ({
    name: card.name,
    services: card.serviceIds.flatMap((id) => serviceView(id) ?? []),
  }))
  const overall = cardViews
    .flatMap((card) => card.services)
    .reduce<ComponentStatus>((worst, s) => worseComponentStatus(worst, s.status), COMPONENT_STATUSES[0])
  const incidentViews = incidentViewsOf(data, serviceById)
  return {
    name: page.name,
    description: page.description,
    logo: page.logo,
    logoDark: page.logo_dark,
    favicon: page.favicon,
    redirectTo: page.redirect_to,
    defaultTheme: page.default_theme as StatusPageTheme,
    themeColors: themeColorsOf(page),
    whiteLabel: Boolean(page.white_label),
    overall,
    cards: cardViews,
    ongoing: incidentViews.filter((i) => i.status !== 'RESOLVED'),
    past: incidentViews.filter((i) => i.status === 'RESOLVED'),
    generatedAt: now.toISOString(),
  }
}

/** The page's cards, services, check counts per day, incidents and impacts since the history's first day. */
async function loadPageData(ctx: ServiceContext, page: StatusPagesTable, firstDayMs: number, now: Date) {
  const cards = (await cardsOfPages(ctx, [page.id])).get(page.id) ?? []
  const serviceIds = [...new Set(cards.flatMap((card) => card.serviceIds))]
  const sinceIso = new Date(firstDayMs).toISOString()
  const [services, checkIds, incidentRows, keptDays] = await Promise.all([
    findServices(ctx, page.account_id, serviceIds),
    checkIdsOfServices(ctx, serviceIds),
    recentIncidentsOfPage(ctx, page.id, sinceIso, MAX_INCIDENTS),
    serviceDaysOf(ctx, serviceIds, sinceIso.slice(0, 10)),
  ])
  const allCheckIds = [...new Set([...checkIds.values()].flat())]
  const [statuses, counts, incidents, pageImpacts, impactChanges, updateTimes] = await Promise.all([
    componentStatusesOfPage(ctx, page, checkIds),
    historyCounts(ctx, page.account_id, allCheckIds, sinceIso, now),
    assemble(ctx, incidentRows),
    // Of every incident in the window, not only the ones listed: all colour the bars.
    impactsOfPageSince(ctx, page.id, sinceIso),
    impactChangesOfPageSince(ctx, page.id, sinceIso),
    updateTimesOfPageSince(ctx, page.id, sinceIso),
  ])
  return {
    cards,
    services,
    checkIds,
    keptDays,
    statuses,
    counts,
    incidents,
    pageImpacts,
    impactChanges,
    updateTimes,
  }
}

/**
 * What checks deleted or taken off contributed, per service and day: a service's past stays what the
 * public saw. A check put back counts its own runs instead of what was kept of it, so its days count once.
 */
function keptCountsByServiceDay(data: PageData): Map<string, ServiceDayCounts> {
  const kept = new Map<string, ServiceDayCounts>()
  for (const k of data.keptDays) {
    if (data.checkIds.get(k.service_id)?.includes(k.check_id)) continue
    const key = `${k.service_id}|${k.day}`
    const sum = kept.get(key) ?? { total: 0, failed: 0, maintenance: 0 }
    kept.set(key, {
      total: sum.total + k.total,
      failed: sum.failed + k.failed,
      maintenance: sum.maintenance + k.maintenance,
    })
  }
  return kept
}

/**
 * The worst status declared per service and day. Impacts colour the days they overlapped, so a declared
 * outage shows even without failed runs; each status an open impact held before a change colours the
 * days it was held.
 */
function declaredByServiceDay(data: PageData, days: string[], firstDayMs: number, now: Date) {
  const declared = new Map<string, ComponentStatus>()
  const resolvedGaps = resolvedPeriods(data.updateTimes)
  for (const impact of data.pageImpacts) {
    const gaps = resolvedGaps.get(impact.incident_id) ?? []
    for (const span of heldStatuses(impact, data.impactChanges.get(impact.id) ?? [], now)) {
      const status = span.status as ComponentStatus
      if (status === 'OPERATIONAL') continue
      // While its incident was resolved (before it reopened), the impact read as ended.
      for (const [fromMs, toMs] of withoutGaps(Date.parse(span.from), Date.parse(span.to), gaps)) {
        days.forEach((day, i) => {
          if (!overlapsDay(fromMs, toMs, firstDayMs + i * DAY_MS)) return
          const key = `${impact.service_id}|${day}`
          const previous = declared.get(key)
          declared.set(key, previous ? worseComponentStatus(previous, status) : status)
        })
      }
    }
  }
  return declared
}

/** The statuses an impact held, each with the period it held it. */
function heldStatuses(impact: ImpactRow, changes: { status: string; until: string }[], now: Date) {
  // Still open: through now (so an incident reopened this instant colours today).
  const end = impact.ended_at ?? impact.incident_resolved_at ?? new Date(now.getTime() + 1).toISOString()
  let from = impact.started_at
  const held: { status: string; from: string; to: string }[] = []
  for (const change of changes) {
    held.push({ status: change.status, from, to: change.until })
    from = change.until
  }
  held.push({ status: impact.declared_status, from, to: end })
  return held
}

/** [from, to) overlaps the UTC day; a span of no length colours the day it was declared. */
function overlapsDay(fromMs: number, toMs: number, dayStartMs: number) {
  return fromMs < dayStartMs + DAY_MS && (toMs > dayStartMs || (toMs <= fromMs && fromMs >= dayStartMs))
}

function serviceViewMaker(
  data: PageData,
  serviceById: Map<string, PageData['services'][number]>,
  days: string[],
  declared: Map<string, ComponentStatus>,
) {
  const countsByCheckDay = new Map(data.counts.map((c) => [`${c.checkId}|${c.day}`, c]))
  const keptByServiceDay = keptCountsByServiceDay(data)
  const dayCounts = (id: string, date: string): ServiceDayCounts => {
    const kept = keptByServiceDay.get(`${id}|${date}`)
    const sum = { total: kept?.total ?? 0, failed: kept?.failed ?? 0, maintenance: kept?.maintenance ?? 0 }
    for (const checkId of data.checkIds.get(id) ?? []) {
      const count = countsByCheckDay.get(`${checkId}|${date}`)
      if (!count) continue
      sum.total += count.total
      sum.failed += count.failed
      sum.maintenance += count.maintenance
    }
    return sum
  }
  return (id: string): ServiceView | undefined => {
    const service = serviceById.get(id)
    if (!service) return undefined
    let runs = 0
    let failed = 0
    const bars = days.map((date): DayBar => {
      const counts = dayCounts(id, date)
      runs += counts.total
      failed += counts.failed
      return dayBar(date, counts, declared.get(`${id}|${date}`) ?? null)
    })
    return {
      id,
      name: service.name,
      description: service.description,
      status: data.statuses.get(id) ?? 'OPERATIONAL',
      uptime: runs === 0 ? null : round2(((runs - failed) / runs) * 100),
      days: bars,
    }
  }
}

function dayBar(date: string, counts: ServiceDayCounts, status: ComponentStatus | null): DayBar {
  const uptime = counts.total === 0 ? null : round2(((counts.total - counts.failed) / counts.total) * 100)
  const level = worseLevel(
    worseLevel(levelOfUptime(uptime), counts.maintenance > 0 ? 'maintenance' : 'none'),
    status ? LEVEL_OF_IMPACT[status] : 'none',
  )
  return { date, uptime, level, declared: status }
}

function incidentViewsOf(data: PageData, serviceById: Map<string, { name: string }>): IncidentView[] {
  const impactRows = new Map<string, ImpactRow[]>()
  for (const impact of data.pageImpacts) {
    const list = impactRows.get(impact.incident_id) ?? []
    list.push(impact)
    impactRows.set(impact.incident_id, list)
  }
  const serviceName = (id: string) => serviceById.get(id)?.name ?? 'Removed service'
  return data.incidents.map(
    (incident): IncidentView => ({
      id: incident.id,
      name: incident.name,
      severity: incident.severity,
      status: incident.lastUpdateStatus,
      startedAt: incident.startedAt,
      resolvedAt: incident.resolvedAt,
      duration: incident.duration,
      components: (impactRows.get(incident.id) ?? []).map((impact) => ({
        id: impact.service_id,
        name: serviceName(impact.service_id),
        status: impact.declared_status as ComponentStatus,
        startedAt: impact.started_at,
        endedAt: impact.ended_at ?? incident.resolvedAt,
      })),
      updates: [...incident.incidentUpdates].reverse().map((u) => ({
        id: u.id,
        status: u.status,
        description: u.description,
        publishedAt: u.publicIncidentUpdateDate,
      })),
    }),
  )
}

/**
 * Per incident, the periods [resolved, reopened) in ms: from a RESOLVED update to the next unresolved
 * one (updates in each incident's order). A final resolution is no gap: it ends the open impacts.
 */
function resolvedPeriods(updates: { incident_id: string; status: string; public_date: string }[]) {
  const gaps = new Map<string, [number, number][]>()
  const resolvedSince = new Map<string, number>()
  for (const update of updates) {
    const at = Date.parse(update.public_date)
    const since = resolvedSince.get(update.incident_id)
    if (update.status === 'RESOLVED') {
      if (since === undefined) resolvedSince.set(update.incident_id, at)
    } else if (since !== undefined) {
      resolvedSince.delete(update.incident_id)
      const list = gaps.get(update.incident_id) ?? []
      list.push([since, at])
      gaps.set(update.incident_id, list)
    }
  }
  return gaps
}

/** [fromMs, toMs) without the sorted, disjoint `gaps`; a span of no length stays unless a gap holds it. */
function withoutGaps(fromMs: number, toMs: number, gaps: [number, number][]): [number, number][] {
  if (toMs <= fromMs) return gaps.some(([a, b]) => a <= fromMs && fromMs < b) ? [] : [[fromMs, toMs]]
  const parts: [number, number][] = []
  let from = fromMs
  for (const [a, b] of gaps) {
    if (b <= from || a >= toMs) continue
    if (a > from) parts.push([from, a])
    from = Math.max(from, b)
  }
  if (from < toMs) parts.push([from, toMs])
  return parts
}

function levelOfUptime(uptime: number | null): BarLevel {
  if (uptime === null) return 'none'
  if (uptime >= 99.9) return 'ok'
  if (uptime >= 99) return 'minor'
  if (uptime >= 95) return 'partial'
  return 'major'
}

function worseLevel(a: BarLevel, b: BarLevel): BarLevel {
  return LEVEL_RANK.indexOf(a) >= LEVEL_RANK.indexOf(b) ? a : b
}

const round2 = (value: number) => Math.floor(value * 100) / 100
