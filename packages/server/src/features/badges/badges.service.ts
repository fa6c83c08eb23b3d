import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import { getAccount } from '../accounts/accounts.service.ts'
import { type PeriodFigures, periodFigures } from '../analytics/period-figures.ts'
import { getGroup } from '../check-groups/check-groups.service.ts'
import { statusesOf } from '../check-statuses/check-statuses.ts'
import { findCheckById, listChecks } from '../checks/checks.service.ts'
import { type BadgeStatus, badgeSvg } from './badge-svg.ts'
import type { CheckBadgeQuery, GroupBadgeQuery } from './badges.schemas.ts'

/** Status badges for READMEs: open routes, so they show only what the badge's URL addresses. */

const DAY_MS = 86_400_000
const MAX_GROUP_CHECKS = 1000

interface CheckRef {
  id: string
  name: string
  check_type: string
  account_id: string
}

export async function checkBadge(ctx: ServiceContext, checkId: string, query: CheckBadgeQuery) {
  const row = await findCheckById(ctx, checkId)
  if (!row) throw notFound(`Check ${checkId} not found`)
  const { status, figures } = await figuresOf(ctx, row.account_id, [row])
  return render(row.name, status, figures, query)
}

/** A group's badge: failing when one of its checks fails, passing when all that ran pass. */
export async function groupBadge(
  ctx: ServiceContext,
  groupId: number,
  accountId: string | undefined,
  query: GroupBadgeQuery,
): Promise<string> {
  if (!accountId) throw notFound(`Check group ${groupId} not found`)
  const group = await getGroup(ctx, accountId, groupId)
  const { items } = await listChecks(
    ctx,
    accountId,
    { groupId },
    { limit: MAX_GROUP_CHECKS, page: 1, offset: 0 },
  )
  const checks = items.map((check) => ({
    id: check.id as string,
    name: check.name,
    check_type: check.checkType as string,
    account_id: accountId,
  }))
  const { status, figures } = await figuresOf(ctx, accountId, checks)
  return render(group.name, status, figures, query)
}

async function figuresOf(ctx: ServiceContext, accountId: string, checks: CheckRef[]) {
  const statuses = (await statusesOf(ctx, checks)).map((s) => s.status)
  const status: BadgeStatus = statuses.includes('failing')
    ? 'failing'
    : statuses.includes('degraded')
      ? 'degraded'
      : statuses.includes('passing')
        ? 'passing'
        : 'no data'
  const timeZone = (await getAccount(ctx, accountId)).settings.timezone
  const nowMs = ctx.clock.now().getTime()
  const figures: PeriodFigures[] = []
  for (const check of checks) {
    const [day] = await periodFigures(
      ctx,
      { id: check.id, checkType: check.check_type },
      [{ fromMs: nowMs - DAY_MS, toMs: nowMs }],
      timeZone,
    )
    if (day) figures.push(day)
  }
  return { status, figures }
}

/** Uptime over every result of the checks; the response time weighted by their results. */
function render(label: string, status: BadgeStatus, figures: PeriodFigures[], query: CheckBadgeQuery) {
  const results = figures.reduce((sum, f) => sum + f.results, 0)
  const passed = figures.reduce((sum, f) => sum + ((f.availability ?? 0) * f.results) / 100, 0)
  const details: string[] = []
  if (results > 0) details.push(`${formatPercent((100 * passed) / results)} uptime`)
  if (query.responseTime) {
    const timed = figures.filter((f) => f.avg !== null && f.results > 0)
    const weight = timed.reduce((sum, f) => sum + f.results, 0)
    const avg = timed.reduce((sum, f) => sum + (f.avg as number) * f.results, 0) / weight
    details.push(weight > 0 ? `${Math.round(avg)} ms` : 'no response time')
  }
  return badgeSvg({
    label,
    status,
    details,
    style: query.style ?? 'flat',
    theme: query.theme ?? 'default',
  })
}

/** 100%, 99.95%, 75%: two decimals at most, no trailing zeros. */
function formatPercent(value: number): string {
  return `${Number(value.toFixed(2))}%`
}
