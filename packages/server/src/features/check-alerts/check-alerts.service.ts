import { textOf } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { badRequest } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { listSentAlerts, type SentAlert } from '../alerting/sent-alerts.ts'
import { getCheck } from '../checks/checks.service.ts'
import { type CheckAlert, type CheckAlertsQuery, MAX_WINDOW_SECONDS } from './check-alerts.schemas.ts'

/** `/v1/check-alerts`: the alerts sent, read from the alert outbox, at most 6 hours at a time. */
export async function listCheckAlerts(
  ctx: ServiceContext,
  accountId: string,
  query: CheckAlertsQuery & { checkId?: string },
  page: Page,
): Promise<{ items: CheckAlert[]; total: number }> {
  if (query.checkId) await getCheck(ctx, accountId, query.checkId)
  const { fromIso, toIso } = windowOf(query, ctx.clock.now().getTime() / 1000)
  const alerts = await listSentAlerts(ctx, accountId, { checkId: query.checkId, fromIso, toIso })
  return {
    items: alerts.slice(page.offset, page.offset + page.limit).map(toCheckAlert),
    total: alerts.length,
  }
}

/** The hosted rules: 6 hours before `to` (default now), or 6 hours after a lone `from`; never longer. */
// `now` keeps its milliseconds: an alert sent this second is in the default window.
function windowOf(query: CheckAlertsQuery, nowSeconds: number) {
  let { from, to } = query
  if (from === undefined && to === undefined) to = nowSeconds
  if (from === undefined) from = (to as number) - MAX_WINDOW_SECONDS
  if (to === undefined) to = from + MAX_WINDOW_SECONDS
  if (to - from > MAX_WINDOW_SECONDS) {
    const message = 'must be at most 6 hours (21600 seconds) after `from`'
    throw badRequest(`querystring.to ${message}`, { errors: [{ path: 'querystring.to', message }] })
  }
  if (to <= from) {
    const message = 'must be after `from`'
    throw badRequest(`querystring.to ${message}`, { errors: [{ path: 'querystring.to', message }] })
  }
  return {
    fromIso: new Date(Math.max(0, from) * 1000).toISOString(),
    toIso: new Date(to * 1000).toISOString(),
  }
}

function toCheckAlert(alert: SentAlert): CheckAlert {
  const v = alert.variables
  const responseTime = typeof v.RESPONSE_TIME === 'number' ? v.RESPONSE_TIME : undefined
  const statusCode = v.API_CHECK_RESPONSE_STATUS_CODE
  const startedAt = textOf(v.STARTED_AT)
  return {
    id: alert.id,
    name: textOf(v.CHECK_NAME),
    checkId: alert.checkId,
    alertType: alert.alertType,
    checkType: textOf(v.CHECK_TYPE),
    runLocation: textOf(v.RUN_LOCATION),
    ...(responseTime === undefined ? {} : { responseTime }),
    error: textOf(v.CHECK_ERROR_MESSAGE) || null,
    statusCode: statusCode === null || statusCode === undefined ? null : String(statusCode),
    created_at: alert.createdAt,
    ...(startedAt ? { startedAt } : {}),
  }
}
