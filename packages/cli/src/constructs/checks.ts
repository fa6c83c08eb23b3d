import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { CHECK_BODIES, type CheckBody, type CheckType, frequencyOffsetProblem } from '@svc/core'
import type { AlertChannel } from './alert-channels.ts'
import type { CheckGroup } from './check-group.ts'
import { type CheckDefaults, Construct, defined, type Issue, type Resource } from './construct.ts'
import { type Frequency, frequencyFields } from './frequency.ts'
import { type PrivateLocations, privateLocationSlugs, splitPrivateLocations } from './private-location.ts'
import { isStatusPageService, type StatusPageService } from './status-pages.ts'
import { subscriptionResources } from './subscriptions.ts'

/** What every check construct takes besides its type's body: its group and channels as constructs. */
interface Links {
  /** The group the check belongs to; it inherits what it doesn't set from it. */
  group?: CheckGroup
  /** Channels that alert for this check. Default: the config's `checks.alertChannels`. */
  alertChannels?: AlertChannel[]
  /** Slugs of existing private locations, or `PrivateLocation` constructs of the project. */
  privateLocations?: PrivateLocations
  /** Opens an incident on a service of the project's status pages while the check fails. */
  triggerIncident?: TriggerIncident | null
}

type ServerTrigger = NonNullable<CheckBody<'API'>['triggerIncident']>
export type TriggerIncident = Omit<ServerTrigger, 'serviceId'> & { service: StatusPageService }

// A placeholder the schema takes where a construct stands for an id that exists only once deployed.
const SOME_UUID = '00000000-0000-4000-8000-000000000000'

type Managed = 'groupId' | 'alertChannelSubscriptions' | 'privateLocations' | 'triggerIncident'
export type CheckProps<T extends CheckType> = Omit<CheckBody<T>, Managed | 'frequency'> &
  Links & {
    /** Minutes, or a `Frequency` (`Frequency.EVERY_10S` sets frequency 0 and its offset). */
    frequency?: CheckBody<T> extends { frequency?: infer F } ? F | Frequency : never
  }

/** A script given inline, or the path of a `.spec.ts` file relative to the check file. */
export type ScriptCode = { content: string } | { entrypoint: string }

export abstract class Check<T extends CheckType = CheckType> extends Construct {
  readonly checkType: T
  readonly props: Record<string, unknown> & Links

  constructor(checkType: T, logicalId: string, props: Links & object) {
    super('check', logicalId)
    this.checkType = checkType
    this.props = (props ?? {}) as Record<string, unknown> & Links
  }

  /** The body of the check's type, with the config's defaults where the check and its group say nothing. */
  body(defaults: CheckDefaults): Record<string, unknown> {
    const {
      group,
      alertChannels: _channels,
      frequency,
      privateLocations,
      triggerIncident,
      ...own
    } = this.props
    const inherited = group
      ? {}
      : { locations: defaults.locations, frequency: defaults.frequency, tags: defaults.tags }
    return defined({
      ...defined(inherited),
      ...defined(own),
      ...frequencyFields(frequency),
      privateLocations: splitPrivateLocations(this, 'checkId', privateLocations).slugs,
      triggerIncident: triggerOf(triggerIncident, (service) => service?.ref?.()),
    })
  }

  validate(defaults: CheckDefaults): Issue[] {
    const { privateLocations, triggerIncident } = this.props
    const body = defined({
      ...this.body(defaults),
      privateLocations: privateLocationSlugs(privateLocations),
      triggerIncident: triggerOf(triggerIncident, () => SOME_UUID),
    })
    const issues = this.schemaIssues(CHECK_BODIES[this.checkType], body)
    const noService =
      triggerIncident && !isStatusPageService(triggerIncident.service)
        ? [this.issue('triggerIncident.service', 'must be a StatusPageService construct')]
        : []
    return [
      ...this.logicalIdIssues(),
      ...issues,
      ...noService,
      ...(issues.length ? [] : this.crossFieldIssues(body)),
    ]
  }

  private crossFieldIssues(body: Record<string, unknown>): Issue[] {
    const offsetProblem = frequencyOffsetProblem(body)
    return [
      ...this.thresholdIssues(body),
      ...(offsetProblem ? [this.issue('frequencyOffset', offsetProblem)] : []),
    ]
  }

  /** The server's rule beyond the schema: a check is degraded before it fails (defaults included). */
  private thresholdIssues(body: Record<string, unknown>): Issue[] {
    const fields = CHECK_BODIES[this.checkType].properties as Record<string, { default?: unknown }>
    const setting = (field: string) => (body[field] ?? fields[field]?.default) as number | undefined
    const degraded = setting('degradedResponseTime')
    const max = setting('maxResponseTime')
    if (degraded === undefined || max === undefined || degraded <= max) return []
    return [this.issue('degradedResponseTime', `(${degraded}) must not exceed maxResponseTime (${max})`)]
  }

  synthesize(defaults: CheckDefaults): Resource[] {
    const payload = {
      checkType: this.checkType,
      ...this.body(defaults),
      groupId: this.props.group?.ref() ?? null,
    }
    const channels = this.props.alertChannels ?? (this.props.group ? [] : (defaults.alertChannels ?? []))
    return [
      { logicalId: this.logicalId, type: this.type, member: true, payload },
      ...subscriptionResources(this, 'checkId', channels as AlertChannel[]),
      ...splitPrivateLocations(this, 'checkId', this.props.privateLocations).assignments,
    ]
  }
}

/** The API's `triggerIncident`, its service as `serviceOf` says (a reference, or a stand-in to validate). */
function triggerOf(
  trigger: TriggerIncident | null | undefined,
  serviceOf: (service: StatusPageService | undefined) => unknown,
): Record<string, unknown> | null | undefined {
  if (!trigger) return trigger
  const { service, ...rest } = trigger
  return { serviceId: serviceOf(service), ...rest }
}

export class ApiCheck extends Check<'API'> {
  constructor(logicalId: string, props: CheckProps<'API'>) {
    super('API', logicalId, props)
  }
}

export class UrlMonitor extends Check<'URL'> {
  constructor(logicalId: string, props: CheckProps<'URL'>) {
    super('URL', logicalId, props)
  }
}

export class TcpMonitor extends Check<'TCP'> {
  constructor(logicalId: string, props: CheckProps<'TCP'>) {
    super('TCP', logicalId, props)
  }
}

export class DnsMonitor extends Check<'DNS'> {
  constructor(logicalId: string, props: CheckProps<'DNS'>) {
    super('DNS', logicalId, props)
  }
}

export class IcmpMonitor extends Check<'ICMP'> {
  constructor(logicalId: string, props: CheckProps<'ICMP'>) {
    super('ICMP', logicalId, props)
  }
}

/** Watches a host's TLS certificate: its expiry, issuer and chain (`/v1/checks/ssl`). */
export class SslMonitor extends Check<'SSL'> {
  constructor(logicalId: string, props: CheckProps<'SSL'>) {
    super('SSL', logicalId, props)
  }
}

export class HeartbeatMonitor extends Check<'HEARTBEAT'> {
  constructor(logicalId: string, props: CheckProps<'HEARTBEAT'>) {
    super('HEARTBEAT', logicalId, props)
  }
}

type ScriptProps<T extends 'BROWSER' | 'MULTI_STEP'> = Omit<CheckProps<T>, 'script'> & { code: ScriptCode }

/** A check whose Playwright script is inline or in its own file. */
abstract class ScriptCheck<T extends 'BROWSER' | 'MULTI_STEP'> extends Check<T> {
  readonly code: ScriptCode

  constructor(checkType: T, logicalId: string, props: ScriptProps<T>) {
    const { code, ...rest } = props ?? ({} as ScriptProps<T>)
    super(checkType, logicalId, rest)
    this.code = code
  }

  private entrypoint(): string | undefined {
    if (!this.code || !('entrypoint' in this.code)) return undefined
    return resolve(this.sourceFile ? dirname(this.sourceFile) : process.cwd(), this.code.entrypoint)
  }

  override body(defaults: CheckDefaults): Record<string, unknown> {
    const entrypoint = this.entrypoint()
    const script =
      entrypoint === undefined
        ? (this.code as { content?: string } | undefined)?.content
        : existsSync(entrypoint)
          ? readFileSync(entrypoint, 'utf8')
          : undefined
    // The runner writes the script under this name: a `.ts` file's TypeScript is then transpiled.
    const scriptPath = entrypoint === undefined ? undefined : basename(entrypoint)
    return { ...super.body(defaults), script, ...(scriptPath && { scriptPath }) }
  }

  override validate(defaults: CheckDefaults): Issue[] {
    const entrypoint = this.entrypoint()
    if (entrypoint !== undefined && !existsSync(entrypoint)) {
      return [this.issue('code.entrypoint', `names ${entrypoint}, which doesn't exist`)]
    }
    if (!this.code) return [this.issue('code', 'is required: {content} or {entrypoint}')]
    return super.validate(defaults)
  }
}

export class BrowserCheck extends ScriptCheck<'BROWSER'> {
  constructor(logicalId: string, props: ScriptProps<'BROWSER'>) {
    super('BROWSER', logicalId, props)
  }
}

export class MultiStepCheck extends ScriptCheck<'MULTI_STEP'> {
  constructor(logicalId: string, props: ScriptProps<'MULTI_STEP'>) {
    super('MULTI_STEP', logicalId, props)
  }
}
