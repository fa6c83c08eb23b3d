import { posix } from 'node:path'
import {
  ALERT_CHANNEL_CONFIGS,
  AlertChannelBody,
  type AlertChannelType,
  CHECK_BODIES,
  type CheckType,
  CreateVariableBody,
  DASHBOARD_SETTINGS_DEFAULTS,
  DashboardCreateBody,
  DEFAULT_THEME_COLORS,
  MaintenanceWindowBody,
  PrivateLocationBody,
  StatusPageBody,
  StatusPageServiceBody,
  scriptProjectOf,
} from '@svc/core'
import type { TSchema } from 'typebox'
import { CheckGroupBody } from '../constructs/check-group.ts'

export interface ServerCheck extends Record<string, unknown> {
  id: string
  name: string
  checkType: CheckType
  groupId: number | null
}
export interface ServerGroup extends Record<string, unknown> {
  id: number
  name: string
}
export interface ServerChannel extends Record<string, unknown> {
  id: number
  type: AlertChannelType
  config: Record<string, unknown>
  subscriptions: { checkId?: string | null; groupId?: number | null; activated: boolean }[]
}

export interface ServerLocation extends Record<string, unknown> {
  id: string
  name: string
  slugName: string
}
export interface ServerService extends Record<string, unknown> {
  id: string
  name: string
}
export interface ServerStatusPage extends Record<string, unknown> {
  id: string
  name: string
  cards: { name: string; services: { id: string }[] }[]
}

export interface ServerDashboard extends Record<string, unknown> {
  dashboardId: string
  customUrl: string | null
}
export interface ServerMaintenanceWindow extends Record<string, unknown> {
  id: number
  name: string
}
export interface ServerVariable extends Record<string, unknown> {
  key: string
  locked: boolean
  secret: boolean
}

/** What `svc import` reads from the server. */
export interface ServerResources {
  checks: ServerCheck[]
  groups: ServerGroup[]
  channels: ServerChannel[]
  locations: ServerLocation[]
  services: ServerService[]
  pages: ServerStatusPage[]
  dashboards: ServerDashboard[]
  variables: ServerVariable[]
  maintenanceWindows: ServerMaintenanceWindow[]
}

const CHECK_CLASSES: Record<CheckType, string> = {
  API: 'ApiCheck',
  URL: 'UrlMonitor',
  TCP: 'TcpMonitor',
  DNS: 'DnsMonitor',
  ICMP: 'IcmpMonitor',
  HEARTBEAT: 'HeartbeatMonitor',
  BROWSER: 'BrowserCheck',
  MULTI_STEP: 'MultiStepCheck',
  AUTOMATION: 'AutomationCheck',
  SSL: 'SslMonitor',
}
const CHANNEL_CLASSES: Record<AlertChannelType, string> = {
  WEBHOOK: 'WebhookAlertChannel',
  EMAIL: 'EmailAlertChannel',
  SLACK: 'SlackAlertChannel',
  SMS: 'SmsAlertChannel',
  SLACK_APP: 'SlackAppAlertChannel',
  PAGERDUTY: 'PagerdutyAlertChannel',
  OPSGENIE: 'OpsgenieAlertChannel',
}
const SCRIPT_TYPES: CheckType[] = ['BROWSER', 'MULTI_STEP']

/** What `svc import` writes: the construct code, and the files of imported suites beside it. */
export interface ImportedCode {
  code: string
  /** Paths relative to the code's folder (a suite's files under a folder named by its check). */
  files: { path: string; content: string }[]
  skipped: string[]
}

/** Construct code for resources that exist on the server, and what it couldn't express. */
export function importCode(server: ServerResources): ImportedCode {
  const { checks, groups, channels } = server
  const ids = new LogicalIds()
  const skipped: string[] = []
  const files: ImportedCode['files'] = []
  const used = new Set<string>()
  const { lines, locationVars } = locationLines(server, ids, used)
  const pageCode = statusPageLines(server, ids, used)
  lines.push(...pageCode.lines, ...accountSettingLines(server, ids, used), ...windowLines(server, ids, used))
  const channelCode = channelLines(channels, ids, used)
  lines.push(...channelCode.lines)
  const channelVars = channelCode.channelVars
  const channelsOf = (match: (s: ServerChannel['subscriptions'][number]) => boolean) =>
    channels
      .filter((c) => c.subscriptions.some((s) => s.activated && match(s)))
      .map((c) => channelVars.get(c.id))
  const groupVars = new Map<number, string>()
  for (const group of groups) {
    const name = ids.next('group', group.name)
    groupVars.set(group.id, name.variable)
    used.add('CheckGroup')
    const links = refs({
      alertChannels: channelsOf((s) => s.groupId === group.id),
      privateLocations: locationRefs(group.privateLocations, locationVars),
    })
    const props = withoutDefaults(pick(group, CheckGroupBody), CheckGroupBody, ['privateLocations'])
    lines.push(`export const ${name.variable} = new CheckGroup(${q(name.logicalId)}, ${js(props, links)})`)
  }
  for (const check of checks) {
    const className = CHECK_CLASSES[check.checkType]
    const logicalId = ids.next('check', check.name).logicalId
    const construct = checkProps(check, logicalId)
    if (typeof construct === 'string') {
      skipped.push(`${check.checkType} check "${check.name}" (${check.id}): ${construct}`)
      continue
    }
    used.add(className)
    files.push(...construct.files)
    const links = refs({
      group: check.groupId === null ? undefined : groupVars.get(check.groupId),
      alertChannels: channelsOf((s) => s.checkId === check.id),
      privateLocations: locationRefs(check.privateLocations, locationVars),
      triggerIncident: triggerRef(check.triggerIncident, pageCode.serviceVars),
    })
    lines.push(`new ${className}(${q(logicalId)}, ${js(construct.props, links)})`)
  }
  const header = `import { ${[...used].sort().join(', ')} } from '@svc/cli'\n\n// Imported by \`svc import\` on ${new Date().toISOString().slice(0, 10)}.\n`
  return { code: `${header}\n${lines.join('\n\n')}\n`, files, skipped }
}

/** The private locations' constructs, and the variable each location's slug is in. */
function locationLines(server: ServerResources, ids: LogicalIds, used: Set<string>) {
  const lines: string[] = []
  const locationVars = new Map<string, string>()
  for (const location of server.locations) {
    const name = ids.next('location', location.slugName)
    locationVars.set(location.slugName, name.variable)
    used.add('PrivateLocation')
    const props = withoutDefaults(pick(location, PrivateLocationBody), PrivateLocationBody, [])
    lines.push(`export const ${name.variable} = new PrivateLocation(${q(name.logicalId)}, ${js(props)})`)
  }
  return { lines, locationVars }
}

/** The alert channels' constructs, and the variable each channel's id is in. */
function channelLines(channels: ServerResources['channels'], ids: LogicalIds, used: Set<string>) {
  const lines: string[] = []
  const channelVars = new Map<number, string>()
  for (const channel of channels) {
    const name = ids.next('channel', String(channel.config.name ?? channel.config.address ?? channel.type))
    channelVars.set(channel.id, name.variable)
    used.add(CHANNEL_CLASSES[channel.type])
    const props = {
      ...pick(channel.config, ALERT_CHANNEL_CONFIGS[channel.type]),
      // A project says what a channel alerts for on its checks and groups (their alertChannels).
      ...withoutDefaults(pick(channel, AlertChannelBody), AlertChannelBody, [
        'type',
        'config',
        'subscriptions',
      ]),
    }
    lines.push(
      `export const ${name.variable} = new ${CHANNEL_CLASSES[channel.type]}(${q(name.logicalId)}, ${js(props)})`,
    )
  }
  return { lines, channelVars }
}

/** A check's construct props (with a suite's files to write), or why it can't be written. */
function checkProps(check: ServerCheck, logicalId: string) {
  const schema = CHECK_BODIES[check.checkType]
  const { script, ...fields } = withoutDefaults(pick(check, schema), schema, [
    'groupId',
    'alertChannelSubscriptions',
    'privateLocations',
    'triggerIncident',
  ])
  if (check.checkType === 'AUTOMATION') return suiteOf(logicalId, { ...fields, script })
  const props = SCRIPT_TYPES.includes(check.checkType) ? { ...fields, code: { content: script } } : fields
  return { props, files: [] }
}

/** The files `AutomationCheck` reads by default: others are named in its `include`. */
const SUITE_FILE = /\.(ts|js|mjs|cjs|json)$/

/**
 * An AUTOMATION check's suite as files under `<logicalId>/` (its dependencies, and its script at its
 * path), and the construct's props pointing at them: the next deploy sends the same files back. Or why
 * it can't be.
 */
function suiteOf(logicalId: string, fields: Record<string, unknown>) {
  const { script, scriptPath, dependencies, playwrightConfigPath, ...props } = fields as {
    script?: string
    scriptPath?: string
    dependencies?: { path: string; content: string }[]
    playwrightConfigPath?: string
  }
  const project = scriptProjectOf('AUTOMATION', { script, scriptPath, dependencies, playwrightConfigPath })
  const root = posix.dirname(project.configPath as string)
  const paths = project.files.map((file) => file.path).sort()
  if (root !== '.' && !paths.every((path) => path.startsWith(`${root}/`)))
    return `its files lie outside the folder of its Playwright config (${project.configPath}), which AutomationCheck takes as the suite's root`
  return {
    files: project.files.map((file) => ({ path: `${logicalId}/${file.path}`, content: file.content })),
    props: {
      ...props,
      playwrightConfig: `./${logicalId}/${project.configPath}`,
      ...(paths.every((path) => SUITE_FILE.test(path)) ? {} : { include: paths }),
    },
  }
}

/** The fields of `value` that `schema` takes, recursively (read-only fields such as ids left out). */
function pick(value: unknown, schema: TSchema): Record<string, unknown> {
  return pickValue(value, schema) as Record<string, unknown>
}

function pickValue(value: unknown, schema: TSchema): unknown {
  const node = schema as { properties?: Record<string, TSchema>; items?: TSchema; anyOf?: TSchema[] }
  if (value === null || value === undefined) return value
  const objectSchema = node.properties ? node : node.anyOf?.find((member) => 'properties' in member)
  const properties = (objectSchema as { properties?: Record<string, TSchema> } | undefined)?.properties
  if (properties && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value).filter(([key, field]) => key in properties && field !== null)
    return Object.fromEntries(
      entries.map(([key, field]) => [key, pickValue(field, properties[key] as TSchema)]),
    )
  }
  const items = node.items ?? (node.anyOf?.find((member) => 'items' in member) as { items?: TSchema })?.items
  if (items && Array.isArray(value)) return value.map((item) => pickValue(item, items))
  return value
}

/** Leaves out top-level fields equal to the schema's default, and `drop`, so the code says only what matters. */
function withoutDefaults(
  object: Record<string, unknown>,
  schema: TSchema,
  drop: string[],
): Record<string, unknown> {
  const properties = (schema as { properties: Record<string, { default?: unknown }> }).properties
  return Object.fromEntries(
    Object.entries(object).filter(([key, value]) => {
      if (drop.includes(key)) return false
      const fallback = properties[key]?.default
      return fallback === undefined || JSON.stringify(fallback) !== JSON.stringify(value)
    }),
  )
}

function refs(links: {
  group?: string
  alertChannels: (string | undefined)[]
  privateLocations?: string[]
  triggerIncident?: string
}): string[] {
  const channels = links.alertChannels.filter((name): name is string => name !== undefined)
  const locations = links.privateLocations ?? []
  return [
    ...(links.group ? [`group: ${links.group}`] : []),
    ...(channels.length ? [`alertChannels: [${channels.join(', ')}]`] : []),
    ...(locations.length ? [`privateLocations: [${locations.join(', ')}]`] : []),
    ...(links.triggerIncident ? [`triggerIncident: ${links.triggerIncident}`] : []),
  ]
}

/** A check's `triggerIncident` with its service as the imported service's variable. */
function triggerRef(trigger: unknown, serviceVars: Map<string, string>): string | undefined {
  const { serviceId, ...rest } = (trigger ?? {}) as { serviceId?: string }
  const service = serviceId === undefined ? undefined : serviceVars.get(serviceId)
  if (!service) return undefined
  const fields = Object.entries(rest).map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
  return `{ service: ${service}, ${fields.join(', ')} }`
}

/** A check's or group's private locations: the imported ones by their variable, others by slug. */
function locationRefs(slugs: unknown, locationVars: Map<string, string>): string[] {
  if (!Array.isArray(slugs)) return []
  return slugs.map((slug: string) => locationVars.get(slug) ?? q(slug))
}

/** Services and v1 status pages, their cards naming the services' variables. */
function statusPageLines(server: ServerResources, ids: LogicalIds, used: Set<string>) {
  const lines: string[] = []
  const serviceVars = new Map<string, string>()
  for (const service of server.services) {
    const name = ids.next('service', service.name)
    serviceVars.set(service.id, name.variable)
    used.add('StatusPageService')
    const props = withoutDefaults(pick(service, StatusPageServiceBody), StatusPageServiceBody, ['checkIds'])
    lines.push(`export const ${name.variable} = new StatusPageService(${q(name.logicalId)}, ${js(props)})`)
  }
  for (const page of server.pages) {
    used.add('StatusPage')
    const unthemed = JSON.stringify(page.themeColors) === JSON.stringify(DEFAULT_THEME_COLORS)
    const props = withoutDefaults(pick(page, StatusPageBody), StatusPageBody, [
      'cards',
      ...(unthemed ? ['themeColors'] : []),
    ])
    const cards = page.cards.map((card) => {
      const services = card.services.map((service) => serviceVars.get(service.id)).filter(Boolean)
      return `{ name: ${q(card.name)}, services: [${services.join(', ')}] }`
    })
    const links = [`cards: [${cards.join(', ')}]`]
    lines.push(`new StatusPage(${q(ids.next('page', page.name).logicalId)}, ${js(props, links)})`)
  }
  return { lines, serviceVars }
}

/**
 * Dashboards and account variables. A hidden variable's value (locked or secret) can't be read back: the
 * code reads it from the deploy's environment, under the variable's own key.
 */
function accountSettingLines(server: ServerResources, ids: LogicalIds, used: Set<string>) {
  const lines: string[] = []
  for (const board of server.dashboards) {
    used.add('Dashboard')
    const props = Object.fromEntries(
      Object.entries(pick(board, DashboardCreateBody)).filter(([key, value]) => {
        const fallback = (DASHBOARD_SETTINGS_DEFAULTS as Record<string, unknown>)[key]
        const empty = Array.isArray(value) && value.length === 0
        return !empty && JSON.stringify(fallback) !== JSON.stringify(value)
      }),
    )
    const name = ids.next('dashboard', board.customUrl ?? board.dashboardId)
    lines.push(`new Dashboard(${q(name.logicalId)}, ${js(props)})`)
  }
  for (const variable of server.variables) {
    used.add('EnvironmentVariable')
    const hidden = variable.locked || variable.secret
    const { value, ...props } = withoutDefaults(pick(variable, CreateVariableBody), CreateVariableBody, [])
    const fromEnv = hidden ? [`value: process.env.${variable.key}`] : []
    const code = js(hidden ? props : { ...props, value }, fromEnv)
    lines.push(`new EnvironmentVariable(${q(ids.next('variable', variable.key).logicalId)}, ${code})`)
  }
  return lines
}

/** Maintenance windows: they name checks by tags, so they need no references. */
function windowLines(server: ServerResources, ids: LogicalIds, used: Set<string>) {
  return server.maintenanceWindows.map((window) => {
    used.add('MaintenanceWindow')
    // Nulls (no repeat, UTC) are the construct's defaults: left out by `pick`.
    const props = pick(window, MaintenanceWindowBody)
    return `new MaintenanceWindow(${q(ids.next('maintenance', window.name).logicalId)}, ${js(props)})`
  })
}

function js(props: Record<string, unknown>, links: string[] = []): string {
  const body = JSON.stringify(props, null, 2).replace(/"([A-Za-z_$][\w$]*)":/g, '$1:')
  if (links.length === 0) return body
  const inner = body === '{}' ? '' : `${body.slice(1, -2)},\n`
  return `{${inner ? inner : '\n'}${links.map((link) => `  ${link},`).join('\n')}\n}`
}

function q(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

/** Unique logical ids and variable names from resource names. */
class LogicalIds {
  private readonly taken = new Set<string>()

  next(kind: string, name: string): { logicalId: string; variable: string } {
    const slug =
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || kind
    let logicalId = slug
    for (let n = 2; this.taken.has(`${kind} ${logicalId}`); n++) logicalId = `${slug}-${n}`
    this.taken.add(`${kind} ${logicalId}`)
    const words = `${kind}-${logicalId}`.split('-')
    const variable = words
      .map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
      .join('')
    return { logicalId, variable: variable.replace(/^(\d)/, '_$1') }
  }
}
