import {
  ALERT_CHANNEL_CONFIGS,
  ALERT_EVENT_VARIABLES,
  type AlertChannelBody,
  type AlertChannelType,
  cachedAlertTemplate,
  compileAlertTemplate,
  refusedHeaderValue,
  refusedRequestHeader,
  TEMPLATE_HELPERS,
  TemplateSyntaxError,
} from '@svc/core'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, HttpError, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { compileBodyValidator } from '../../http/validation.ts'
import { inTransaction } from '../../transactions.ts'
import * as groupsRepo from '../check-groups/check-groups.repo.ts'
import type { StoredVariable } from '../checks/check-variables.ts'
import * as checksRepo from '../checks/checks.repo.ts'
import { withProjectBindings } from '../projects/project-bindings.ts'
import * as variablesRepo from '../variables/variables.repo.ts'
import { MASKED_VALUE } from '../variables/variables.schemas.ts'
import * as repo from './alert-channels.repo.ts'
import type { AlertChannel, AlertChannelSubscriptionOut, SubscriptionBody } from './alert-channels.schemas.ts'
import { SAMPLE_EVENT, sampleRenderOptions } from './sample-event.ts'

/** A header or query parameter as stored: a locked value only sealed. */
interface StoredKeyValue {
  key: string
  value: string | null
  sealedValue: string | null
  locked: boolean
}

interface StoredWebhookConfig {
  name: string
  url: string
  method: string
  headers: StoredKeyValue[]
  queryParameters: StoredKeyValue[]
  template: string
  sealedSecret: string | null
  webhookType: string | null
}

/** A channel ready to deliver: config with every sealed value opened. Never leaves the server. */
export interface DeliverableChannel {
  id: number
  accountId: string
  type: AlertChannelType
  config: Record<string, unknown>
  webhook?: {
    name: string
    url: string
    method: string
    headers: { key: string; value: string; locked: boolean }[]
    queryParameters: { key: string; value: string; locked: boolean }[]
    template: string
    secret: string | null
  }
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
  Object.entries(ALERT_CHANNEL_CONFIGS).map(([type, schema]) => [type, compileBodyValidator(schema)]),
) as Record<AlertChannelType, (body: unknown) => void>

/** The body a webhook sends when its template is empty: every event variable, JSON-encoded. */
export const DEFAULT_WEBHOOK_TEMPLATE = `{\n${ALERT_EVENT_VARIABLES.map((name) =>
  name === 'TAGS'
    ? `  "TAGS": [{{#each TAGS}}"{{this}}"{{#unless @last}}, {{/unless}}{{/each}}]`
    : `  "${name}": "{{${name}}}"`,
).join(',\n')}\n}`

export async function createChannel(ctx: ServiceContext, accountId: string, body: AlertChannelBody) {
  const { config, warnings } = await prepareConfig(ctx, accountId, body, null)
  const now = isoNow(ctx)
  const row = await repo.insertChannel(ctx, {
    account_id: accountId,
    type: body.type,
    config: JSON.stringify(config),
    ...flagsOf(body),
    created_at: now,
    updated_at: now,
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
  await repo.updateChannel(ctx, id, changes)
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
  const hasCheck = body.checkId !== undefined && body.checkId !== null
  const hasGroup = body.groupId !== undefined && body.groupId !== null
  // One transaction holding the channel and what subscribes: a deletion of either waits for the
  // subscription, or went first (the usual 404 or 400).
  return inTransaction(ctx, async (tx) => {
    if ((await repo.lockReferencedChannels(tx, accountId, [id])).length === 0)
      throw notFound(`Alert channel ${id} not found`)
    if (hasCheck === hasGroup) throw invalid('body', 'must name exactly one of checkId and groupId')
    if (
      hasCheck &&
      (await checksRepo.lockReferencedChecks(tx, accountId, [body.checkId as string])).size === 0
    )
      throw invalid('body.checkId', `check ${body.checkId} not found`)
    if (hasGroup && !(await groupsRepo.lockGroup(tx, accountId, body.groupId as number, 'referenced')))
      throw invalid('body.groupId', `check group ${body.groupId} not found`)
    const subscriber = hasCheck ? { checkId: body.checkId as string } : { groupId: body.groupId as number }
    return subscriptionOut(await repo.upsertSubscription(tx, id, subscriber, body.activated))
  })
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

/** Validates the type's config, compiles webhook templates, seals what must not be readable. */
async function prepareConfig(
  ctx: ServiceContext,
  accountId: string,
  body: AlertChannelBody,
  previous: Record<string, unknown> | null,
): Promise<{ config: Record<string, unknown>; warnings: string[] }> {
  const config = structuredClone(body.config) as Record<string, unknown>
  validateConfig(body.type, config)
  if (body.type === 'SLACK' && !URL.canParse(config.url as string))
    throw invalid('body.config.url', 'must be an http(s) URL')
  if (body.type !== 'WEBHOOK') return { config, warnings: [] }

  const webhook = config as Record<string, unknown> & {
    url: string
    template: string
    headers: { key: string; value: string; locked?: boolean }[]
    queryParameters: { key: string; value: string; locked?: boolean }[]
    webhookSecret?: string | null
  }
  const before = previous as StoredWebhookConfig | null
  const names = new Set<string>()
  const compile = (path: string, source: string) => {
    try {
      const template = compileAlertTemplate(source)
      template.render(SAMPLE_EVENT, 'text', sampleRenderOptions(ctx))
      for (const name of template.names) names.add(name)
    } catch (error) {
      if (error instanceof TemplateSyntaxError) {
        throw badRequest(`${path} does not compile: ${error.message}`, {
          errors: [
            { path, message: `does not compile: ${error.message}`, line: error.line, column: error.column },
          ],
        })
      }
      const message = error instanceof Error ? error.message : String(error)
      throw invalid(path, `does not render: ${message}`)
    }
  }
  compile('body.config.url', webhook.url)
  if (!isHttpUrl(webhook.url, ctx))
    throw invalid('body.config.url', 'must be an http(s) URL (after its variables are filled in)')
  compile('body.config.template', webhook.template)
  // As for checks: a value as written with a control character is refused (one stored before, or that a
  // variable brings in, still goes with spaces: an alert must get through). A masked value stays as stored.
  webhook.headers.forEach(({ key, value }, index) => {
    const refusal = refusedRequestHeader(key, value) ?? refusedHeaderValue(key, value)
    if (refusal) throw invalid(`body.config.headers.${index}.${refusal.field}`, refusal.message)
  })
  const seal = (field: 'headers' | 'queryParameters') =>
    webhook[field].map((item, index): StoredKeyValue => {
      const plain =
        item.value === MASKED_VALUE
          ? openValue(
              ctx,
              before?.[field]?.find((p) => p.key === item.key && p.locked),
            )
          : item.value
      compile(`body.config.${field}.${index}.value`, plain)
      const locked = item.locked ?? false
      return {
        key: item.key,
        value: locked ? null : plain,
        sealedValue: locked ? ctx.secretBox.encrypt(plain) : null,
        locked,
      }
    })
  const stored: StoredWebhookConfig = {
    name: webhook.name as string,
    url: webhook.url,
    method: (webhook.method as string) ?? 'POST',
    headers: seal('headers'),
    queryParameters: seal('queryParameters'),
    template: webhook.template,
    sealedSecret:
      webhook.webhookSecret === undefined
        ? (before?.sealedSecret ?? null)
        : webhook.webhookSecret
          ? ctx.secretBox.encrypt(webhook.webhookSecret)
          : null,
    webhookType: (webhook.webhookType as string | null | undefined) ?? null,
  }
  return {
    config: stored as unknown as Record<string, unknown>,
    warnings: await secretWarnings(ctx, accountId, names),
  }
}

function openValue(ctx: ServiceContext, item: StoredKeyValue | undefined): string {
  if (!item) return MASKED_VALUE
  return item.sealedValue !== null ? ctx.secretBox.decrypt(item.sealedValue) : (item.value ?? '')
}

/** Secrets never reach alert channels: a template naming one renders it empty, so the save says so. */
async function secretWarnings(ctx: ServiceContext, accountId: string, names: Set<string>): Promise<string[]> {
  if (names.size === 0) return []
  const secrets = new Set<string>()
  const { rows } = await variablesRepo.listVariables(ctx, accountId, {}, { limit: 100_000, offset: 0 })
  for (const row of rows) if (row.secret) secrets.add(row.key)
  const groups = await groupsRepo.listGroups(ctx, accountId, { limit: 100_000, offset: 0 })
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

/** The config as clients see it: no secret, locked values masked. */
export function publicConfig(
  type: AlertChannelType,
  config: Record<string, unknown>,
): Record<string, unknown> {
  if (type !== 'WEBHOOK') return config
  const webhook = config as unknown as StoredWebhookConfig
  const items = (list: StoredKeyValue[]) =>
    list.map((item) => ({
      key: item.key,
      value: item.locked ? MASKED_VALUE : (item.value ?? ''),
      locked: item.locked,
    }))
  return {
    name: webhook.name,
    url: webhook.url,
    method: webhook.method,
    headers: items(webhook.headers),
    queryParameters: items(webhook.queryParameters),
    template: webhook.template,
    webhookType: webhook.webhookType,
  }
}

/** The channel with every sealed value opened, for delivery. */
export function deliverableChannel(ctx: ServiceContext, row: repo.ChannelRow): DeliverableChannel {
  const type = row.type as AlertChannelType
  const config = JSON.parse(row.config) as Record<string, unknown>
  const channel: DeliverableChannel = { id: row.id, accountId: row.account_id, type, config }
  if (type === 'WEBHOOK') {
    const webhook = config as unknown as StoredWebhookConfig
    const open = (list: StoredKeyValue[]) =>
      list.map((item) => ({ key: item.key, value: openValue(ctx, item), locked: item.sealedValue !== null }))
    channel.webhook = {
      name: webhook.name,
      url: webhook.url,
      method: webhook.method,
      headers: open(webhook.headers),
      queryParameters: open(webhook.queryParameters),
      template: webhook.template,
      secret: webhook.sealedSecret ? ctx.secretBox.decrypt(webhook.sealedSecret) : null,
    }
  }
  return channel
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

/** The URL template filled in with the sample event is an http(s) URL, or may become one at delivery. */
function isHttpUrl(source: string, ctx: ServiceContext): boolean {
  const template = cachedAlertTemplate(source)
  const text = template.render(SAMPLE_EVENT, 'url', sampleRenderOptions(ctx))
  if (URL.canParse(text)) return /^https?:$/.test(new URL(text).protocol)
  // Only a base URL from an account or group variable resolves at delivery (`{{HOOK_URL}}/alerts`).
  const events = new Set<string>(ALERT_EVENT_VARIABLES)
  return [...template.names].some((name) => !events.has(name) && !TEMPLATE_HELPERS.has(name))
}

function invalid(path: string, message: string) {
  return badRequest(`${path} ${message}`, { errors: [{ path, message }] })
}
