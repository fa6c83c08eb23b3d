import { type Static, Type } from 'typebox'
import { HEADER_NAME_PATTERN } from './request-headers.ts'
import { Name, Nullable, SerialId, StrictObject, StringEnum } from './schema-helpers.ts'

export const ALERT_TYPES = [
  'ALERT_FAILURE',
  'ALERT_RECOVERY',
  'ALERT_DEGRADED',
  'ALERT_DEGRADED_RECOVERY',
  'ALERT_SSL',
] as const
export type AlertType = (typeof ALERT_TYPES)[number]

/** The hosted product's types but `CALL` (phone calls need a telephony contract svc does not have). */
export const ALERT_CHANNEL_TYPES = [
  'WEBHOOK',
  'EMAIL',
  'SLACK',
  'SMS',
  'SLACK_APP',
  'PAGERDUTY',
  'OPSGENIE',
] as const
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number]

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const

/**
 * `webhookType` values whose receiver svc knows: its default body (an empty template) and Content-Type.
 * The first three are the hosted product's; Discord and Google Chat are svc's own, as presets too, so the
 * channel `type` list stays the one the hosted product's clients know.
 */
export const WEBHOOK_PRESETS = [
  'WEBHOOK_MSTEAMS',
  'WEBHOOK_TELEGRAM',
  'WEBHOOK_INCIDENTIO',
  'WEBHOOK_DISCORD',
  'WEBHOOK_GOOGLE_CHAT',
] as const
export type WebhookPreset = (typeof WEBHOOK_PRESETS)[number]

/** The event variables of the spec's table, usable in webhook URLs and bodies. */
export const ALERT_EVENT_VARIABLES = [
  'CHECK_NAME',
  'CHECK_ID',
  'CHECK_TYPE',
  'ALERT_TITLE',
  'ALERT_TYPE',
  'CHECK_RESULT_ID',
  'CHECK_ERROR_MESSAGE',
  'RESPONSE_TIME',
  'API_CHECK_RESPONSE_STATUS_CODE',
  'API_CHECK_RESPONSE_STATUS_TEXT',
  'RUN_LOCATION',
  'RESULT_LINK',
  'SSL_DAYS_REMAINING',
  'SSL_CHECK_DOMAIN',
  'STARTED_AT',
  'TAGS',
  'GROUP_NAME',
] as const
const KeyValue = StrictObject({
  key: Type.String({ minLength: 1, maxLength: 1024 }),
  value: Type.String({ maxLength: 10_000 }),
  locked: Type.Optional(Type.Boolean({ default: false })),
})

const Header = StrictObject({
  key: Type.String({ minLength: 1, maxLength: 1024, pattern: HEADER_NAME_PATTERN }),
  value: Type.String({ maxLength: 10_000 }),
  locked: Type.Optional(Type.Boolean({ default: false })),
})

export const WebhookConfig = StrictObject({
  name: Name({ maxLength: 255 }),
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'May hold {{VARIABLES}}: they are URL-encoded, but for one that opens the URL (a base URL from a variable, ' +
      'inserted as it is); {{{RAW}}} is never encoded.',
  }),
  method: Type.Optional(StringEnum(WEBHOOK_METHODS, { default: 'POST' })),
  headers: Type.Optional(Type.Array(Header, { maxItems: 50, default: [] })),
  queryParameters: Type.Optional(Type.Array(KeyValue, { maxItems: 50, default: [] })),
  template: Type.Optional(
    Type.String({
      maxLength: 65_536,
      default: '',
      description:
        'The body template (empty: a JSON body with every event variable). {{VARIABLES}} are escaped for the ' +
        'Content-Type header: JSON (the default), form, HTML or XML; as is for other types.',
    }),
  ),
  webhookSecret: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 1024,
        description: 'Write-only: signs each body (x-svc-signature). Omitted on update: kept; null: removed.',
      }),
    ),
  ),
  webhookType: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 64,
        description: `A preset (${WEBHOOK_PRESETS.join(', ')}) gives the receiver's default body and Content-Type.`,
      }),
    ),
  ),
})
export const EmailConfig = StrictObject({ address: Type.String({ format: 'email', maxLength: 320 }) })
export const SlackConfig = StrictObject({
  url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' }),
  channel: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
})
export const SmsConfig = StrictObject({
  number: Type.String({ pattern: '^\\+?[0-9][0-9 ()-]{2,30}$' }),
  name: Name({ maxLength: 255 }),
})

const WRITE_ONLY = 'Read back masked; the masked value (or an omitted one on update) keeps the stored key.'
export const SlackAppConfig = StrictObject({
  slackChannels: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
    minItems: 1,
    maxItems: 20,
    description: 'Channel names (#alerts) or ids, posted to with the bot token of SVC_SLACK_BOT_TOKEN.',
  }),
})
export const PagerDutyConfig = StrictObject({
  account: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  serviceName: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  serviceKey: Type.String({
    minLength: 1,
    maxLength: 255,
    description: `The Events API v2 integration key (routing_key). ${WRITE_ONLY}`,
  }),
})
export const OPSGENIE_REGIONS = ['US', 'EU'] as const
export const OPSGENIE_PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'] as const
export const OpsgenieConfig = StrictObject({
  name: Name({ maxLength: 255 }),
  apiKey: Type.String({ minLength: 1, maxLength: 255, description: `An API integration key. ${WRITE_ONLY}` }),
  region: StringEnum(OPSGENIE_REGIONS, { description: 'US: api.opsgenie.com; EU: api.eu.opsgenie.com.' }),
  priority: StringEnum(OPSGENIE_PRIORITIES),
})

export const ALERT_CHANNEL_CONFIGS = {
  WEBHOOK: WebhookConfig,
  EMAIL: EmailConfig,
  SLACK: SlackConfig,
  SMS: SmsConfig,
  SLACK_APP: SlackAppConfig,
  PAGERDUTY: PagerDutyConfig,
  OPSGENIE: OpsgenieConfig,
} as const satisfies Record<AlertChannelType, object>

export const AlertChannelBody = StrictObject({
  type: StringEnum(ALERT_CHANNEL_TYPES),
  config: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'Per type: WEBHOOK {name, url, method, headers, queryParameters, template, webhookSecret, webhookType}; ' +
        'EMAIL {address}; SLACK {url, channel}; SMS {number, name}; SLACK_APP {slackChannels}; ' +
        'PAGERDUTY {account, serviceName, serviceKey}; OPSGENIE {name, apiKey, region, priority}.',
    },
  ),
  sendRecovery: Type.Optional(Type.Boolean({ default: true })),
  sendFailure: Type.Optional(Type.Boolean({ default: true })),
  sendDegraded: Type.Optional(Type.Boolean({ default: false })),
  sslExpiry: Type.Optional(Type.Boolean({ default: false })),
  sslExpiryThreshold: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'Days before expiry to alert.' }),
  ),
  autoSubscribe: Type.Optional(
    Type.Boolean({ default: false, description: 'New checks subscribe even with autoAssignAlerts=false.' }),
  ),
  subscriptions: Type.Optional(
    Type.Array(
      StrictObject(
        {
          id: Type.Optional(Type.Integer({ description: 'As a read answers it; ignored.' })),
          checkId: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
          groupId: Type.Optional(Nullable(SerialId())),
          activated: Type.Boolean(),
        },
        { description: 'Exactly one of checkId and groupId.' },
      ),
      {
        maxItems: 1000,
        description:
          "The checks and groups the channel alerts for. Given, they replace the channel's subscriptions; " +
          'left out, an update keeps them.',
      },
    ),
  ),
})
export type AlertChannelBody = Static<typeof AlertChannelBody>

/** An instant (RFC 3339 with an offset), or a date alone: midnight starting that day in the window's zone. */
export function DateOrDateTime() {
  return Type.String({ anyOf: [{ format: 'date-time' }, { format: 'date' }] })
}

export const MAINTENANCE_REPEAT_UNITS = ['DAY', 'WEEK', 'MONTH'] as const

const maintenanceWindowFields = {
  name: Name({ maxLength: 255 }),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
    minItems: 1,
    maxItems: 100,
    description: 'Checks (or their groups) carrying any of these tags are not alerted on during the window.',
  }),
  startsAt: DateOrDateTime(),
  endsAt: DateOrDateTime(),
  repeatUnit: Type.Optional(Nullable(StringEnum(MAINTENANCE_REPEAT_UNITS))),
  repeatInterval: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))),
  repeatEndsAt: Type.Optional(Nullable(DateOrDateTime())),
  timezone: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'IANA time zone (e.g. Europe/Berlin): the window repeats at the same local time in it, DST included. Null: UTC.',
      }),
    ),
  ),
}
export const MaintenanceWindowBody = StrictObject(maintenanceWindowFields)
/** The hosted update: every field optional, merged onto the window (then checked whole). */
export const MaintenanceWindowPatch = StrictObject({
  ...maintenanceWindowFields,
  name: Type.Optional(maintenanceWindowFields.name),
  tags: Type.Optional(maintenanceWindowFields.tags),
  startsAt: Type.Optional(maintenanceWindowFields.startsAt),
  endsAt: Type.Optional(maintenanceWindowFields.endsAt),
})
export type MaintenanceWindowPatch = Static<typeof MaintenanceWindowPatch>
export type MaintenanceWindowBody = Static<typeof MaintenanceWindowBody>
