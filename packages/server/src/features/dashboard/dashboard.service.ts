import type { ServiceContext } from '../../context.ts'
import { hourlyOverview } from '../analytics/overview.ts'
import { statusReads } from '../check-results/check-results.service.ts'
import { statusOf } from '../check-statuses/check-statuses.ts'
import { listCheckRowsOfAccount } from '../checks/checks.service.ts'
import { resolveCheckRows } from '../checks/resolve-check.ts'
import type { OverviewCheck } from './dashboard.schemas.ts'
import { statusesSince } from './status-since.ts'

/**
 * Every check of the account with its current status and last 24 hours, in one answer: the dashboard's
 * home polls it. A fixed number of statements whatever the number of checks.
 */
export async function accountOverview(ctx: ServiceContext, accountId: string): Promise<OverviewCheck[]> {
  const rows = await listCheckRowsOfAccount(ctx, accountId)
  const checks = await resolveCheckRows(ctx, rows)
  const ids = checks.map((check) => check.row.id)
  const latest = new Map(
    (await statusReads.latestResults(ctx, ids)).map((result) => [result.check_id, result]),
  )
  const current = new Map([...latest].map(([id, result]) => [id, statusOf(result)]))
  const since = await statusesSince(
    ctx,
    new Map(
      [...latest].map(([id, result]) => [
        id,
        { status: current.get(id) as string, latestAt: String(result.started_at) },
      ]),
    ),
  )
  const figures = await hourlyOverview(
    ctx,
    checks.map((check) => ({ id: check.row.id, checkType: check.row.check_type })),
  )
  const overview = checks.map(({ row, definition, effective, groupActivated }): OverviewCheck => {
    const result = latest.get(row.id)
    const paused = !definition.activated || !groupActivated
    const status = paused ? 'paused' : (current.get(row.id) ?? 'no-data')
    return {
      id: row.id,
      name: row.name,
      checkType: row.check_type,
      activated: Boolean(definition.activated),
      muted: Boolean(row.muted),
      tags: (definition.tags as string[] | undefined) ?? [],
      groupId: row.group_id,
      locations: effective.locations,
      privateLocations: effective.privateLocations,
      frequency: effective.frequency,
      status,
      statusSince: status === 'paused' || status === 'no-data' ? null : (since.get(row.id) ?? null),
      lastRunAt: result?.started_at ?? null,
      lastResponseTime: result ? Number(result.response_time) : null,
      availability24h: figures.get(row.id)?.availability ?? null,
      responseTimes24h: figures.get(row.id)?.hourlyAverages ?? [],
    }
  })
  return overview.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
}
