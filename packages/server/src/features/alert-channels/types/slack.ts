import { SlackConfig, type TemplateVariables } from '@svc/core'
import type { ServiceContext } from '../../../context.ts'
import { defineChannelType, plainConfig } from './channel-type.ts'
import { invalid } from './config-rules.ts'
import { slackMessageText } from './messages.ts'
import { httpAttempt, postJson } from './send-http.ts'

interface Slack {
  url: string
  channel?: string | null
}

export function slackMessage(variables: TemplateVariables, channel?: string | null) {
  return { text: slackMessageText(variables), username: 'svc', ...(channel ? { channel } : {}) }
}

/** `SLACK`: an incoming webhook. */
export const slack = defineChannelType<Slack, Slack>({
  ...plainConfig<Slack>(),
  schema: SlackConfig,
  prepare(_ctx: ServiceContext, config) {
    if (!URL.canParse(config.url as string)) throw invalid('body.config.url', 'must be an http(s) URL')
    return { config: config as unknown as Slack }
  },
  send: (ctx, config, { event }) =>
    httpAttempt(ctx, postJson(config.url, slackMessage(event, config.channel))),
})
