import {
  AlertChannelSubscription,
  ApiCheckDefaults,
  apiScriptFields,
  CheckAlertSettings,
  CheckEnvironmentVariable,
  FREQUENCIES,
  IntegerEnum,
  MAX_CHECK_ENVIRONMENT_VARIABLES,
  Name,
  Nullable,
  PageQuery,
  RetryStrategy,
  RUNTIME_IDS,
  SerialId,
  StrictObject,
  StringEnum,
} from '@svc/core'
import { type Static, Type } from 'typebox'
import { ProjectBindings } from '../projects/project-bindings.ts'

/** What a group's checks inherit where they say nothing themselves (API.md "check groups"). */
export const CheckGroupBody = StrictObject({
  name: Name({ maxLength: 2048 }),
  activated: Type.Optional(
    Type.Boolean({ default: true, description: 'false stops every check of the group.' }),
  ),
  muted: Type.Optional(Type.Boolean({ default: false })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 })),
  locations: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  privateLocations: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  frequency: Type.Optional(Nullable(IntegerEnum(FREQUENCIES))),
  environmentVariables: Type.Optional(
    Type.Array(CheckEnvironmentVariable, { maxItems: MAX_CHECK_ENVIRONMENT_VARIABLES }),
  ),
  alertSettings: Type.Optional(CheckAlertSettings),
  useGlobalAlertSettings: Type.Optional(Type.Boolean({ default: true })),
  alertChannelSubscriptions: Type.Optional(Type.Array(AlertChannelSubscription, { maxItems: 100 })),
  runtimeId: Type.Optional(Nullable(StringEnum(RUNTIME_IDS))),
  retryStrategy: Type.Optional(Nullable(RetryStrategy)),
  doubleCheck: Type.Optional(Type.Boolean({ default: true, deprecated: true })),
  runParallel: Type.Optional(Type.Boolean({ default: false })),
  concurrency: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 3,
      description: 'Checks run at once on a group trigger.',
    }),
  ),
  apiCheckDefaults: Type.Optional(ApiCheckDefaults),
  ...apiScriptFields('each API check of the group'),
})
export type CheckGroupBody = Static<typeof CheckGroupBody>

export const CheckGroup = Type.Object(
  {
    ...CheckGroupBody.properties,
    apiCheckDefaults: Type.Required(ApiCheckDefaults),
    id: Type.Integer(),
    name: Type.String(),
    activated: Type.Boolean(),
    muted: Type.Boolean(),
    projectBindings: ProjectBindings,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'CheckGroup', additionalProperties: true },
)
export type CheckGroup = Static<typeof CheckGroup> & Record<string, unknown>

export const GroupIdParams = StrictObject({ id: SerialId() })

/**
 * The hosted create's parameter. Only `true` subscribes the new group to every channel: its checks
 * subscribe by their own autoAssignAlerts already, and a group subscribed too would alert them twice.
 */
export const GroupAutoAssignQuery = StrictObject({
  autoAssignAlerts: Type.Optional(
    Type.Boolean({ description: 'true: subscribe the new group to every alert channel of the account.' }),
  ),
})
export const GroupCheckParams = StrictObject({
  groupId: SerialId(),
  checkId: Type.String({ format: 'uuid' }),
})
export const ListGroupsQuery = StrictObject({
  ...PageQuery,
  tag: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      maxItems: 20,
      description: 'Groups with every tag named; may be repeated (the hosted API’s filter).',
    }),
  ),
  name: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      maxItems: 20,
      description: 'Groups named exactly one of these; may be repeated (the hosted API’s filter).',
    }),
  ),
})
