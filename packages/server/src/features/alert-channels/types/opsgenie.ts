import { OpsgenieConfig, type TemplateVariables, textOf } from '@svc/core'
import { MASKED_VALUE } from '../../variables/variables.schemas.ts'
import { defineChannelType } from './channel-type.ts'
import { sealedKey } from './config-rules.ts'
import { incidentKey, isRecovery, summaryLines } from './messages.ts'
import { httpAttempt, postJson, receiverReason } from './send-http.ts'

type Region = 'US' | 'EU'

interface Stored {
  name: string
  sealedApiKey: string
  region: Region
  priority: string
}

interface Opened {
  name: string
  apiKey: string
  region: Region
  priority: string
}

const REGION_URLS: Record<Region, string> = {
  US: 'https://api.opsgenie.com',
  EU: 'https://api.eu.opsgenie.com',
}

/** Opsgenie's limits: message 130 characters, description 15,000. */
export function opsgenieAlert(priority: string, variables: TemplateVariables) {
  const v = (name: string) => textOf(variables[name])
  const link = v('RESULT_LINK')
  return {
    message: v('ALERT_TITLE').slice(0, 130),
    alias: incidentKey(variables),
    description: [...summaryLines(variables), ...(link ? [`Result: ${link}`] : [])]
      .join('\n')
      .slice(0, 15_000),
    tags: Array.isArray(variables.TAGS) ? variables.TAGS.map(String) : [],
    details: {
      checkId: v('CHECK_ID'),
      checkType: v('CHECK_TYPE'),
      alertType: v('ALERT_TYPE'),
      location: v('RUN_LOCATION'),
      resultLink: link,
    },
    entity: v('CHECK_NAME'),
    source: 'svc',
    priority,
  }
}

/** `OPSGENIE`: the Alerts API; a recovery closes the check's alert by its alias. */
export const opsgenie = defineChannelType<Stored, Opened>({
  schema: OpsgenieConfig,
  prepare: (ctx, config, previous) => ({
    config: {
      name: config.name as string,
      sealedApiKey: sealedKey(ctx, 'body.config.apiKey', config.apiKey as string, previous?.sealedApiKey),
      region: config.region as Region,
      priority: config.priority as string,
    },
  }),
  publicView: (config) => ({
    name: config.name,
    apiKey: MASKED_VALUE,
    region: config.region,
    priority: config.priority,
  }),
  open: (ctx, config) => ({
    name: config.name,
    apiKey: ctx.secretBox.decrypt(config.sealedApiKey),
    region: config.region,
    priority: config.priority,
  }),
  secrets: (_ctx, config) => [config.apiKey],
  send(ctx, config, { event }) {
    // SVC_OPSGENIE_URL stands for both regions: a proxy in front of Opsgenie, or a test's receiver.
    const base = (ctx.alerting?.opsgenieUrl ?? REGION_URLS[config.region]).replace(/\/+$/, '')
    const auth = { authorization: `GenieKey ${config.apiKey}` }
    const request = isRecovery(event)
      ? postJson(
          `${base}/v2/alerts/${encodeURIComponent(incidentKey(event))}/close?identifierType=alias`,
          { source: 'svc', note: textOf(event.ALERT_TITLE) },
          auth,
        )
      : postJson(`${base}/v2/alerts`, opsgenieAlert(config.priority, event), auth)
    return httpAttempt(ctx, request, { reason: receiverReason })
  },
})
