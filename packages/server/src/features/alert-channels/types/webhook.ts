import { createHmac } from 'node:crypto'
import {
  ALERT_EVENT_VARIABLES,
  bodyContextOf,
  cachedAlertTemplate,
  compileAlertTemplate,
  type EscapeContext,
  type RenderOptions,
  refusedHeaderValue,
  refusedRequestHeader,
  sendableHeaders,
  TEMPLATE_HELPERS,
  TemplateSyntaxError,
  type TemplateVariables,
  WebhookConfig,
} from '@svc/core'
import type { ServiceContext } from '../../../context.ts'
import { badRequest } from '../../../http/errors.ts'
import { MASKED_VALUE } from '../../variables/variables.schemas.ts'
import { SAMPLE_EVENT, sampleRenderOptions } from '../sample-event.ts'
import { defineChannelType } from './channel-type.ts'
import { invalid } from './config-rules.ts'
import {
  compactJson,
  headerValue,
  httpAttempt,
  parsedUrl,
  receiverReason,
  rendered,
  USER_AGENT,
} from './send-http.ts'
import { presetOf } from './webhook-presets.ts'

/** A header or query parameter as stored: a locked value only sealed. */
interface StoredKeyValue {
  key: string
  value: string | null
  sealedValue: string | null
  locked: boolean
}

interface StoredWebhook {
  name: string
  url: string
  method: string
  headers: StoredKeyValue[]
  queryParameters: StoredKeyValue[]
  template: string
  sealedSecret: string | null
  webhookType: string | null
}

interface OpenedKeyValue {
  key: string
  value: string
  locked: boolean
}

export interface OpenedWebhook {
  name: string
  url: string
  method: string
  headers: OpenedKeyValue[]
  queryParameters: OpenedKeyValue[]
  template: string
  secret: string | null
  webhookType: string | null
}

interface WebhookInput {
  name: string
  url: string
  method?: string
  template: string
  headers: { key: string; value: string; locked?: boolean }[]
  queryParameters: { key: string; value: string; locked?: boolean }[]
  webhookSecret?: string | null
  webhookType?: string | null
}

/** The body a webhook sends when its template is empty (and it has no preset): every event variable, JSON. */
export const DEFAULT_WEBHOOK_TEMPLATE = `{\n${ALERT_EVENT_VARIABLES.map((name) =>
  name === 'TAGS'
    ? `  "TAGS": [{{#each TAGS}}"{{this}}"{{#unless @last}}, {{/unless}}{{/each}}]`
    : `  "${name}": "{{${name}}}"`,
).join(',\n')}\n}`

/** Compiles each template of the config and renders it with the sample event; collects the names used. */
function templateCompiler(ctx: ServiceContext) {
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
  return { names, compile }
}

/** Validates the templates and headers, seals locked values and the secret. */
function prepareWebhook(ctx: ServiceContext, config: Record<string, unknown>, before: StoredWebhook | null) {
  const webhook = config as unknown as WebhookInput
  const { names, compile } = templateCompiler(ctx)
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
  if (
    webhook.webhookType === 'WEBHOOK_TELEGRAM' &&
    webhook.template === '' &&
    !webhook.queryParameters.some((p) => p.key === 'chat_id') &&
    !/[?&]chat_id=/.test(webhook.url)
  )
    throw invalid(
      'body.config.queryParameters',
      'must hold chat_id: a Telegram channel with no template sends none',
    )
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
  const stored: StoredWebhook = {
    name: webhook.name,
    url: webhook.url,
    method: webhook.method ?? 'POST',
    headers: seal('headers'),
    queryParameters: seal('queryParameters'),
    template: webhook.template,
    sealedSecret:
      webhook.webhookSecret === undefined
        ? (before?.sealedSecret ?? null)
        : webhook.webhookSecret
          ? ctx.secretBox.encrypt(webhook.webhookSecret)
          : null,
    webhookType: webhook.webhookType ?? null,
  }
  return { config: stored, templateNames: names }
}

function openValue(ctx: ServiceContext, item: StoredKeyValue | undefined): string {
  if (!item) return MASKED_VALUE
  return item.sealedValue !== null ? ctx.secretBox.decrypt(item.sealedValue) : (item.value ?? '')
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

/** The exact request a webhook channel sends for these variables (its body bytes are what is signed). */
export function webhookRequest(
  webhook: OpenedWebhook,
  variables: TemplateVariables,
  options: RenderOptions,
): { url: string; method: string; headers: Record<string, string>; body: Buffer | undefined } {
  const render = (source: string, context: EscapeContext) => rendered(source, variables, context, options)
  const url = parsedUrl(render(webhook.url, 'url'))
  if (webhook.queryParameters.length > 0) {
    // Appended to the query as written: url.searchParams would re-encode all of it (`flag` as `flag=`,
    // `/` as `%2F`), which breaks receivers that check a signature over their URL.
    const added = new URLSearchParams()
    for (const { key, value } of webhook.queryParameters) added.append(key, render(value, 'text'))
    url.search = url.search.length > 1 ? `${url.search.slice(1)}&${added}` : added.toString()
  }
  const preset = presetOf(webhook.webhookType)
  const headers: Record<string, string> = { 'user-agent': USER_AGENT }
  // One stored before the save-time rule refused it would fail every delivery (or hang the next): left out.
  for (const { key, value } of sendableHeaders(webhook.headers))
    headers[key.toLowerCase()] = headerValue(render(value, 'text'))
  headers['content-type'] ??= preset?.contentType ?? 'application/json'
  let body: Buffer | undefined
  if (webhook.method !== 'GET' && webhook.method !== 'HEAD') {
    const context = bodyContextOf(headers['content-type'])
    let text =
      webhook.template === '' && preset
        ? preset.defaultBody(variables)
        : render(webhook.template || DEFAULT_WEBHOOK_TEMPLATE, context)
    if (context === 'json') text = compactJson(text)
    body = Buffer.from(text, 'utf8')
  }
  return { url: url.toString(), method: webhook.method, headers, body }
}

/** `WEBHOOK`: the spec's templated webhook; a `webhookType` preset knows its receiver's body. */
export const webhook = defineChannelType<StoredWebhook, OpenedWebhook>({
  schema: WebhookConfig,
  prepare: (ctx, config, previous) => prepareWebhook(ctx, config, previous),
  publicView(config) {
    const items = (list: StoredKeyValue[]) =>
      list.map((item) => ({
        key: item.key,
        value: item.locked ? MASKED_VALUE : (item.value ?? ''),
        locked: item.locked,
      }))
    return {
      name: config.name,
      url: config.url,
      method: config.method,
      headers: items(config.headers),
      queryParameters: items(config.queryParameters),
      template: config.template,
      webhookType: config.webhookType,
    }
  },
  open(ctx, config) {
    const open = (list: StoredKeyValue[]) =>
      list.map((item) => ({ key: item.key, value: openValue(ctx, item), locked: item.sealedValue !== null }))
    return {
      name: config.name,
      url: config.url,
      method: config.method,
      headers: open(config.headers),
      queryParameters: open(config.queryParameters),
      template: config.template,
      secret: config.sealedSecret ? ctx.secretBox.decrypt(config.sealedSecret) : null,
      webhookType: config.webhookType ?? null,
    }
  },
  secrets: (_ctx, config) =>
    [...config.headers, ...config.queryParameters].filter((item) => item.locked).map((item) => item.value),
  send(ctx, config, { variables, options, deliveryId }) {
    const request = webhookRequest(config, variables, options)
    request.headers['x-svc-timestamp'] = String(ctx.clock.now().getTime())
    request.headers['x-svc-delivery-id'] = deliveryId
    if (config.secret) {
      request.headers['x-svc-signature'] = createHmac('sha256', config.secret)
        .update(request.body ?? Buffer.alloc(0))
        .digest('hex')
    }
    // A preset's receiver says why it refuses; a plain webhook's record stays `HTTP <status>` and its body.
    return httpAttempt(ctx, request, presetOf(config.webhookType) ? { reason: receiverReason } : {})
  },
})
