import { type AlertChannelsTable, fetchPage } from '@svc/db'
import type { Insertable, Selectable } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { foldReadsChanged } from '../../fold-reads.ts'
import { inTransaction, locked } from '../../transactions.ts'

/**
 * The only SQL for `alert_channels` and `alert_subscriptions`. Every write drops the fold-reads cache,
 * which holds the subscriptions that results' alert folds read (channel-lookups.service.ts).
 */

export type ChannelRow = Selectable<AlertChannelsTable>

export async function insertChannel(ctx: ServiceContext, row: Insertable<AlertChannelsTable>) {
  const inserted = await ctx.db
    .insertInto('alert_channels')
    .values(row)
    .returningAll()
    .executeTakeFirstOrThrow()
  await foldReadsChanged(ctx)
  return inserted
}

export async function findChannel(ctx: ServiceContext, accountId: string, id: number) {
  return ctx.db
    .selectFrom('alert_channels')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** A channel by id in any account: for delivery, which serves every account. */
export async function findChannelById(ctx: ServiceContext, id: number) {
  return ctx.db.selectFrom('alert_channels').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function listChannels(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('alert_channels').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('id'), page)
}

export async function listChannelIds(ctx: ServiceContext, accountId: string, onlyAutoSubscribe: boolean) {
  let query = ctx.db.selectFrom('alert_channels').select('id').where('account_id', '=', accountId)
  if (onlyAutoSubscribe) query = query.where('auto_subscribe', '=', true)
  return (await query.orderBy('id').execute()).map((row) => row.id)
}

/** Which of `ids` are channels of the account, locked as referenced until the transaction ends. */
export async function lockReferencedChannels(
  ctx: ServiceContext,
  accountId: string,
  ids: number[],
): Promise<number[]> {
  if (ids.length === 0) return []
  const query = ctx.db
    .selectFrom('alert_channels')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
  return (await locked(ctx, query, 'referenced').execute()).map((row) => row.id)
}

export async function updateChannel(
  ctx: ServiceContext,
  id: number,
  changes: Omit<Insertable<AlertChannelsTable>, 'id' | 'account_id' | 'created_at'>,
) {
  await ctx.db.updateTable('alert_channels').set(changes).where('id', '=', id).execute()
  await foldReadsChanged(ctx)
}

export async function deleteChannel(ctx: ServiceContext, id: number) {
  await ctx.db.deleteFrom('alert_channels').where('id', '=', id).execute()
  await foldReadsChanged(ctx)
}

export type Subscriber = { checkId: string } | { groupId: number }

/** Ends every subscription of one channel (before its list is set anew). */
export async function deleteSubscriptionsOfChannel(ctx: ServiceContext, channelId: number) {
  await ctx.db.deleteFrom('alert_subscriptions').where('channel_id', '=', channelId).execute()
  await foldReadsChanged(ctx)
}

export async function subscriptionsOfChannels(ctx: ServiceContext, channelIds: number[]) {
  if (channelIds.length === 0) return []
  return ctx.db
    .selectFrom('alert_subscriptions')
    .selectAll()
    .where('channel_id', 'in', channelIds)
    .orderBy('id')
    .execute()
}

/** Subscriptions of checks (by id) and groups (by id), with their channel rows. */
export async function subscriptionsOf(ctx: ServiceContext, checkIds: string[], groupIds: number[]) {
  if (checkIds.length === 0 && groupIds.length === 0) return []
  return ctx.db
    .selectFrom('alert_subscriptions as s')
    .innerJoin('alert_channels as c', 'c.id', 's.channel_id')
    .select([
      's.id as subscription_id',
      's.check_id',
      's.group_id',
      's.activated',
      'c.id',
      'c.account_id',
      'c.type',
      'c.config',
      'c.send_recovery',
      'c.send_failure',
      'c.send_degraded',
      'c.ssl_expiry',
      'c.ssl_expiry_threshold',
      'c.auto_subscribe',
      'c.created_at',
      'c.updated_at',
    ])
    .where((eb) =>
      eb.or([
        ...(checkIds.length > 0 ? [eb('s.check_id', 'in', checkIds)] : []),
        ...(groupIds.length > 0 ? [eb('s.group_id', 'in', groupIds)] : []),
      ]),
    )
    .orderBy('s.channel_id')
    .execute()
}

/** Creates or changes one subscription; answers it. */
export async function upsertSubscription(
  ctx: ServiceContext,
  channelId: number,
  subscriber: Subscriber,
  activated: boolean,
) {
  const where = 'checkId' in subscriber ? { check_id: subscriber.checkId } : { group_id: subscriber.groupId }
  const column = 'checkId' in subscriber ? 'check_id' : 'group_id'
  const subscription = await ctx.db
    .insertInto('alert_subscriptions')
    .values({ channel_id: channelId, check_id: null, group_id: null, ...where, activated })
    .onConflict((oc) => oc.columns(['channel_id', column]).doUpdateSet({ activated }))
    .returningAll()
    .executeTakeFirstOrThrow()
  await foldReadsChanged(ctx)
  return subscription
}

/** Replaces every subscription of one check or group. */
export async function replaceSubscriptions(
  ctx: ServiceContext,
  subscriber: Subscriber,
  subscriptions: { alertChannelId: number; activated: boolean }[],
) {
  await inTransaction(ctx, async (tx) => {
    const { db } = tx
    await foldReadsChanged(tx)
    const scoped = db.deleteFrom('alert_subscriptions')
    await ('checkId' in subscriber
      ? scoped.where('check_id', '=', subscriber.checkId)
      : scoped.where('group_id', '=', subscriber.groupId)
    ).execute()
    if (subscriptions.length === 0) return
    await db
      .insertInto('alert_subscriptions')
      .values(
        subscriptions.map((s) => ({
          channel_id: s.alertChannelId,
          check_id: 'checkId' in subscriber ? subscriber.checkId : null,
          group_id: 'groupId' in subscriber ? subscriber.groupId : null,
          activated: s.activated,
        })),
      )
      .execute()
  })
}

/** The subscriptions of checks saved for the first time (none to replace), in one statement per 500. */
export async function insertCheckSubscriptions(
  ctx: ServiceContext,
  subscriptions: { checkId: string; alertChannelId: number; activated: boolean }[],
) {
  if (subscriptions.length > 0) await foldReadsChanged(ctx)
  for (let start = 0; start < subscriptions.length; start += 500) {
    await ctx.db
      .insertInto('alert_subscriptions')
      .values(
        subscriptions.slice(start, start + 500).map((s) => ({
          channel_id: s.alertChannelId,
          check_id: s.checkId,
          group_id: null,
          activated: s.activated,
        })),
      )
      .execute()
  }
}
