import { bodyContextOf, encodedHeaderValue, SmsConfig, textOf } from '@svc/core'
import { defineChannelType, plainConfig } from './channel-type.ts'
import { compactJson, failure, httpAttempt, parsedUrl, rendered, USER_AGENT } from './send-http.ts'

interface Sms {
  number: string
  name: string
}

/** `SMS`: through the HTTP provider of SVC_SMS_* (its URL, headers and body are templates). */
export const sms = defineChannelType<Sms, Sms>({
  ...plainConfig<Sms>(),
  schema: SmsConfig,
  async send(ctx, config, { variables, options }) {
    const provider = ctx.alerting?.sms
    if (!provider) return { ...failure('SMS is not configured: set SVC_SMS_URL'), permanent: true }
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
    const context = bodyContextOf(headers['content-type'])
    let body = rendered(provider.body, all, context, options)
    if (context === 'json') body = compactJson(body)
    return httpAttempt(ctx, {
      url: parsedUrl(rendered(provider.url, all, 'url', options)).toString(),
      method: provider.method,
      headers,
      body: provider.method === 'GET' ? undefined : body,
    })
  },
})
