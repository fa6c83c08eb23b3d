import {
  fetchPage,
  type StatusPageConfirmTokensTable,
  type StatusPageEmailsTable,
  type StatusPageSubscribersTable,
} from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { locked, type RowLock } from '../../transactions.ts'

/** The only SQL for `status_page_subscribers`, `status_page_confirm_tokens` and `status_page_emails`. */

export async function insertSubscriber(ctx: ServiceContext, row: StatusPageSubscribersTable): Promise<void> {
  await ctx.db.insertInto('status_page_subscribers').values(row).execute()
}

/** Whether subscriber `id` is still there, locked as `lock` until the transaction ends. */
export async function lockSubscriber(ctx: ServiceContext, id: string, lock: RowLock): Promise<boolean> {
  const query = ctx.db.selectFrom('status_page_subscribers').select('id').where('id', '=', id)
  return (await locked(ctx, query, lock).executeTakeFirst()) !== undefined
}

export async function findSubscriberByEmail(ctx: ServiceContext, pageId: string, email: string) {
  return ctx.db
    .selectFrom('status_page_subscribers')
    .selectAll()
    .where('status_page_id', '=', pageId)
    .where('email', '=', email)
    .executeTakeFirst()
}

/** The subscriber whose confirmation link carries the token of `hash` (any of the links sent). */
export async function findSubscriberByConfirmHash(ctx: ServiceContext, hash: string) {
  return ctx.db
    .selectFrom('status_page_confirm_tokens as t')
    .innerJoin('status_page_subscribers as s', 's.id', 't.subscriber_id')
    .selectAll('s')
    .where('t.token_hash', '=', hash)
    .executeTakeFirst()
}

export async function insertConfirmToken(
  ctx: ServiceContext,
  row: StatusPageConfirmTokensTable,
): Promise<void> {
  await ctx.db.insertInto('status_page_confirm_tokens').values(row).execute()
}

/** Drops all but the newest `keep` confirmation links of a subscriber. */
export async function pruneConfirmTokens(ctx: ServiceContext, subscriberId: string, keep: number) {
  const newest = ctx.db
    .selectFrom('status_page_confirm_tokens')
    .select('token_hash')
    .where('subscriber_id', '=', subscriberId)
    .orderBy('created_at', 'desc')
    .orderBy('token_hash', 'desc')
    .limit(keep)
  await ctx.db
    .deleteFrom('status_page_confirm_tokens')
    .where('subscriber_id', '=', subscriberId)
    .where('token_hash', 'not in', newest)
    .execute()
}

export async function findSubscriberByUnsubscribeToken(ctx: ServiceContext, token: string) {
  return ctx.db
    .selectFrom('status_page_subscribers')
    .selectAll()
    .where('unsubscribe_token', '=', token)
    .executeTakeFirst()
}

export async function setSubscriber(
  ctx: ServiceContext,
  id: string,
  changes: Partial<Pick<StatusPageSubscribersTable, 'confirmation_sent_at' | 'confirmed_at'>>,
): Promise<boolean> {
  const result = await ctx.db
    .updateTable('status_page_subscribers')
    .set(changes)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function subscriberWithTokenExists(ctx: ServiceContext, pageId: string, token: string) {
  const row = await ctx.db
    .selectFrom('status_page_subscribers')
    .select('id')
    .where('status_page_id', '=', pageId)
    .where('unsubscribe_token', '=', token)
    .executeTakeFirst()
  return row !== undefined
}

export async function deleteSubscriberByToken(ctx: ServiceContext, pageId: string, token: string) {
  const result = await ctx.db
    .deleteFrom('status_page_subscribers')
    .where('status_page_id', '=', pageId)
    .where('unsubscribe_token', '=', token)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function deleteSubscriber(ctx: ServiceContext, pageId: string, id: string) {
  const result = await ctx.db
    .deleteFrom('status_page_subscribers')
    .where('status_page_id', '=', pageId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function listSubscribers(
  ctx: ServiceContext,
  pageId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('status_page_subscribers').where('status_page_id', '=', pageId)
  return fetchPage(query, (q) => q.selectAll().orderBy('created_at').orderBy('email'), page)
}

export async function confirmedSubscribers(ctx: ServiceContext, pageId: string) {
  return ctx.db
    .selectFrom('status_page_subscribers')
    .selectAll()
    .where('status_page_id', '=', pageId)
    .where('confirmed_at', 'is not', null)
    .orderBy('created_at')
    .execute()
}

/** Queues an email unless one with its dedupe key was queued before. */
export async function insertEmailOnce(ctx: ServiceContext, row: StatusPageEmailsTable): Promise<boolean> {
  const inserted = await ctx.db
    .insertInto('status_page_emails')
    .values(row)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst()
  return inserted !== undefined
}

/** Leases up to `limit` due pending emails to `owner` (PostgreSQL skips rows other nodes are claiming). */
export async function leaseDueEmails(
  ctx: ServiceContext,
  claim: { owner: string; nowMs: number; leaseMs: number; limit: number },
): Promise<StatusPageEmailsTable[]> {
  const locking = ctx.engine === 'postgres' ? sql`for update skip locked` : sql``
  const { rows } = await sql<StatusPageEmailsTable>`
    update status_page_emails
    set lease_owner = ${claim.owner}, lease_until_ms = ${claim.nowMs + claim.leaseMs}
    where id in (
      select id from status_page_emails
      where status = 'PENDING'
        and next_attempt_ms <= ${claim.nowMs}
        and (lease_until_ms is null or lease_until_ms < ${claim.nowMs})
      order by next_attempt_ms
      limit ${claim.limit}
      ${locking})
    returning *`.execute(ctx.db)
  return rows
}

/** When the next pending email can be leased: its next attempt, or the end of another's lease on it. */
export async function nextEmailDueMs(ctx: ServiceContext): Promise<number | undefined> {
  const row = await ctx.db
    .selectFrom('status_page_emails')
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

/** Records a delivery outcome, if `owner` still holds the email's lease. */
export async function settleEmail(
  ctx: ServiceContext,
  id: string,
  owner: string,
  changes: Partial<
    Pick<StatusPageEmailsTable, 'status' | 'attempts' | 'next_attempt_ms' | 'last_error' | 'sent_at'>
  >,
): Promise<void> {
  await ctx.db
    .updateTable('status_page_emails')
    .set({ ...changes, lease_owner: null, lease_until_ms: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute()
}

/** Exported because the tests read the queued emails. */
export async function listEmails(ctx: ServiceContext, pageId: string) {
  return ctx.db
    .selectFrom('status_page_emails')
    .selectAll()
    .where('status_page_id', '=', pageId)
    .orderBy('created_at')
    .execute()
}
