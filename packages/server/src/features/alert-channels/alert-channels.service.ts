import type { AlertChannelBody, AlertChannelType } from '@svc/core'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, HttpError, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { compileBodyValidator } from '../../http/validation.ts'
import { inTransaction } from '../../transactions.ts'
import * as groupLookups from '../check-groups/group-lookups.service.ts'
import * as checkLookups from '../checks/check-lookups.service.ts'
import type { StoredVariable } from '../checks/check-variables.ts'
import { withProjectBindings } from '../projects/project-bindings.ts'
import * as variableLookups from '../variables/variable-lookups.service.ts'
import * as repo from './alert-channels.repo.ts'
import type { AlertChannel, AlertChannelSubscriptionOut, SubscriptionBody } from './alert-channels.schemas.ts'
import { type AttemptOutcome, PermanentFailure, type SendInput } from './types/channel-type.ts'
import { invalid } from './types/config-rules.ts'
import { CHANNEL_TYPES } from './types/index.ts'

export type { AttemptOutcome } from './types/channel-type.ts'
export { DEFAULT_WEBHOOK_TEMPLATE } from './types/webhook.ts'

/** A channel ready to deliver: config with every sealed value opened. Never leaves the server. */
export interface DeliverableChannel {
  id: number
  accountId: string
  type: AlertChannelType
  config: unknown
}

/** How a channel filters alerts (the alerter's view of it). */
export interface ChannelPolicy {
  id: number
  sendRecovery: boolean
  sendFailure: boolean
  sendDegraded: boolean
  sslExpiry: boolean
  sslExpiryThreshold: number
}

const configValidators = Object.fromEntries(
  Object.entries(CHANNEL_TYPES).map(([type, definition]) => [type, compileBodyValidator(definition.schema)]),
) as Record<AlertChannelType, (body: unknown) => void>

export async function createChannel(ctx: ServiceContext, accountId: string, body: AlertChannelBody) {
  const { config, warnings } = await prepareConfig(ctx, accountId, body, null)
  const now = isoNow(ctx)
  const row = await inTransaction(ctx, async (tx) => {
    const inserted = await repo.insertChannel(tx, {
      account_id: accountId,
      type: body.type,
      config: JSON.stringify(config),
      ...flagsOf(body),
      created_at: now,
      updated_at: now,
    })
    if (body.subscriptions) await setSubscriptions(tx, accountId, inserted.id, body.subscriptions)
    return inserted
  })
  return {
    ...(await toResponses(ctx, [row]))[0],
    ...(warnings.length > 0 ? { warnings } : {}),
  } as AlertChannel
}

export async function getChannel(ctx: ServiceContext, accountId: string, id: number): Promise<AlertChannel> {
  const [channel] = await toResponses(ctx, [await findOrThrow(ctx, accountId, id)])
  return channel as AlertChannel
}

export async function listChannels(ctx: ServiceContext, accountId: string, page: Page) {
  const { rows, total } = await repo.listChannels(ctx, accountId, page)
  return { items: await toResponses(ctx, rows), total }
}

/** Replaces a channel's type, config and flags; an omitted webhookSecret keeps the stored one. */
export async function updateChannel(
  ctx: ServiceContext,
  accountId: string,
  id: number,
  body: AlertChannelBody,
) {
  const row = await findOrThrow(ctx, accountId, id)
  const previous = row.type === body.type ? (JSON.parse(row.config) as Record<string, unknown>) : null
  const { config, warnings } = await prepareConfig(ctx, accountId, body, previous)
  const changes = {
    type: body.type,
    config: JSON.stringify(config),
    ...flagsOf(body),
    updated_at: isoNow(ctx),
  }
  await inTransaction(ctx, async (tx) => {
    await repo.updateChannel(tx, id, changes)
    if (body.subscriptions) await setSubscriptions(tx, accountId, id, body.subscriptions)
  })
  const [channel] = await toResponses(ctx, [{ ...row, ...changes }])
  return { ...channel, ...(warnings.length > 0 ? { warnings } : {}) } as AlertChannel
}

/** Deleting a channel ends its subscriptions; notifications already decided stay listed. */
export async function deleteChannel(ctx: ServiceContext, accountId: string, id: number) {
  await findOrThrow(ctx, accountId, id)
  await repo.deleteChannel(ctx, id)
}

/** `PUT /v1/alert-channels/{id}/subscriptions`: subscribes (or unsubscribes) one check or one group. */
export async function updateSubscription(
  ctx: ServiceContext,
  accountId: string,
  id: number,
  body: SubscriptionBody,
): Promise<AlertChannelSubscriptionOut> {
  // One transaction holding the channel and what subscribes: a deletion of either waits for the
  // subscription, or went first (the usual 404 or 400).
  return inTransaction(ctx, async (tx) => {
    if ((await repo.lockReferencedChannels(tx, accountId, [id])).length === 0)
      throw notFound(`Alert channel ${id} not found`)
    return subscriptionOut(await subscribe(tx, accountId, id, body, 'body'))
  })
}

/** A channel's `subscriptions` given with the channel: they replace what it had, in its transaction. */
async function setSubscriptions(
  tx: ServiceContext,
  accountId: string,
  channelId: number,
  subscriptions: SubscriptionBody[],
) {
  await repo.deleteSubscriptionsOfChannel(tx, channelId)
  for (const [index, subscription] of subscriptions.entries())
    await subscribe(tx, accountId, channelId, subscription, `body.subscriptions.${index}`)
}

/** Subscribes the one check or group `body` names, inside the caller's transaction; `path` names it in errors. */
async function subscribe(
  tx: ServiceContext,
  accountId: string,
  channelId: number,
  body: SubscriptionBody,
  path: string,
) {
  const hasCheck = body.checkId !== undefined && body.checkId !== null
  const hasGroup = body.groupId !== undefined && body.groupId !== null
  if (hasCheck === hasGroup) throw invalid(path, 'must name exactly one of checkId and groupId')
  if (
    hasCheck &&
    (await checkLookups.lockReferencedChecks(tx, accountId, [body.checkId as string])).size === 0
  )
    throw invalid(`${path}.checkId`, `check ${body.checkId} not found`)
  if (hasGroup && !(await groupLookups.lockGroup(tx, accountId, body.groupId as number, 'referenced')))
    throw invalid(`${path}.groupId`, `check group ${body.groupId} not found`)
  const subscriber = hasCheck ? { checkId: body.checkId as string } : { groupId: body.groupId as number }
  return repo.upsertSubscription(tx, channelId, subscriber, body.activated)
}

async function findOrThrow(ctx: ServiceContext, accountId: string, id: number) {
  const row = await repo.findChannel(ctx, accountId, id)
  if (!row) throw notFound(`Alert channel ${id} not found`)
  return row
}

function flagsOf(body: AlertChannelBody) {
  return {
    send_recovery: body.sendRecovery ?? true,
    send_failure: body.sendFailure ?? true,
    send_degraded: body.sendDegraded ?? false,
    ssl_expiry: body.sslExpiry ?? false,
    ssl_expiry_threshold: body.sslExpiryThreshold ?? 30,
    auto_subscribe: body.autoSubscribe ?? false,
  }
}

/** Validates the type's config (its schema, then its own rules) and seals what must not be readable. */
async function prepareConfig(
  ctx: ServiceContext,
  accountId: string,
  body: AlertChannelBody,
  previous: Record<string, unknown> | null,
): Promise<{ config: unknown; warnings: string[] }> {
  const config = structuredClone(body.config) as Record<string, unknown>
  validateConfig(body.type, config)
  const prepared = CHANNEL_TYPES[body.type].prepare(ctx, config, previous)
  return {
    config: prepared.config,
    warnings: await secretWarnings(ctx, accountId, prepared.templateNames ?? new Set()),
  }
}

/** Secrets never reach alert channels: a template naming one renders it empty, so the save says so. */
async function secretWarnings(ctx: ServiceContext, accountId: string, names: Set<string>): Promise<string[]> {
  if (names.size === 0) return []
  const secrets = new Set<string>()
  const { rows } = await variableLookups.listVariables(ctx, accountId, {}, { limit: 100_000, offset: 0 })
  for (const row of rows) if (row.secret) secrets.add(row.key)
  const groups = await groupLookups.listGroups(ctx, accountId, { limit: 100_000, offset: 0 })
  for (const group of groups.rows) {
    const variables = (JSON.parse(group.definition).environmentVariables ?? []) as StoredVariable[]
    for (const variable of variables) if (variable.secret) secrets.add(variable.key)
  }
  return [...names]
    .filter((name) => secrets.has(name))
    .sort()
    .map(
      (name) =>
        `The template uses ${name}, a secret variable: secrets are never given to alert channels, so it renders empty`,
    )
}

async function toResponses(ctx: ServiceContext, rows: repo.ChannelRow[]): Promise<AlertChannel[]> {
  const subscriptions = await repo.subscriptionsOfChannels(
    ctx,
    rows.map((row) => row.id),
  )
  const channels = rows.map((row) => ({
    id: row.id,
    type: row.type as AlertChannelType,
    config: publicConfig(row.type as AlertChannelType, JSON.parse(row.config)),
    subscriptions: subscriptions.filter((s) => s.channel_id === row.id).map(subscriptionOut),
    sendRecovery: Boolean(row.send_recovery),
    sendFailure: Boolean(row.send_failure),
    sendDegraded: Boolean(row.send_degraded),
    sslExpiry: Boolean(row.ssl_expiry),
    sslExpiryThreshold: row.ssl_expiry_threshold,
    autoSubscribe: Boolean(row.auto_subscribe),
    created_at: row.created_at,
    updated_at: row.updated_at,
  }))
  return withProjectBindings(ctx, 'alert-channel', channels, (channel) => channel.id)
}

function subscriptionOut(row: {
  id: number
  check_id: string | null
  group_id: number | null
  activated: unknown
}): AlertChannelSubscriptionOut {
  return { id: row.id, checkId: row.check_id, groupId: row.group_id, activated: Boolean(row.activated) }
}

/** The config as clients see it: no secret, locked values and keys masked. */
export function publicConfig(type: AlertChannelType, config: unknown): Record<string, unknown> {
  return CHANNEL_TYPES[type].publicView(config)
}

/** The channel with every sealed value opened, for delivery. */
export function deliverableChannel(ctx: ServiceContext, row: repo.ChannelRow): DeliverableChannel {
  const type = row.type as AlertChannelType
  return {
    id: row.id,
    accountId: row.account_id,
    type,
    config: CHANNEL_TYPES[type].open(ctx, JSON.parse(row.config)),
  }
}

/** The values of a channel a receiver might echo back: the delivery log never shows them. */
export function channelSecrets(ctx: ServiceContext, channel: DeliverableChannel): string[] {
  return CHANNEL_TYPES[channel.type].secrets(ctx, channel.config)
}

/** One delivery attempt through the channel's type; what fails before sending says whether it always will. */
export async function sendThrough(
  ctx: ServiceContext,
  channel: DeliverableChannel,
  input: SendInput,
): Promise<AttemptOutcome> {
  try {
    return await CHANNEL_TYPES[channel.type].send(ctx, channel.config, input)
  } catch (error) {
    if (!(error instanceof PermanentFailure)) throw error
    return { ok: false, statusCode: null, body: null, error: error.message, permanent: true }
  }
}

export function policyOf(row: repo.ChannelRow): ChannelPolicy {
  return {
    id: row.id,
    sendRecovery: Boolean(row.send_recovery),
    sendFailure: Boolean(row.send_failure),
    sendDegraded: Boolean(row.send_degraded),
    sslExpiry: Boolean(row.ssl_expiry),
    sslExpiryThreshold: row.ssl_expiry_threshold,
  }
}

/** Validates `config` against its type's schema, naming paths from the body (`body.config.url`). */
function validateConfig(type: AlertChannelType, config: unknown) {
  try {
    configValidators[type](config)
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    const errors = ((error.attributes?.errors ?? []) as { path: string; message: string }[]).map((e) => ({
      ...e,
      path: e.path.replace(/^body/, 'body.config'),
    }))
    const first = errors[0] ?? { path: 'body.config', message: 'is invalid' }
    throw badRequest(`${first.path} ${first.message}`, { errors })
  }
}
