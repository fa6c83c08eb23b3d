import { type TemplateVariables, textOf, type WebhookPreset } from '@svc/core'
import { incidentKey, isRecovery, summaryLines } from './messages.ts'

interface Preset {
  /** Sent unless the channel's headers set another. */
  contentType: string
  /** The body of a channel whose template is empty. */
  defaultBody(variables: TemplateVariables): string
}

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

/** The summary as label and value, for receivers that lay facts out in a table. */
function facts(variables: TemplateVariables) {
  return summaryLines(variables).map((line) => {
    const at = line.indexOf(': ')
    return { title: line.slice(0, at), value: line.slice(at + 2) }
  })
}

/** A Teams Workflows webhook ("post to a channel when a webhook request is received"): an Adaptive Card. */
function teamsCard(variables: TemplateVariables): string {
  const link = textOf(variables.RESULT_LINK)
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      { type: 'TextBlock', text: textOf(variables.ALERT_TITLE), weight: 'Bolder', size: 'Large', wrap: true },
      { type: 'FactSet', facts: facts(variables) },
    ],
    actions: link ? [{ type: 'Action.OpenUrl', title: 'View the result', url: link }] : [],
  }
  return JSON.stringify({
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card },
    ],
  })
}

/** Telegram's sendMessage as a form; `chat_id` comes from the channel's query parameters (or URL). */
function telegramMessage(variables: TemplateVariables): string {
  const link = textOf(variables.RESULT_LINK)
  const text = [
    `<b>${escapeHtml(textOf(variables.ALERT_TITLE))}</b>`,
    ...summaryLines(variables).map(escapeHtml),
    ...(link ? [`<a href="${escapeHtml(link)}">View the result</a>`] : []),
  ].join('\n')
  return new URLSearchParams({ parse_mode: 'HTML', disable_web_page_preview: 'true', text }).toString()
}

/** An incident.io HTTP alert source: one alert per check, resolved by its recovery. */
function incidentIoAlert(variables: TemplateVariables): string {
  const v = (name: string) => textOf(variables[name])
  return JSON.stringify({
    title: v('ALERT_TITLE'),
    description: summaryLines(variables).join('\n'),
    deduplication_key: incidentKey(variables),
    status: isRecovery(variables) ? 'resolved' : 'firing',
    ...(v('RESULT_LINK') ? { source_url: v('RESULT_LINK') } : {}),
    metadata: {
      checkId: v('CHECK_ID'),
      checkName: v('CHECK_NAME'),
      checkType: v('CHECK_TYPE'),
      alertType: v('ALERT_TYPE'),
      checkResultId: v('CHECK_RESULT_ID'),
      runLocation: v('RUN_LOCATION'),
      groupName: v('GROUP_NAME'),
      tags: Array.isArray(variables.TAGS) ? variables.TAGS : [],
    },
  })
}

/** Discord refuses content over 2,000 characters. */
function discordMessage(variables: TemplateVariables): string {
  const link = textOf(variables.RESULT_LINK)
  const content = [
    `**${textOf(variables.ALERT_TITLE)}**`,
    ...summaryLines(variables),
    ...(link ? [`View the result: <${link}>`] : []),
  ].join('\n')
  return JSON.stringify({
    username: 'svc',
    content: content.length > 2000 ? `${content.slice(0, 1997)}...` : content,
    allowed_mentions: { parse: [] },
  })
}

function googleChatMessage(variables: TemplateVariables): string {
  const link = textOf(variables.RESULT_LINK)
  const text = [
    `*${textOf(variables.ALERT_TITLE)}*`,
    ...summaryLines(variables),
    ...(link ? [`<${link}|View the result>`] : []),
  ].join('\n')
  return JSON.stringify({ text })
}

export const WEBHOOK_PRESET_BODIES = {
  WEBHOOK_MSTEAMS: { contentType: 'application/json', defaultBody: teamsCard },
  WEBHOOK_TELEGRAM: { contentType: 'application/x-www-form-urlencoded', defaultBody: telegramMessage },
  WEBHOOK_INCIDENTIO: { contentType: 'application/json', defaultBody: incidentIoAlert },
  WEBHOOK_DISCORD: { contentType: 'application/json', defaultBody: discordMessage },
  WEBHOOK_GOOGLE_CHAT: { contentType: 'application/json; charset=UTF-8', defaultBody: googleChatMessage },
} as const satisfies Record<WebhookPreset, Preset>

export function presetOf(webhookType: string | null | undefined): Preset | null {
  return webhookType && Object.hasOwn(WEBHOOK_PRESET_BODIES, webhookType)
    ? WEBHOOK_PRESET_BODIES[webhookType as WebhookPreset]
    : null
}
