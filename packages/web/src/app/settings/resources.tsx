import { api } from '../api.ts'
import { formatTime } from '../format.ts'
import { LocationsFieldset } from '../pages/locations-fieldset.tsx'
import type { Draft } from '../ui/form-fields.tsx'
import { StatusBadge } from '../ui/ui.tsx'
import { isoToWallTime, wallTimeToIso } from '../zoned-time.ts'
import type { ResourceDescriptor } from './descriptor.ts'
import {
  GROUP_API_DEFAULT_FIELDS,
  groupApiDefaultsBody,
  groupApiDefaultsDraft,
} from './group-api-defaults.tsx'
import { GROUP_SCRIPT_FIELDS, groupScriptsBody, groupScriptsDraft } from './group-scripts.tsx'

// biome-ignore lint/suspicious/noExplicitAny: the descriptors read API items of many shapes
type Item = Record<string, any>

const FREQUENCIES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]
const CHANNEL_TYPES = ['WEBHOOK', 'EMAIL', 'SLACK', 'SMS', 'SLACK_APP', 'PAGERDUTY', 'OPSGENIE']
const WEBHOOK_PRESETS = [
  ['', 'Plain webhook'],
  ['WEBHOOK_MSTEAMS', 'Microsoft Teams'],
  ['WEBHOOK_TELEGRAM', 'Telegram'],
  ['WEBHOOK_INCIDENTIO', 'incident.io'],
  ['WEBHOOK_DISCORD', 'Discord'],
  ['WEBHOOK_GOOGLE_CHAT', 'Google Chat'],
] as [string, string][]

const str = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value))
const clean = (body: Draft) =>
  Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined && value !== ''))

export const groups: ResourceDescriptor<Item> = {
  key: 'groups',
  title: 'Check groups',
  singular: 'group',
  description: 'Checks in a group share locations, frequency, tags and alert settings.',
  listPath: '/v1/check-groups?limit=100',
  itemPath: (id) => `/v1/check-groups/${id}`,
  createPath: '/v1/check-groups',
  updateMethod: 'put',
  idOf: (item) => String(item.id),
  nameOf: (item) => item.name,
  columns: [
    { label: 'Name', render: (item) => <strong>{item.name}</strong> },
    { label: 'State', render: (item) => <StatusBadge status={item.activated ? 'passing' : 'paused'} /> },
    { label: 'Tags', render: (item) => str(item.tags?.join(', ')) },
    { label: 'Locations', render: (item) => str(item.locations?.join(', ')) },
  ],
  fields: [
    { path: 'name', label: 'Name', kind: 'text', required: true },
    { path: 'frequency', label: 'Frequency (minutes)', kind: 'select', options: FREQUENCIES },
    { path: 'tags', label: 'Tags', kind: 'list' },
    {
      path: 'locations',
      label: 'Locations',
      kind: 'custom',
      render: (bind) => (
        <LocationsFieldset
          draft={bind.draft}
          onChange={bind.onChange}
          hint="None chosen: each check's own, or the deployment's default locations."
        />
      ),
    },
    { path: 'activated', label: 'Activated', kind: 'checkbox' },
    { path: 'muted', label: 'Muted', kind: 'checkbox' },
    ...GROUP_API_DEFAULT_FIELDS,
    ...GROUP_SCRIPT_FIELDS,
  ],
  defaults: {
    name: '',
    activated: true,
    muted: false,
    tags: [],
    locations: [],
    ...groupApiDefaultsDraft({}),
  },
  toDraft: (item) => ({
    name: item.name,
    frequency: item.frequency,
    tags: item.tags,
    locations: item.locations,
    activated: item.activated,
    muted: item.muted,
    ...groupApiDefaultsDraft(item),
    ...groupScriptsDraft(item),
  }),
  toBody: (draft) => ({
    ...clean({ ...draft, frequency: draft.frequency ? Number(draft.frequency) : undefined }),
    ...groupApiDefaultsBody(draft),
    ...groupScriptsBody(draft),
  }),
}

export const alertChannels: ResourceDescriptor<Item> = {
  key: 'alert-channels',
  title: 'Alert channels',
  singular: 'alert channel',
  description:
    'Where alerts go: webhooks (Teams, Telegram, incident.io, Discord, Google Chat), email, Slack, SMS, PagerDuty and Opsgenie.',
  listPath: '/v1/alert-channels?limit=100',
  itemPath: (id) => `/v1/alert-channels/${id}`,
  createPath: '/v1/alert-channels',
  updateMethod: 'put',
  idOf: (item) => String(item.id),
  nameOf: (item) =>
    item.config?.name ?? item.config?.address ?? item.config?.url ?? `${item.type} ${item.id}`,
  columns: [
    { label: 'Type', render: (item) => <span className="chip">{item.type}</span> },
    {
      label: 'Target',
      render: (item) => (
        <code>
          {str(item.config?.name ?? item.config?.address ?? item.config?.url ?? item.config?.number)}
        </code>
      ),
    },
    {
      label: 'Sends',
      render: (item) =>
        ['sendFailure', 'sendDegraded', 'sendRecovery', 'sslExpiry']
          .filter((key) => item[key])
          .map((key) => key.replace('send', '').toLowerCase())
          .join(', '),
    },
  ],
  fields: [
    { path: 'type', label: 'Type', kind: 'select', options: CHANNEL_TYPES, show: (_, creating) => creating },
    {
      path: 'config.name',
      label: 'Name',
      kind: 'text',
      show: (draft) => draft.type === 'WEBHOOK' || draft.type === 'SMS' || draft.type === 'OPSGENIE',
    },
    {
      path: 'config.webhookType',
      label: 'Receiver',
      kind: 'select',
      options: WEBHOOK_PRESETS,
      hint: 'A preset sends the body its receiver expects when the template is empty.',
      show: (draft) => draft.type === 'WEBHOOK',
    },
    {
      path: 'config.url',
      label: 'URL',
      kind: 'text',
      show: (draft) => draft.type === 'WEBHOOK' || draft.type === 'SLACK',
    },
    {
      path: 'config.method',
      label: 'Method',
      kind: 'select',
      options: ['POST', 'PUT', 'PATCH', 'GET', 'HEAD', 'DELETE'],
      show: (draft) => draft.type === 'WEBHOOK',
    },
    {
      path: 'config.template',
      label: 'Body template',
      kind: 'textarea',
      hint: 'Handlebars: {{ALERT_TITLE}}, {{CHECK_NAME}}, …',
      show: (draft) => draft.type === 'WEBHOOK',
    },
    {
      path: 'config.webhookSecret',
      label: 'Signing secret',
      kind: 'password',
      hint: 'Write-only.',
      show: (draft) => draft.type === 'WEBHOOK',
    },
    { path: 'config.address', label: 'Email address', kind: 'text', show: (draft) => draft.type === 'EMAIL' },
    { path: 'config.channel', label: 'Slack channel', kind: 'text', show: (draft) => draft.type === 'SLACK' },
    { path: 'config.number', label: 'Phone number', kind: 'text', show: (draft) => draft.type === 'SMS' },
    {
      path: 'config.slackChannels',
      label: 'Slack channels',
      kind: 'list',
      hint: 'Separated by commas; posted to with the server’s Slack app.',
      show: (draft) => draft.type === 'SLACK_APP',
    },
    {
      path: 'config.serviceName',
      label: 'Service',
      kind: 'text',
      show: (draft) => draft.type === 'PAGERDUTY',
    },
    {
      path: 'config.serviceKey',
      label: 'Integration key',
      kind: 'password',
      hint: 'Events API v2 routing key. Write-only.',
      show: (draft) => draft.type === 'PAGERDUTY',
    },
    {
      path: 'config.apiKey',
      label: 'API key',
      kind: 'password',
      hint: 'Write-only.',
      show: (draft) => draft.type === 'OPSGENIE',
    },
    {
      path: 'config.region',
      label: 'Region',
      kind: 'select',
      options: ['US', 'EU'],
      show: (draft) => draft.type === 'OPSGENIE',
    },
    {
      path: 'config.priority',
      label: 'Priority',
      kind: 'select',
      options: ['P1', 'P2', 'P3', 'P4', 'P5'],
      show: (draft) => draft.type === 'OPSGENIE',
    },
    { path: 'sendFailure', label: 'Send on failure', kind: 'checkbox' },
    { path: 'sendDegraded', label: 'Send on degraded', kind: 'checkbox' },
    { path: 'sendRecovery', label: 'Send on recovery', kind: 'checkbox' },
    { path: 'sslExpiry', label: 'Send on TLS expiry', kind: 'checkbox' },
    { path: 'sslExpiryThreshold', label: 'TLS expiry threshold (days)', kind: 'number' },
  ],
  defaults: {
    type: 'WEBHOOK',
    config: { method: 'POST' },
    sendFailure: true,
    sendRecovery: true,
    sendDegraded: false,
    sslExpiry: false,
    sslExpiryThreshold: 30,
  },
  toDraft: (item) => ({
    type: item.type,
    config: { ...item.config },
    sendFailure: item.sendFailure,
    sendDegraded: item.sendDegraded,
    sendRecovery: item.sendRecovery,
    sslExpiry: item.sslExpiry,
    sslExpiryThreshold: item.sslExpiryThreshold,
  }),
  toBody: (draft) => ({ ...draft, config: clean((draft.config ?? {}) as Draft) }),
  actions: [
    {
      label: 'Send test',
      run: async (item) => {
        await api.post(`/v1/alert-channels/${item.id}/test`)
        return 'Test sent: see the alert log for its delivery.'
      },
    },
  ],
}

export const alertLog: ResourceDescriptor<Item> = {
  key: 'alert-log',
  title: 'Alert log',
  singular: 'delivery',
  description: 'Every notification sent or being retried, with its last response.',
  listPath: '/v1/alert-notifications?limit=100',
  itemPath: (id) => `/v1/alert-notifications/${id}`,
  canDelete: false,
  idOf: (item) => item.id,
  nameOf: (item) => item.title,
  columns: [
    { label: 'When', render: (item) => formatTime(item.created_at, true) },
    {
      label: 'Alert',
      render: (item) => (
        <>
          {item.title}
          {item.test && <span className="chip">test</span>}
        </>
      ),
    },
    {
      label: 'Channel',
      render: (item) => `${item.channelType}${item.alertChannelId ? ` #${item.alertChannelId}` : ''}`,
    },
    {
      label: 'Status',
      render: (item) => (
        <span
          className={item.status === 'SUCCESS' ? 'pass-text' : item.status === 'FAILURE' ? 'fail-text' : ''}
          data-status={item.deliveryStatus}
        >
          {String(item.deliveryStatus).toLowerCase()}
        </span>
      ),
    },
    { label: 'Attempts', render: (item) => item.attempts, className: 'num' },
    {
      label: 'Last response',
      render: (item) => str(item.lastResponse?.statusCode ?? item.lastResponse?.error),
    },
  ],
  fields: [],
  defaults: {},
}

export const maintenance: ResourceDescriptor<Item> = {
  key: 'maintenance',
  title: 'Maintenance windows',
  singular: 'maintenance window',
  description: 'Checks with a matching tag send no alerts during a window.',
  listPath: '/v1/maintenance-windows?limit=100',
  itemPath: (id) => `/v1/maintenance-windows/${id}`,
  createPath: '/v1/maintenance-windows',
  updateMethod: 'put',
  idOf: (item) => String(item.id),
  nameOf: (item) => item.name,
  columns: [
    { label: 'Name', render: (item) => <strong>{item.name}</strong> },
    // In the window's own zone, which the next column names.
    { label: 'Starts', render: (item) => formatTime(item.startsAt, false, item.timezone ?? 'UTC') },
    { label: 'Ends', render: (item) => formatTime(item.endsAt, false, item.timezone ?? 'UTC') },
    {
      label: 'Repeats',
      render: (item) =>
        item.repeatUnit ? `every ${item.repeatInterval} ${item.repeatUnit.toLowerCase()}` : 'no',
    },
    { label: 'Time zone', render: (item) => item.timezone ?? 'UTC' },
    { label: 'Tags', render: (item) => str(item.tags?.join(', ')) },
  ],
  fields: [
    { path: 'name', label: 'Name', kind: 'text', required: true },
    { path: 'tags', label: 'Tags', kind: 'list' },
    { path: 'startsAt', label: 'Starts', kind: 'datetime' },
    { path: 'endsAt', label: 'Ends', kind: 'datetime' },
    { path: 'repeatUnit', label: 'Repeat', kind: 'select', options: [['', 'Never'], 'DAY', 'WEEK', 'MONTH'] },
    {
      path: 'repeatInterval',
      label: 'Repeat every',
      kind: 'number',
      show: (draft) => Boolean(draft.repeatUnit),
    },
    {
      path: 'repeatEndsAt',
      label: 'Repeat until',
      kind: 'datetime',
      show: (draft) => Boolean(draft.repeatUnit),
    },
    {
      path: 'timezone',
      label: 'Time zone',
      kind: 'timezone',
      hint: 'IANA name, e.g. Europe/Berlin. The times above are its wall clock, and the window repeats by it, summer time included. Empty: UTC.',
    },
  ],
  defaults: { name: '', tags: [] },
  toDraft: (item) => ({
    name: item.name,
    tags: item.tags,
    startsAt: isoToWallTime(item.startsAt, item.timezone ?? 'UTC'),
    endsAt: isoToWallTime(item.endsAt, item.timezone ?? 'UTC'),
    repeatUnit: item.repeatUnit,
    repeatInterval: item.repeatInterval,
    repeatEndsAt: isoToWallTime(item.repeatEndsAt, item.timezone ?? 'UTC'),
    timezone: item.timezone ?? '',
  }),
  // Times are typed as the window's zone's wall clock (UTC without one), not the browser's.
  toBody: (draft) => {
    const zone = (draft.timezone as string) || 'UTC'
    return clean({
      ...draft,
      startsAt: wallTimeToIso(draft.startsAt, zone),
      endsAt: wallTimeToIso(draft.endsAt, zone),
      repeatEndsAt: wallTimeToIso(draft.repeatEndsAt, zone),
      repeatUnit: draft.repeatUnit || undefined,
      repeatInterval: draft.repeatUnit ? draft.repeatInterval : undefined,
      // An edit keeps the window's zone: PUT replaces the whole window.
      timezone: draft.timezone || undefined,
    })
  },
}

export const variables: ResourceDescriptor<Item> = {
  key: 'variables',
  title: 'Environment variables',
  singular: 'variable',
  description:
    'Values that checks read at run time. Locked values are masked; secret values are never readable again.',
  listPath: '/v1/variables?limit=100',
  itemPath: (id) => `/v1/variables/${encodeURIComponent(id)}`,
  createPath: '/v1/variables',
  updateMethod: 'put',
  idOf: (item) => item.key,
  nameOf: (item) => item.key,
  columns: [
    { label: 'Key', render: (item) => <code>{item.key}</code> },
    { label: 'Value', render: (item) => <code>{item.value}</code> },
    { label: 'Kind', render: (item) => (item.secret ? 'secret' : item.locked ? 'locked' : 'plain') },
    { label: 'Description', render: (item) => str(item.description) },
  ],
  fields: [
    { path: 'key', label: 'Key', kind: 'text', required: true, show: (_, creating) => creating },
    { path: 'value', label: 'Value', kind: 'text', hint: 'Leave a masked value as it is to keep it.' },
    { path: 'description', label: 'Description', kind: 'text' },
    { path: 'locked', label: 'Locked (masked when read)', kind: 'checkbox' },
    { path: 'secret', label: 'Secret (never readable again)', kind: 'checkbox' },
  ],
  defaults: { key: '', value: '', locked: false, secret: false },
  toDraft: (item) => ({
    value: item.value,
    description: item.description ?? '',
    locked: item.locked,
    secret: item.secret,
  }),
  toBody: (draft, creating) => {
    const body = clean(draft)
    if (!creating && body.value === '***masked***') delete body.value
    return body
  },
}
