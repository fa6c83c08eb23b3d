import { type AlertNotificationsTable, fetchPage } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `alert_notifications`, the outbox. */

export async function insertNotifications(
  ctx: ServiceContext,
  rows: AlertNotificationsTable[],
): Promise<void> {
  if (rows.length === 0) return
  await ctx.db.insertInto('alert_notifications').values(rows).execute()
}

/**
 * Leases up to `limit` due notifications to `owner` and counts the attempt it is about to make, before
 * making it: a crash mid-attempt costs that attempt, never sends it twice. PostgreSQL skips rows other
 * nodes are claiming; SQLite has one writer.
 */
export async function claimDue(
  ctx: ServiceContext,
  claim: { owner: string; nowMs: number; leaseMs: number; limit: number },
): Promise<AlertNotificationsTable[]> {
  const locking = ctx.engine === 'postgres' ? sql`for update skip locked` : sql``
  const due = sql`
    select id from alert_notifications
    where status = 'PENDING'
      and next_attempt_ms <= ${claim.nowMs}
      and (lease_until_ms is null or lease_until_ms < ${claim.nowMs})
    order by next_attempt_ms, created_at, position
    limit ${claim.limit}
    ${locking}`
  const { rows } = await sql<AlertNotificationsTable>`
    update alert_notifications
    set lease_owner = ${claim.owner}, lease_until_ms = ${claim.nowMs + claim.leaseMs}, attempts = attempts + 1
    where id in (${due})
    returning *`.execute(ctx.db)
  return rows
    .map((row) => ({ ...row, attempts: Number(row.attempts), position: Number(row.position) }))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.position - b.position)
}

/** Records an attempt's outcome, if `owner` still holds the lease. */
export async function recordAttempt(
  ctx: ServiceContext,
  id: string,
  owner: string,
  changes: Pick<
    AlertNotificationsTable,
    'status' | 'next_attempt_ms' | 'last_response' | 'attempt_log' | 'updated_at' | 'delivered_at'
  >,
): Promise<void> {
  await ctx.db
    .updateTable('alert_notifications')
    .set({ ...changes, lease_owner: null, lease_until_ms: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute()
}

export interface NotificationFilter {
  checkId?: string
  channelId?: number
  status?: string
  alertType?: string
}

export async function listNotifications(
  ctx: ServiceContext,
  accountId: string,
  filter: NotificationFilter,
  page: { limit: number; offset: number },
) {
  let query = ctx.db.selectFrom('alert_notifications').where('account_id', '=', accountId)
  if (filter.checkId) query = query.where('check_id', '=', filter.checkId)
  if (filter.channelId !== undefined) query = query.where('channel_id', '=', filter.channelId)
  if (filter.status) query = query.where('status', '=', filter.status)
  if (filter.alertType) query = query.where('alert_type', '=', filter.alertType)
  return fetchPage(
    query,
    (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('position', 'desc'),
    page,
  )
}

export async function findNotification(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('alert_notifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** Deletes an account's finished notifications (delivered, failed, cancelled) created before `beforeIso`. */
export async function deleteFinishedNotificationsBefore(
  ctx: ServiceContext,
  accountId: string,
  beforeIso: string,
): Promise<number> {
  const result = await ctx.db
    .deleteFrom('alert_notifications')
    .where('account_id', '=', accountId)
    .where('status', '!=', 'PENDING')
    .where('created_at', '<', beforeIso)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
