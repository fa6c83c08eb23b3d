import type { AlertChannelType } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { badRequest } from '../../http/errors.ts'
import * as repo from './alert-channels.repo.ts'
import { publicConfig } from './alert-channels.service.ts'

/**
 * What checks and groups call for their `alertChannelSubscriptions`: the subscriptions table is the
 * only record of them (the channel's subscriptions endpoint edits the same rows).
 */

export interface SubscriptionInput {
  alertChannelId: number
  activated: boolean
}

/**
 * 400 unless every subscription names a channel of the account. In a transaction, the channels stay
 * (a deletion waits for it to end) and one deleted meanwhile is unknown.
 */
export async function assertChannelsOfAccount(
  ctx: ServiceContext,
  accountId: string,
  subscriptions: SubscriptionInput[] | undefined,
  path: string,
): Promise<void> {
  const ids = [...new Set((subscriptions ?? []).map((s) => s.alertChannelId))]
  const found = new Set(await repo.lockReferencedChannels(ctx, accountId, ids))
  const unknown = ids.find((id) => !found.has(id))
  if (unknown !== undefined) {
    const message = `unknown alert channel ${unknown}`
    throw badRequest(`${path} ${message}`, { errors: [{ path, message }] })
  }
}

/**
 * Subscribes a new check or group: to the given channels, and with `autoAssignAlerts` to every other
 * channel of the account too (without it, to the channels marked autoSubscribe). A given subscription wins.
 */
export async function subscribeNew(
  ctx: ServiceContext,
  accountId: string,
  subscriber: repo.Subscriber,
  given: SubscriptionInput[] | undefined,
  autoAssignAlerts: boolean,
): Promise<void> {
  const explicit = dedupe(given ?? [])
  const named = new Set(explicit.map((s) => s.alertChannelId))
  const automatic = (await repo.listChannelIds(ctx, accountId, !autoAssignAlerts))
    .filter((id) => !named.has(id))
    .map((id) => ({ alertChannelId: id, activated: true }))
  await repo.replaceSubscriptions(ctx, subscriber, [...explicit, ...automatic])
}

/**
 * Subscribes checks created in this transaction as `subscribeNew` does each, with one look-up of the
 * account's channels for all of them.
 */
export async function subscribeNewChecks(
  ctx: ServiceContext,
  accountId: string,
  checks: { checkId: string; given: SubscriptionInput[] | undefined }[],
  autoAssignAlerts: boolean,
): Promise<void> {
  const channelIds = await repo.listChannelIds(ctx, accountId, !autoAssignAlerts)
  const subscriptions = checks.flatMap(({ checkId, given }) => {
    const explicit = dedupe(given ?? [])
    const named = new Set(explicit.map((s) => s.alertChannelId))
    const automatic = channelIds
      .filter((id) => !named.has(id))
      .map((id) => ({ alertChannelId: id, activated: true }))
    return [...explicit, ...automatic].map((s) => ({ checkId, ...s }))
  })
  await repo.insertCheckSubscriptions(ctx, subscriptions)
}

/** Replaces a check's or group's subscriptions when the body names them; an omitted field keeps them. */
export async function replaceSubscriptionsIfGiven(
  ctx: ServiceContext,
  subscriber: repo.Subscriber,
  given: SubscriptionInput[] | undefined,
): Promise<void> {
  if (given === undefined) return
  await repo.replaceSubscriptions(ctx, subscriber, dedupe(given))
}

function dedupe(subscriptions: SubscriptionInput[]): SubscriptionInput[] {
  return [...new Map(subscriptions.map((s) => [s.alertChannelId, s])).values()]
}

type ChannelsShape = {
  email: { address: string }[]
  webhook: {
    name: string
    url: string
    method: string
    headers: { key: string; value: string; locked: boolean }[]
    queryParameters: { key: string; value: string; locked: boolean }[]
  }[]
  slack: { url: string }[]
  sms: { number: string; name: string }[]
}

/**
 * Fills each check's `alertChannelSubscriptions` (its own) and `alertChannels` (the spec's shape: every
 * channel it alerts, its own activated ones and its group's).
 */
export async function withAlertChannels<T extends { id: string; groupId?: unknown }>(
  ctx: ServiceContext,
  checks: T[],
): Promise<(T & { alertChannelSubscriptions: SubscriptionInput[]; alertChannels: ChannelsShape })[]> {
  const groupIds = [
    ...new Set(checks.map((c) => c.groupId).filter((g): g is number => typeof g === 'number')),
  ]
  const rows = await repo.subscriptionsOf(
    ctx,
    checks.map((c) => c.id),
    groupIds,
  )
  return checks.map((check) => {
    const own = rows.filter((r) => r.check_id === check.id)
    const optedOut = new Set(own.filter((r) => !r.activated).map((r) => r.id))
    const effective = [
      ...own.filter((r) => r.activated),
      ...rows.filter((r) => r.group_id !== null && r.group_id === check.groupId && r.activated),
    ].filter((row, index, all) => !optedOut.has(row.id) && all.findIndex((r) => r.id === row.id) === index)
    const alertChannels: ChannelsShape = { email: [], webhook: [], slack: [], sms: [] }
    for (const row of effective) {
      const config = publicConfig(row.type as AlertChannelType, JSON.parse(row.config))
      if (row.type === 'EMAIL') alertChannels.email.push({ address: String(config.address) })
      if (row.type === 'SLACK') alertChannels.slack.push({ url: String(config.url) })
      if (row.type === 'SMS')
        alertChannels.sms.push({ number: String(config.number), name: String(config.name) })
      if (row.type === 'WEBHOOK') {
        const { name, url, method, headers, queryParameters } = config as ChannelsShape['webhook'][number]
        alertChannels.webhook.push({ name, url, method, headers, queryParameters })
      }
    }
    return {
      ...check,
      alertChannelSubscriptions: own.map((r) => ({ alertChannelId: r.id, activated: Boolean(r.activated) })),
      alertChannels,
    }
  })
}

/** Fills each group's `alertChannelSubscriptions`. */
export async function withGroupSubscriptions<T extends { id: number }>(
  ctx: ServiceContext,
  groups: T[],
): Promise<(T & { alertChannelSubscriptions: SubscriptionInput[] })[]> {
  const rows = await repo.subscriptionsOf(
    ctx,
    [],
    groups.map((g) => g.id),
  )
  return groups.map((group) => ({
    ...group,
    alertChannelSubscriptions: rows
      .filter((r) => r.group_id === group.id)
      .map((r) => ({ alertChannelId: r.id, activated: Boolean(r.activated) })),
  }))
}
