import { textOf } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { listNotificationsBetween } from './alert-notifications.repo.ts'
import type { AlertEvent } from './delivery.ts'

/** One alert the alerter decided and sent, whatever the number of channels it went to. */
export interface SentAlert {
  id: string
  checkId: string
  alertType: string
  createdAt: string
  variables: AlertEvent['variables']
}

/**
 * The alerts sent for an account's checks in [fromIso, toIso), newest first: the notifications of one
 * decision (one row per channel) count once. Channel tests are left out.
 */
export async function listSentAlerts(
  ctx: ServiceContext,
  accountId: string,
  filter: { checkId?: string; fromIso: string; toIso: string },
): Promise<SentAlert[]> {
  const alerts = new Map<string, SentAlert>()
  for (const row of await listNotificationsBetween(ctx, accountId, filter)) {
    if (!row.check_id) continue
    const event = JSON.parse(row.event) as AlertEvent & { test?: boolean }
    if (event.test) continue
    const key = [row.check_id, row.alert_type, row.created_at, textOf(event.variables.ALERT_TITLE)].join('\n')
    if (alerts.has(key)) continue
    alerts.set(key, {
      id: row.id,
      checkId: row.check_id,
      alertType: row.alert_type,
      createdAt: row.created_at,
      variables: event.variables,
    })
  }
  return [...alerts.values()]
}
