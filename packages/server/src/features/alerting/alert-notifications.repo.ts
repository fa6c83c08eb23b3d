import { type AlertNotificationsTable, fetchPage } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { raiseWakeup } from '../../wakeups.ts'

/** The only SQL for `alert_notifications`, the outbox. */

export async function insertNotifications(
  ctx: ServiceContext,
  rows: AlertNotificationsTable[],
): Promise<void> {
  if (rows.length === 0) return
  await ctx.db.insertInto('alert_notifications').values(rows).execute()
  await raiseWakeup(ctx, 'alerts')
}

/** When the next pending notification can be claimed: its next attempt, or the end of the lease on it. */
export async function nextNotificationDueMs(ctx: ServiceContext): Promise<number | undefined> {
  const row = await ctx.db
    .selectFrom('alert_notifications')
    .select(
      sql<
        number | string | null
      >`min(case when lease_until_ms >= next_attempt_ms then lease_until_ms + 1 else next_attempt_ms end)`.as(
        'due',
      ),
    )
    .where('status', '=', 'PENDING')
    .executeTakeFirst()
  return row?.due == null ? undefined : Number(row.due)
}

/**
 * Leases up to `limit` due notifications to `owner` and counts the attempt it is about to make, before
 * making it: a crash mid-attempt costs that attempt, never sends it twice. PostgreSQL skips rows other
 * nodes are claiming; SQLite has one writer. Alerts of one check to one channel go out in the order
 * they were decided: one waits while an earlier one waits for its retry or is in flight (a recovery
 * never overtakes the failure it ends), and the oldest go first, so a batch never holds a later one
 * without the earlier ones that are due too.
 */
export async function claimDue(
  ctx: ServiceContext,
  claim: { owner: string; nowMs: number; leaseMs: number; limit: number },
): Promise<AlertNotificationsTable[]> {
  if (ctx.engine !== 'postgres') return claimDueNow(ctx, claim)
  // Claims on PostgreSQL take turns: a claim running alongside another skips the rows that one is
  // taking, yet still sees them unleased, and would take the recovery while the other takes its
  // failure. Per schema, so stores sharing a database don't wait for each other.
  const claimInTurn = async (db: ServiceContext['db']) => {
    await sql`select pg_advisory_xact_lock(${CLAIM_LOCK}, hashtext(current_schema()))`.execute(db)
    return claimDueNow({ ...ctx, db }, claim)
  }
  return ctx.db.isTransaction ? claimInTurn(ctx.db) : ctx.db.transaction().execute(claimInTurn)
}

/** The first key of the claims' advisory lock (`alrt` in ASCII); the second is the schema's. */
const CLAIM_LOCK = 0x616c7274

async function claimDueNow(
  ctx: ServiceContext,
  claim: { owner: string; nowMs: number; leaseMs: number; limit: number },
): Promise<AlertNotificationsTable[]> {
  const locking = ctx.engine === 'postgres' ? sql`for update skip locked` : sql``
  const due = sql`
    select n.id from alert_notifications n
    where n.status = 'PENDING'
      and n.next_attempt_ms <= ${claim.nowMs}
      and (n.lease_until_ms is null or n.lease_until_ms < ${claim.nowMs})
      and not exists (
        select 1 from alert_notifications e
        where e.status = 'PENDING'
          and e.check_id = n.check_id
          and e.channel_type = n.channel_type
          and coalesce(e.channel_id, 0) = coalesce(n.channel_id, 0)
          and (e.created_at < n.created_at or (e.created_at = n.created_at and e.position < n.position))
          and (e.next_attempt_ms > ${claim.nowMs} or e.lease_until_ms >= ${claim.nowMs}))
    order by n.created_at, n.position
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

/** Gives back a claim not attempted (an earlier alert of its queue is still pending): no attempt counted. */
export async function releaseClaim(ctx: ServiceContext, id: string, owner: string): Promise<void> {
  await ctx.db
    .updateTable('alert_notifications')
    .set((eb) => ({ attempts: eb('attempts', '-', 1), lease_owner: null, lease_until_ms: null }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute()
}

/**
 * Ends now the leases `owner` holds, attempts counted: a dead process's attempt in flight may have gone
 * out (the receiver deduplicates by delivery id), and its last allowed one is not made again.
 */
export async function endLeasesOf(ctx: ServiceContext, owner: string): Promise<void> {
  await ctx.db
    .updateTable('alert_notifications')
    .set({ lease_owner: null, lease_until_ms: null })
    .where('lease_owner', '=', owner)
    .execute()
}

export interface NotificationFilter {
  checkId?: string
  channelId?: number
  statuses?: string[]
  alertType?: string
  /** Created at or after. */
  from?: string
  /** Created before. */
  to?: string
  /** With a failed attempt (or not). */
  hasFailures?: boolean
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
  if (filter.statuses) {
    const statuses = filter.statuses
    query = statuses.length ? query.where('status', 'in', statuses) : query.where(sql<boolean>`1 = 0`)
  }
  if (filter.alertType) query = query.where('alert_type', '=', filter.alertType)
  if (filter.from) query = query.where('created_at', '>=', filter.from)
  if (filter.to) query = query.where('created_at', '<', filter.to)
  if (filter.hasFailures !== undefined) {
    // Every failed attempt is logged with `"ok":false`; a delivery whose channel went first failed too.
    const failed = sql<boolean>`(status in ('FAILED', 'CANCELLED') or attempt_log like ${'%"ok":false%'})`
    query = query.where(filter.hasFailures ? failed : sql<boolean>`not ${failed}`)
  }
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

/** An account's notifications created in [fromIso, toIso), optionally of one check, newest first. */
export async function listNotificationsBetween(
  ctx: ServiceContext,
  accountId: string,
  filter: { checkId?: string; fromIso: string; toIso: string },
) {
  let query = ctx.db
    .selectFrom('alert_notifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('created_at', '>=', filter.fromIso)
    .where('created_at', '<', filter.toIso)
  if (filter.checkId) query = query.where('check_id', '=', filter.checkId)
  return query.orderBy('created_at', 'desc').orderBy('position', 'asc').execute()
}
