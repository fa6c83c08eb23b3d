import { createHmac } from 'node:crypto'
import {
  bodyContextOf,
  cachedAlertTemplate,
  type EscapeContext,
  encodedHeaderValue,
  type RenderOptions,
  Scrubber,
  sendableHeaders,
  type TemplateVariables,
  textOf,
  withoutControlCharacters,
} from '@svc/core'
import nodemailer, { type Transporter } from 'nodemailer'
import { type Dispatcher, request as undiciRequest } from 'undici'
import type { ServiceContext } from '../../context.ts'
import {
  DEFAULT_WEBHOOK_TEMPLATE,
  type DeliverableChannel,
} from '../alert-channels/alert-channels.service.ts'
import * as groupsRepo from '../check-groups/check-groups.repo.ts'
import type { StoredVariable } from '../checks/check-variables.ts'
import * as variablesRepo from '../variables/variables.repo.ts'

export interface AlertEvent {
  groupId: number | null
  variables: TemplateVariables
}

export interface AttemptOutcome {
  ok: boolean
  statusCode: number | null
  body: string | null
  error: string | null
  /**
   * A failure that would fail the same way again, before anything was sent (a template that does not
   * render, a channel type this node can't send) or refused for good by a mail server: not retried.
   * Every status a receiver answers stays retried, 4xx included (the spec's "Delivery and retries").
   */
  permanent?: boolean
}

/** A failure no retry can change: the delivery fails at once. */
class PermanentFailure extends Error {}

const RESPONSE_BODY_LIMIT = 2048
const USER_AGENT = 'svc-alerts/1'

/** One delivery attempt of `event` through `channel`. Never throws: a failure is an outcome. */
export async function deliver(
  ctx: ServiceContext,
  channel: DeliverableChannel,
  event: AlertEvent,
  deliveryId: string,
): Promise<AttemptOutcome> {
  // Locked values the request may carry; a receiver echoing them must not show them in the record.
  const hidden: string[] = []
  try {
    const environment = await environmentOf(ctx, channel.accountId, event.groupId)
    hidden.push(...environment.hidden)
    for (const item of [...(channel.webhook?.headers ?? []), ...(channel.webhook?.queryParameters ?? [])])
      if (item.locked) hidden.push(item.value)
    const variables = { ...environment.values, ...event.variables }
    const options: RenderOptions = {
      now: ctx.clock.now(),
      region: ctx.alerting?.region ?? 'local',
    }
    return scrubOutcome(await send(ctx, channel, event, variables, options, deliveryId), new Scrubber(hidden))
  } catch (error) {
    const outcome = failure(error instanceof Error ? error.message : String(error))
    if (error instanceof PermanentFailure) outcome.permanent = true
    return scrubOutcome(outcome, new Scrubber(hidden))
  }
}

function send(
  ctx: ServiceContext,
  channel: DeliverableChannel,
  event: AlertEvent,
  variables: TemplateVariables,
  options: RenderOptions,
  deliveryId: string,
): Promise<AttemptOutcome> {
  switch (channel.type) {
    case 'WEBHOOK':
      return sendWebhook(ctx, channel, variables, options, deliveryId)
    case 'SLACK':
      return sendSlack(ctx, channel, event.variables)
    case 'EMAIL':
      return sendEmail(ctx, channel, event.variables)
    case 'SMS':
      return sendSms(ctx, channel, variables, options)
  }
}

function scrubOutcome(outcome: AttemptOutcome, scrubber: Scrubber): AttemptOutcome {
  if (scrubber.empty) return outcome
  return {
    ...outcome,
    body: outcome.body === null ? null : scrubber.text(outcome.body),
    error: outcome.error === null ? null : scrubber.text(outcome.error),
  }
}

/** Account variables, then the group's, never secrets (they render empty); `hidden` are the locked values. */
async function environmentOf(ctx: ServiceContext, accountId: string, groupId: number | null) {
  const values: Record<string, string> = {}
  const hidden: string[] = []
  const { rows } = await variablesRepo.listVariables(ctx, accountId, {}, { limit: 100_000, offset: 0 })
  for (const row of rows) {
    if (row.secret) continue
    values[row.key] =
      row.encrypted_value !== null ? ctx.secretBox.decrypt(row.encrypted_value) : (row.value ?? '')
    if (row.locked) hidden.push(values[row.key] as string)
  }
  if (groupId !== null) {
    const group = await groupsRepo.findGroup(ctx, accountId, groupId)
    const variables = (
      group ? (JSON.parse(group.definition).environmentVariables ?? []) : []
    ) as StoredVariable[]
    for (const variable of variables) {
      if (variable.secret) continue
      values[variable.key] =
        variable.sealedValue !== null ? ctx.secretBox.decrypt(variable.sealedValue) : (variable.value ?? '')
      if (variable.locked) hidden.push(values[variable.key] as string)
    }
  }
  return { values, hidden }
}

/** The exact request a webhook channel sends for these variables (its body bytes are what is signed). */
export function webhookRequest(
  channel: DeliverableChannel,
  variables: TemplateVariables,
  options: RenderOptions,
): { url: string; method: string; headers: Record<string, string>; body: Buffer | undefined } {
  const webhook = channel.webhook
  if (!webhook) throw new Error('not a webhook channel')
  const render = (source: string, context: EscapeContext) => rendered(source, variables, context, options)
  const url = parsedUrl(render(webhook.url, 'url'))
  if (webhook.queryParameters.length > 0) {
    // Appended to the query as written: url.searchParams would re-encode all of it (`flag` as `flag=`,
    // `/` as `%2F`), which breaks receivers that check a signature over their URL.
    const added = new URLSearchParams()
    for (const { key, value } of webhook.queryParameters) added.append(key, render(value, 'text'))
    url.search = url.search.length > 1 ? `${url.search.slice(1)}&${added}` : added.toString()
  }
  const headers: Record<string, string> = { 'user-agent': USER_AGENT }
  // One stored before the save-time rule refused it would fail every delivery (or hang the next): left out.
  for (const { key, value } of sendableHeaders(webhook.headers))
    headers[key.toLowerCase()] = headerValue(render(value, 'text'))
  headers['content-type'] ??= 'application/json'
  let body: Buffer | undefined
  if (webhook.method !== 'GET' && webhook.method !== 'HEAD') {
    const context = bodyContextOf(headers['content-type'])
    let text = render(webhook.template || DEFAULT_WEBHOOK_TEMPLATE, context)
    if (context === 'json') text = compactJson(text)
    body = Buffer.from(text, 'utf8')
  }
  return { url: url.toString(), method: webhook.method, headers, body }
}

/** Renders a channel template; one that fails (too much output, a helper's error) fails the same way again. */
function rendered(
  source: string,
  variables: TemplateVariables,
  context: EscapeContext,
  options: RenderOptions,
): string {
  try {
    return cachedAlertTemplate(source).render(variables, context, options)
  } catch (error) {
    throw new PermanentFailure(
      `the template does not render: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

/** The rendered URL; one that is not a URL (say, a variable changed since the save) is a permanent failure. */
function parsedUrl(text: string): URL {
  if (!URL.canParse(text)) throw new PermanentFailure(`the URL template renders no URL: ${text}`)
  return new URL(text)
}

/** fetch refuses a URL with credentials; browsers and curl send them as Basic authorization. */
function credentialsAsHeader(text: string, headers: Record<string, string>) {
  const url = new URL(text)
  if (!url.username && !url.password) return { url: text, headers }
  const credentials = `${decodedUserinfo(url.username)}:${decodedUserinfo(url.password)}`
  url.username = ''
  url.password = ''
  return {
    url: url.toString(),
    headers: { authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`, ...headers },
  }
}

function decodedUserinfo(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * Control characters (refused at save; from a variable, or stored before, they failed every attempt) go
 * as spaces, tabs stay; the text goes as its UTF-8 bytes.
 */
function headerValue(text: string): string {
  return encodedHeaderValue(withoutControlCharacters(text))
}

/**
 * Sent compacted, parsed and re-serialized (API.md), so receivers that verify the signature over
 * `JSON.stringify(parsedBody)` agree with the one over the bytes sent. The price: a number JSON.parse can't
 * hold exactly (an integer above 2^53) arrives as JSON.parse reads it. Text that is not JSON goes as is.
 */
function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text))
  } catch {
    return text
  }
}

async function sendWebhook(
  ctx: ServiceContext,
  channel: DeliverableChannel,
  variables: TemplateVariables,
  options: RenderOptions,
  deliveryId: string,
): Promise<AttemptOutcome> {
  const request = webhookRequest(channel, variables, options)
  request.headers['x-svc-timestamp'] = String(ctx.clock.now().getTime())
  request.headers['x-svc-delivery-id'] = deliveryId
  const secret = channel.webhook?.secret
  if (secret) {
    request.headers['x-svc-signature'] = createHmac('sha256', secret)
      .update(request.body ?? Buffer.alloc(0))
      .digest('hex')
  }
  return httpAttempt(ctx, request)
}

/**
 * One HTTP request through undici's request (fetch drops a `Host` header silently, and a channel may
 * need one: a receiver reached by IP behind a virtual host). Redirects are not followed.
 */
async function httpAttempt(
  ctx: ServiceContext,
  request: {
    url: string
    method: string
    headers: Record<string, string>
    body: Buffer | string | undefined
  },
): Promise<AttemptOutcome> {
  try {
    const { url, headers } = credentialsAsHeader(request.url, request.headers)
    const response = await undiciRequest(url, {
      method: request.method as Dispatcher.HttpMethod,
      headers,
      body: request.body,
      signal: AbortSignal.timeout(ctx.alerting?.timeoutMs ?? 10_000),
    })
    const status = response.statusCode
    return {
      ok: status < 400,
      statusCode: status,
      body: await bodyStart(response.body),
      error: status < 400 ? null : `HTTP ${status}`,
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    const name = (error as { name?: string }).name
    if (name === 'TimeoutError' || name === 'AbortError') return failure('timed out')
    if (typeof code === 'string' && code.startsWith('E') && !code.startsWith('ERR_')) return failure(code)
    return failure(error instanceof Error ? error.message : String(error))
  }
}

/**
 * The first 2 KiB of a response body, for the record. The status has decided the attempt already: a
 * body that never ends (or stops after a timeout) keeps what came, and a huge one is not read past it.
 */
async function bodyStart(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer)
      size += (chunk as Buffer).byteLength
      if (size >= RESPONSE_BODY_LIMIT) break
    }
  } catch {
    // Timed out or cut off mid-body: what came is the record.
  } finally {
    body.destroy()
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_BODY_LIMIT)
}

function failure(error: string): AttemptOutcome {
  return { ok: false, statusCode: null, body: null, error }
}

const EMOJI: Record<string, string> = {
  ALERT_FAILURE: ':red_circle:',
  ALERT_RECOVERY: ':large_green_circle:',
  ALERT_DEGRADED: ':large_yellow_circle:',
  ALERT_DEGRADED_RECOVERY: ':large_green_circle:',
  ALERT_SSL: ':lock:',
}

/** Plain lines every human-facing channel (Slack, email, SMS) builds its message from. */
export function summaryLines(variables: TemplateVariables): string[] {
  const v = (name: string) => textOf(variables[name])
  return [
    `Check: ${v('CHECK_NAME')} (${v('CHECK_TYPE')})`,
    v('RUN_LOCATION') && `Location: ${v('RUN_LOCATION')}`,
    v('RESPONSE_TIME') && `Response time: ${v('RESPONSE_TIME')} ms`,
    v('API_CHECK_RESPONSE_STATUS_CODE') &&
      `Status: ${v('API_CHECK_RESPONSE_STATUS_CODE')} ${v('API_CHECK_RESPONSE_STATUS_TEXT')}`.trim(),
    v('CHECK_ERROR_MESSAGE') && `Error: ${v('CHECK_ERROR_MESSAGE')}`,
    v('SSL_DAYS_REMAINING') &&
      `Certificate of ${v('SSL_CHECK_DOMAIN')}: ${v('SSL_DAYS_REMAINING')} days left`,
    v('GROUP_NAME') && `Group: ${v('GROUP_NAME')}`,
    v('STARTED_AT') && `Started at: ${v('STARTED_AT')}`,
  ].filter(Boolean)
}

/** Slack mrkdwn treats &, < and > as control characters. */
const slackText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

export function slackMessage(variables: TemplateVariables, channel?: string | null) {
  const title = textOf(variables.ALERT_TITLE)
  const link = textOf(variables.RESULT_LINK)
  const lines = [
    `${EMOJI[textOf(variables.ALERT_TYPE)] ?? ''} *${slackText(title)}*`.trim(),
    ...summaryLines(variables).map(slackText),
    ...(link ? [`<${link}|View the result>`] : []),
  ]
  return { text: lines.join('\n'), username: 'svc', ...(channel ? { channel } : {}) }
}

async function sendSlack(ctx: ServiceContext, channel: DeliverableChannel, variables: TemplateVariables) {
  const config = channel.config as { url: string; channel?: string | null }
  return httpAttempt(ctx, {
    url: config.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: JSON.stringify(slackMessage(variables, config.channel)),
  })
}

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

export function emailMessage(variables: TemplateVariables) {
  const title = textOf(variables.ALERT_TITLE)
  const link = textOf(variables.RESULT_LINK)
  const lines = summaryLines(variables)
  const text = [title, '', ...lines, ...(link ? ['', `Result: ${link}`] : [])].join('\n')
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<h2>${escapeHtml(title)}</h2>`,
    `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    link ? `<p><a href="${escapeHtml(link)}">View the result</a></p>` : '',
    '</body></html>',
  ].join('')
  return { subject: title, text, html }
}

const mailers = new Map<string, Transporter>()

async function sendEmail(
  ctx: ServiceContext,
  channel: DeliverableChannel,
  variables: TemplateVariables,
): Promise<AttemptOutcome> {
  const smtp = ctx.alerting?.smtp
  if (!smtp) return { ...failure('email is not configured: set SVC_SMTP_URL'), permanent: true }
  let mailer = mailers.get(smtp.url)
  if (!mailer) {
    const timeout = ctx.alerting?.timeoutMs ?? 10_000
    mailer = nodemailer.createTransport({
      url: smtp.url,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    })
    mailers.set(smtp.url, mailer)
  }
  const message = emailMessage(variables)
  try {
    const info = await mailer.sendMail({
      from: smtp.from,
      to: (channel.config as { address: string }).address,
      ...message,
    })
    return {
      ok: true,
      statusCode: null,
      body: String(info.response ?? '').slice(0, RESPONSE_BODY_LIMIT),
      error: null,
    }
  } catch (error) {
    // A 5xx SMTP reply (unknown mailbox, refused sender, failed authentication) is final; 4xx is "try later".
    const code = (error as { responseCode?: unknown }).responseCode
    return {
      ...failure(error instanceof Error ? error.message : String(error)),
      ...(typeof code === 'number' && code >= 500 ? { permanent: true } : {}),
    }
  }
}

async function sendSms(
  ctx: ServiceContext,
  channel: DeliverableChannel,
  variables: TemplateVariables,
  options: RenderOptions,
): Promise<AttemptOutcome> {
  const provider = ctx.alerting?.sms
  if (!provider) return { ...failure('SMS is not configured: set SVC_SMS_URL'), permanent: true }
  const config = channel.config as { number: string; name: string }
  const all = {
    ...variables,
    NUMBER: config.number,
    NAME: config.name,
    MESSAGE: `${textOf(variables.ALERT_TITLE)}${variables.RUN_LOCATION ? ` (${textOf(variables.RUN_LOCATION)})` : ''}`,
  }
  const headers: Record<string, string> = { 'user-agent': USER_AGENT }
  for (const [key, value] of Object.entries(provider.headers))
    headers[key.toLowerCase()] = encodedHeaderValue(value)
  headers['content-type'] ??= 'application/json'
  let body = rendered(provider.body, all, bodyContextOf(headers['content-type']), options)
  if (bodyContextOf(headers['content-type']) === 'json') body = compactJson(body)
  return httpAttempt(ctx, {
    url: parsedUrl(rendered(provider.url, all, 'url', options)).toString(),
    method: provider.method,
    headers,
    body: provider.method === 'GET' ? undefined : body,
  })
}
