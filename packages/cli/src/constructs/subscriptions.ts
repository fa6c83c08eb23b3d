import type { AlertChannel } from './alert-channels.ts'
import type { Construct, Resource } from './construct.ts'

/** One `alert-channel-subscription` resource per channel, named as the hosted product's CLI names them. */
export function subscriptionResources(
  subscriber: Construct,
  field: 'checkId' | 'groupId',
  channels: AlertChannel[],
): Resource[] {
  const kind = field === 'checkId' ? 'check' : 'check-group'
  return channels.map((channel) => ({
    logicalId: `${kind}-alert-channel-subscription#${subscriber.logicalId}#${channel.logicalId}`,
    type: 'alert-channel-subscription',
    member: true,
    payload: { alertChannelId: channel.ref(), [field]: subscriber.ref(), activated: true },
  }))
}
