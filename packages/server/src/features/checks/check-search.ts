import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { statusReads } from '../check-results/check-results.service.ts'
import { checkResponseInGroup, checkResponses } from './check-responses.ts'
import * as repo from './checks.repo.ts'
import { HOSTED_ONLY_TYPES, type SearchChecksQuery, type STATUSES } from './checks.schemas.ts'
import { type ResolvedCheck, resolveCheck, resolveChecks } from './resolve-check.ts'

/**
 * Checks of the account as the filters name them, oldest first. The type and name filter in the store;
 * the rest (tags, URL, status) on the checks found, before paging.
 */
export async function searchChecks(
  ctx: ServiceContext,
  accountId: string,
  query: SearchChecksQuery & { groupId?: number; activated?: boolean },
  page: Page,
) {
  const checkType = query.checkType === 'PLAYWRIGHT' ? 'AUTOMATION' : query.checkType
  if ((HOSTED_ONLY_TYPES as readonly string[]).includes(checkType ?? '')) return { items: [], total: 0 }
  // Tags filter below: a check has its group's tags too, which the store's tag filter doesn't see.
  const filter = {
    checkType,
    nameContains: query.search || undefined,
    groupId: query.groupId,
    activated: query.activated,
  }
  const { rows } = await repo.listChecks(ctx, accountId, filter, {
    limit: Number.MAX_SAFE_INTEGER,
    offset: 0,
  })
  let found = await resolveChecks(ctx, accountId, rows)
  const tags = query.tag ?? []
  found = found.filter((check) => tags.every((tag) => check.effective.tags.includes(tag)))
  const pattern = query.apiCheckUrlFilterPattern
  if (pattern)
    found = found.filter((check) => check.row.check_type === 'API' && urlOf(check).includes(pattern))
  if (query.status) found = await withStatus(ctx, found, query.status)
  const pageOfChecks = found.slice(page.offset, page.offset + page.limit)
  return { items: await responsesOf(ctx, pageOfChecks, query.applyGroupSettings), total: found.length }
}

export async function getCheckAsAsked(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  query: { applyGroupSettings?: boolean },
) {
  const row = await repo.findCheck(ctx, accountId, id)
  if (!row) throw notFound(`Check ${id} not found`)
  return (await responsesOf(ctx, [await resolveCheck(ctx, row)], query.applyGroupSettings))[0]
}

async function responsesOf(ctx: ServiceContext, checks: ResolvedCheck[], inGroup: boolean | undefined) {
  if (!inGroup) return checkResponses(ctx, checks)
  return Promise.all(checks.map((check) => checkResponseInGroup(ctx, check)))
}

const urlOf = (check: ResolvedCheck) => String((check.definition.request as { url?: unknown })?.url ?? '')

async function withStatus(ctx: ServiceContext, checks: ResolvedCheck[], status: (typeof STATUSES)[number]) {
  const latest = new Map(
    (
      await statusReads.latestResults(
        ctx,
        checks.map((check) => check.row.id),
      )
    ).map((r) => [r.check_id, r]),
  )
  return checks.filter((check) => {
    const result = latest.get(check.row.id)
    if (!result) return false
    const current = result.has_failures ? 'failing' : result.is_degraded ? 'degraded' : 'passing'
    return current === status
  })
}
