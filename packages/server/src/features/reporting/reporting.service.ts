import type { ServiceContext } from '../../context.ts'
import { canonicalTimeZone, getAccount } from '../accounts/accounts.service.ts'
import { type PeriodFigures, periodFigures } from '../analytics/period-figures.ts'
import { listChecks } from '../checks/checks.service.ts'
import { calendarBuckets, invalidQuery, type Period, reportWindow } from './report-window.ts'
import type { ReportingQuery, ReportRow } from './reporting.schemas.ts'

const CHECKS_PER_READ = 500

/** The checks of the report: all of the account's, narrowed by tags (any of them) and activation. */
async function reportedChecks(ctx: ServiceContext, accountId: string, query: ReportingQuery) {
  const tags = new Set((query.filterByTags ?? []).flatMap((value) => value.split(',')).map((t) => t.trim()))
  tags.delete('')
  const checks = []
  for (let page = 1; ; page++) {
    const offset = (page - 1) * CHECKS_PER_READ
    const { items, total } = await listChecks(
      ctx,
      accountId,
      query.deactivated === undefined ? {} : { activated: !query.deactivated },
      { limit: CHECKS_PER_READ, page, offset },
    )
    checks.push(...items)
    if (offset + items.length >= total || items.length === 0) break
  }
  return checks
    .map((check) => ({
      id: check.id as string,
      name: check.name,
      checkType: check.checkType as string,
      activated: check.activated,
      tags: (check.tags as string[] | undefined) ?? [],
    }))
    .filter((check) => tags.size === 0 || check.tags.some((tag) => tags.has(tag)))
}

const figuresOf = (figures: PeriodFigures) => ({
  successRatio: figures.availability ?? 0,
  avg: figures.avg ?? 0,
  p95: figures.p95 ?? 0,
  p99: figures.p99 ?? 0,
})

/**
 * Availability and response times of each check over a window, from the rollups: one aggregate, or one
 * per calendar bucket with `granularity`.
 */
export async function buildReport(
  ctx: ServiceContext,
  accountId: string,
  query: ReportingQuery,
): Promise<{ rows: ReportRow[]; from: string; to: string }> {
  const bucketZone = query.timezone === undefined ? 'UTC' : canonicalTimeZone(query.timezone)
  if (bucketZone === undefined || /^[+-]/.test(query.timezone ?? '')) {
    throw invalidQuery('querystring.timezone', 'must be a named IANA time zone, such as Europe/Berlin')
  }
  const accountZone = (await getAccount(ctx, accountId)).settings.timezone
  const window = reportWindow(
    query,
    query.timezone === undefined ? accountZone : bucketZone,
    ctx.clock.now().getTime(),
  )
  const buckets: Period[] = query.granularity
    ? calendarBuckets(window, query.granularity, bucketZone)
    : [window]
  const rows: ReportRow[] = []
  for (const check of await reportedChecks(ctx, accountId, query)) {
    const figures = await periodFigures(ctx, check, buckets, accountZone)
    const row: ReportRow = {
      name: check.name,
      checkId: check.id,
      checkType: check.checkType,
      deactivated: !check.activated,
      tags: check.tags,
    }
    if (query.granularity) {
      row.aggregates = figures.map((f, i) => ({
        ...figuresOf(f),
        from: new Date((buckets[i] as Period).fromMs).toISOString(),
        to: new Date((buckets[i] as Period).toMs).toISOString(),
      }))
    } else {
      row.aggregate = figuresOf(figures[0] as PeriodFigures)
    }
    rows.push(row)
  }
  return { rows, from: new Date(window.fromMs).toISOString(), to: new Date(window.toMs).toISOString() }
}
