import { PagerDutyConfig, type TemplateVariables, textOf } from '@svc/core'
import { MASKED_VALUE } from '../../variables/variables.schemas.ts'
import { defineChannelType } from './channel-type.ts'
import { sealedKey } from './config-rules.ts'
import { incidentKey, isRecovery, summaryLines } from './messages.ts'
import { httpAttempt, postJson, receiverReason } from './send-http.ts'

interface Stored {
  account: string | null
  serviceName: string | null
  sealedServiceKey: string
}

interface Opened {
  account: string | null
  serviceName: string | null
  serviceKey: string
}

const EVENTS_API = 'https://events.pagerduty.com'

/** Failures page; a degraded check or a certificate about to expire warns. */
function severityOf(variables: TemplateVariables): 'critical' | 'warning' {
  return textOf(variables.ALERT_TYPE) === 'ALERT_FAILURE' ? 'critical' : 'warning'
}

/** An Events API v2 event: a trigger, or the resolve of the check's open incident. */
export function pagerDutyEvent(serviceKey: string, variables: TemplateVariables) {
  const dedupKey = incidentKey(variables)
  if (isRecovery(variables)) return { routing_key: serviceKey, event_action: 'resolve', dedup_key: dedupKey }
  const v = (name: string) => textOf(variables[name])
  const link = v('RESULT_LINK')
  return {
    routing_key: serviceKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: v('ALERT_TITLE').slice(0, 1024),
      source: v('RUN_LOCATION') || 'svc',
      severity: severityOf(variables),
      ...(v('STARTED_AT') ? { timestamp: v('STARTED_AT') } : {}),
      component: v('CHECK_NAME'),
      ...(v('GROUP_NAME') ? { group: v('GROUP_NAME') } : {}),
      class: v('CHECK_TYPE'),
      custom_details: {
        summary: summaryLines(variables),
        checkId: v('CHECK_ID'),
        alertType: v('ALERT_TYPE'),
        checkResultId: v('CHECK_RESULT_ID'),
        tags: Array.isArray(variables.TAGS) ? variables.TAGS : [],
      },
    },
    client: 'svc',
    ...(link ? { client_url: link, links: [{ href: link, text: 'View the result' }] } : {}),
  }
}

/** `PAGERDUTY`: Events API v2 (SVC_PAGERDUTY_URL overrides its base URL). */
export const pagerDuty = defineChannelType<Stored, Opened>({
  schema: PagerDutyConfig,
  prepare: (ctx, config, previous) => ({
    config: {
      account: (config.account as string | null | undefined) ?? null,
      serviceName: (config.serviceName as string | null | undefined) ?? null,
      sealedServiceKey: sealedKey(
        ctx,
        'body.config.serviceKey',
        config.serviceKey as string,
        previous?.sealedServiceKey,
      ),
    },
  }),
  publicView: (config) => ({
    account: config.account,
    serviceName: config.serviceName,
    serviceKey: MASKED_VALUE,
  }),
  open: (ctx, config) => ({
    account: config.account,
    serviceName: config.serviceName,
    serviceKey: ctx.secretBox.decrypt(config.sealedServiceKey),
  }),
  secrets: (_ctx, config) => [config.serviceKey],
  send(ctx, config, { event }) {
    const base = (ctx.alerting?.pagerDutyUrl ?? EVENTS_API).replace(/\/+$/, '')
    return httpAttempt(ctx, postJson(`${base}/v2/enqueue`, pagerDutyEvent(config.serviceKey, event)), {
      reason: receiverReason,
    })
  },
})
