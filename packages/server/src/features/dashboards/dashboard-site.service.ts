import type { FastifyReply, FastifyRequest } from 'fastify'
import { assertNotThrottled, recordFailedAuth } from '../../auth/failed-auth-throttle.ts'
import type { ServiceContext } from '../../context.ts'
import { hashApiKey, keyLookup } from '../api-keys/api-keys.service.ts'
import { findPageByDomain } from '../status-pages/page-lookups.service.ts'
import { refuse, sendMessage } from '../status-site/page-access.ts'
import { renderDashboardPage } from './dashboard-page.ts'
import { buildDashboardView } from './dashboard-view.ts'
import { type DashboardRow, findPublicDashboard, settingsOf } from './dashboards.service.ts'

/**
 * Sends the public page of a dashboard (found by its customUrl or its custom domain), or the same 404 as
 * for no dashboard when it is private and the caller shows no API key of the account.
 */
export async function sendDashboardPage(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  by: 'custom_url' | 'custom_domain',
  value: string,
  base: string,
) {
  const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]
  if (bearer) await assertNotThrottled(ctx, 'status-page-token', request.ip)
  const row = await findPublicDashboard(ctx, by, value)
  const hidden = !row || (await onAnothersDomain(ctx, request, row))
  if (hidden || (settingsOf(row).isPrivate && !(await isAccountKey(ctx, row, bearer)))) {
    if (bearer) await recordFailedAuth(ctx, 'status-page-token', request.ip)
    return refuse(request, reply, 'html', 404, 'Dashboard not found')
  }
  // On a custom domain the query is not validated (the status site's schema): a bad page is the first.
  const page = Number.parseInt(String((request.query as { page?: unknown }).page ?? 1), 10) || 1
  const view = await buildDashboardView(ctx, row, page)
  reply.header('cache-control', settingsOf(row).isPrivate ? 'private, no-store' : 'public, max-age=10')
  return sendMessage(reply, 200, renderDashboardPage(view, base))
}

/**
 * A custom domain shows its own page only: another dashboard by its customUrl there would put another
 * tenant's words under the domain owner's name (as the status site refuses for status pages).
 */
async function onAnothersDomain(ctx: ServiceContext, request: FastifyRequest, row: DashboardRow) {
  const host = request.headers.host?.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '')
  if (!host || host === new URL(ctx.publicUrl).hostname || host === row.custom_domain) return false
  return Boolean(
    (await findPageByDomain(ctx, host)) ?? (await findPublicDashboard(ctx, 'custom_domain', host)),
  )
}

async function isAccountKey(ctx: ServiceContext, row: DashboardRow, bearer: string | undefined) {
  if (!bearer?.startsWith('svc_')) return false
  const key = await keyLookup.findLiveKeyByHash(ctx, hashApiKey(bearer), row.account_id)
  return Boolean(key && ((key.user_id && key.memberships.length > 0) || key.account_id === row.account_id))
}

/** The dashboard a custom domain shows, if any (svc's own host shows none). */
export async function dashboardOfDomain(ctx: ServiceContext, host: string | undefined) {
  if (!host || host === new URL(ctx.publicUrl).hostname) return undefined
  return findPublicDashboard(ctx, 'custom_domain', host)
}
