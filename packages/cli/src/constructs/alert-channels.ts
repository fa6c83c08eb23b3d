import { ALERT_CHANNEL_CONFIGS, AlertChannelBody, type AlertChannelType } from '@svc/core'
import type { Static } from 'typebox'
import { type CheckDefaults, defined, type Issue, PlainConstruct } from './construct.ts'

/**
 * When a channel notifies, shared by every channel type. What it alerts for is said on checks and groups
 * (their `alertChannels`), by logical id, not by the API's `subscriptions` of server ids.
 */
export type AlertChannelProps = Omit<AlertChannelBody, 'type' | 'config' | 'subscriptions'>

type ConfigOf<T extends AlertChannelType> = Static<(typeof ALERT_CHANNEL_CONFIGS)[T]>

const SETTINGS = Object.keys(AlertChannelBody.properties).filter(
  (key) => !['type', 'config', 'subscriptions'].includes(key),
)

export abstract class AlertChannel extends PlainConstruct<Record<string, unknown>> {
  readonly channelType: AlertChannelType
  /** The type's own settings (`config` of the API's body). */
  readonly config: Record<string, unknown>
  readonly settings: Record<string, unknown>

  constructor(channelType: AlertChannelType, logicalId: string, props: Record<string, unknown>) {
    super('alert-channel', logicalId, props, AlertChannelBody)
    this.channelType = channelType
    const entries = Object.entries(this.props)
    this.settings = Object.fromEntries(entries.filter(([key]) => SETTINGS.includes(key)))
    this.config = Object.fromEntries(entries.filter(([key]) => !SETTINGS.includes(key)))
  }

  /** The API's body: the settings beside the type, and the type's own settings in `config`. */
  protected override body(): Record<string, unknown> {
    return defined({ ...this.settings, type: this.channelType, config: defined(this.config) })
  }

  /** The body's issues, then the config's against the type's own schema. */
  override validate(defaults: CheckDefaults): Issue[] {
    const configIssues = this.schemaIssues(ALERT_CHANNEL_CONFIGS[this.channelType], defined(this.config))
    return [...super.validate(defaults), ...configIssues]
  }
}

export class WebhookAlertChannel extends AlertChannel {
  constructor(logicalId: string, props: ConfigOf<'WEBHOOK'> & AlertChannelProps) {
    super('WEBHOOK', logicalId, props)
  }
}

export class EmailAlertChannel extends AlertChannel {
  constructor(logicalId: string, props: ConfigOf<'EMAIL'> & AlertChannelProps) {
    super('EMAIL', logicalId, props)
  }
}

export class SlackAlertChannel extends AlertChannel {
  constructor(logicalId: string, props: ConfigOf<'SLACK'> & AlertChannelProps) {
    super('SLACK', logicalId, props)
  }
}

export class SmsAlertChannel extends AlertChannel {
  constructor(logicalId: string, props: ConfigOf<'SMS'> & AlertChannelProps) {
    super('SMS', logicalId, props)
  }
}

/** Posts with the Slack app the server is set up with (SVC_SLACK_BOT_TOKEN). */
export class SlackAppAlertChannel extends AlertChannel {
  constructor(logicalId: string, props: ConfigOf<'SLACK_APP'> & AlertChannelProps) {
    super('SLACK_APP', logicalId, props)
  }
}

/** PagerDuty's Events API v2: `serviceKey` is the integration (routing) key. */
export class PagerdutyAlertChannel extends AlertChannel {
  constructor(logicalId: string, props: ConfigOf<'PAGERDUTY'> & AlertChannelProps) {
    super('PAGERDUTY', logicalId, props)
  }
}

export class OpsgenieAlertChannel extends AlertChannel {
  constructor(logicalId: string, props: ConfigOf<'OPSGENIE'> & AlertChannelProps) {
    super('OPSGENIE', logicalId, props)
  }
}
