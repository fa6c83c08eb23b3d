import { ALERT_CHANNEL_TYPES, Nullable, PageQuery, SerialId, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'
import { ProjectBindings } from '../projects/project-bindings.ts'

export const AlertChannelSubscriptionOut = Type.Object(
  {
    id: Type.Integer(),
    checkId: Nullable(Type.String({ format: 'uuid' })),
    groupId: Nullable(Type.Integer()),
    activated: Type.Boolean(),
  },
  { title: 'AlertChannelSubscription' },
)
export type AlertChannelSubscriptionOut = Static<typeof AlertChannelSubscriptionOut>

export const AlertChannel = Type.Object(
  {
    id: Type.Integer(),
    type: StringEnum(ALERT_CHANNEL_TYPES),
    config: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The type config; webhookSecret is never returned, locked values read ***masked***.',
      },
    ),
    subscriptions: Type.Array(AlertChannelSubscriptionOut),
    sendRecovery: Type.Boolean(),
    sendFailure: Type.Boolean(),
    sendDegraded: Type.Boolean(),
    sslExpiry: Type.Boolean(),
    sslExpiryThreshold: Type.Integer(),
    autoSubscribe: Type.Boolean(),
    projectBindings: ProjectBindings,
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Present on a save that succeeded with something to know (e.g. a secret in a template).',
      }),
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'AlertChannel' },
)
export type AlertChannel = Static<typeof AlertChannel>

export const ChannelIdParams = StrictObject({ id: SerialId() })
export const ListChannelsQuery = StrictObject(PageQuery)

export const SubscriptionBody = StrictObject(
  {
    checkId: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
    groupId: Type.Optional(Nullable(SerialId())),
    activated: Type.Boolean(),
  },
  { description: 'Exactly one of checkId and groupId.' },
)
export type SubscriptionBody = Static<typeof SubscriptionBody>
