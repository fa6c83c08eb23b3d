import { type TemplateVariables, textOf } from '@svc/core'

/** Plain lines every human-facing channel builds its message from. */
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

/** Whether the event ends an alert (the receivers that keep incidents open close them on it). */
export function isRecovery(variables: TemplateVariables): boolean {
  const type = textOf(variables.ALERT_TYPE)
  return type === 'ALERT_RECOVERY' || type === 'ALERT_DEGRADED_RECOVERY'
}

/**
 * One key per check for the receivers that deduplicate (PagerDuty, Opsgenie): a failure, its degraded
 * state and its recovery are one incident. A certificate about to expire is another, with no recovery.
 */
export function incidentKey(variables: TemplateVariables): string {
  const check = textOf(variables.CHECK_ID)
  return textOf(variables.ALERT_TYPE) === 'ALERT_SSL' ? `svc-${check}-ssl` : `svc-${check}`
}

const EMOJI: Record<string, string> = {
  ALERT_FAILURE: ':red_circle:',
  ALERT_RECOVERY: ':large_green_circle:',
  ALERT_DEGRADED: ':large_yellow_circle:',
  ALERT_DEGRADED_RECOVERY: ':large_green_circle:',
  ALERT_SSL: ':lock:',
}

/** Slack mrkdwn treats &, < and > as control characters. */
const slackText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

/** The mrkdwn text of an alert, for Slack's incoming webhooks and its Web API alike. */
export function slackMessageText(variables: TemplateVariables): string {
  const title = textOf(variables.ALERT_TITLE)
  const link = textOf(variables.RESULT_LINK)
  return [
    `${EMOJI[textOf(variables.ALERT_TYPE)] ?? ''} *${slackText(title)}*`.trim(),
    ...summaryLines(variables).map(slackText),
    ...(link ? [`<${link}|View the result>`] : []),
  ].join('\n')
}
