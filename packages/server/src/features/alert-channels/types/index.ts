import type { AlertChannelType } from '@svc/core'
import type { ChannelTypeDefinition } from './channel-type.ts'
import { email } from './email.ts'
import { opsgenie } from './opsgenie.ts'
import { pagerDuty } from './pagerduty.ts'
import { slack } from './slack.ts'
import { slackApp } from './slack-app.ts'
import { sms } from './sms.ts'
import { webhook } from './webhook.ts'

/** Every alert channel type, one module each: adding a type is its module, its core schema and a row here. */
export const CHANNEL_TYPES = {
  WEBHOOK: webhook,
  EMAIL: email,
  SLACK: slack,
  SMS: sms,
  SLACK_APP: slackApp,
  PAGERDUTY: pagerDuty,
  OPSGENIE: opsgenie,
} as const satisfies Record<AlertChannelType, ChannelTypeDefinition>
