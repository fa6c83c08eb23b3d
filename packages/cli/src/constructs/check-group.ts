import { commonCheckFields, StrictObject, scriptCheckFields } from '@svc/core'
import { type Static, Type } from 'typebox'
import type { AlertChannel } from './alert-channels.ts'
import { type CheckDefaults, Construct, defined, type Issue, type Resource } from './construct.ts'
import { type PrivateLocations, privateLocationSlugs, splitPrivateLocations } from './private-location.ts'
import { subscriptionResources } from './subscriptions.ts'

const {
  name,
  activated,
  muted,
  tags,
  locations,
  privateLocations,
  environmentVariables,
  alertSettings,
  useGlobalAlertSettings,
  retryStrategy,
  runParallel,
  frequency,
} = commonCheckFields

/** A group's body as the server's check-groups API takes it (what its checks inherit). */
export const CheckGroupBody = StrictObject({
  name,
  activated,
  muted,
  tags,
  locations,
  privateLocations,
  frequency,
  environmentVariables,
  alertSettings,
  useGlobalAlertSettings,
  runtimeId: scriptCheckFields.runtimeId,
  retryStrategy,
  runParallel,
  concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
})

export type CheckGroupProps = Omit<Static<typeof CheckGroupBody>, 'privateLocations'> & {
  /** Channels that alert for every check of the group. */
  alertChannels?: AlertChannel[]
  /** Slugs of existing private locations, or `PrivateLocation` constructs of the project. */
  privateLocations?: PrivateLocations
}

export class CheckGroup extends Construct {
  readonly props: CheckGroupProps

  constructor(logicalId: string, props: CheckGroupProps) {
    super('check-group', logicalId)
    this.props = props ?? ({} as CheckGroupProps)
  }

  /** The group's body, with the config's locations and frequency where it sets none. */
  body(defaults: CheckDefaults): Record<string, unknown> {
    const { alertChannels: _channels, privateLocations, ...own } = this.props
    const { locations, frequency } = defaults
    return defined({
      ...defined({ locations, frequency }),
      ...defined(own),
      privateLocations: splitPrivateLocations(this, 'groupId', privateLocations).slugs,
    })
  }

  validate(defaults: CheckDefaults): Issue[] {
    const body = {
      ...this.body(defaults),
      privateLocations: privateLocationSlugs(this.props.privateLocations),
    }
    return [...this.logicalIdIssues(), ...this.schemaIssues(CheckGroupBody, defined(body))]
  }

  synthesize(defaults: CheckDefaults): Resource[] {
    const group = { logicalId: this.logicalId, type: this.type, member: true, payload: this.body(defaults) }
    return [
      group,
      ...subscriptionResources(this, 'groupId', this.props.alertChannels ?? []),
      ...splitPrivateLocations(this, 'groupId', this.props.privateLocations).assignments,
    ]
  }
}
