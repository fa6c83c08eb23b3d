import { type Static, Type } from 'typebox'
import {
  IntegerEnum,
  MAX_INT32,
  Name,
  Nullable,
  SerialId,
  StrictObject,
  StringEnum,
  Uuid,
} from '../schema-helpers.ts'
import { RUNTIME_IDS } from '../tenancy.ts'

export const CHECK_TYPES = [
  'API',
  'BROWSER',
  'HEARTBEAT',
  'ICMP',
  'MULTI_STEP',
  'TCP',
  'URL',
  'DNS',
  'AUTOMATION',
  'SSL',
] as const
export type CheckType = (typeof CHECK_TYPES)[number]

export const FREQUENCIES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const
export type Frequency = (typeof FREQUENCIES)[number]

export const RETRY_STRATEGY_TYPES = ['FIXED', 'LINEAR', 'EXPONENTIAL', 'SINGLE_RETRY', 'NO_RETRIES'] as const
export const RETRY_ONLY_ON = ['NETWORK_ERROR'] as const
export const INCIDENT_SEVERITIES = ['MINOR', 'MEDIUM', 'MAJOR', 'CRITICAL'] as const
export const ESCALATION_TYPES = ['RUN_BASED', 'TIME_BASED'] as const
export const MAX_CHECK_ENVIRONMENT_VARIABLES = 50

/** A variable set on a check or group; locked ones read `***masked***` in responses. */
export const CheckEnvironmentVariable = StrictObject({
  key: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', minLength: 1, maxLength: 128 }),
  value: Type.String({ maxLength: 10_000 }),
  locked: Type.Optional(Type.Boolean({ default: false })),
  secret: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Once set, stays set (400 otherwise): the value is never readable again.',
    }),
  ),
})
export type CheckEnvironmentVariable = Static<typeof CheckEnvironmentVariable>

export const CheckAlertSettings = StrictObject({
  escalationType: Type.Optional(StringEnum(ESCALATION_TYPES, { default: 'RUN_BASED' })),
  runBasedEscalation: Type.Optional(
    StrictObject({ failedRunThreshold: Type.Integer({ minimum: 1, maximum: 5, default: 1 }) }),
  ),
  timeBasedEscalation: Type.Optional(
    StrictObject({ minutesFailingThreshold: Type.Integer({ minimum: 1, maximum: 60, default: 5 }) }),
  ),
  reminders: Type.Optional(
    StrictObject({
      amount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000, default: 0 })),
      interval: Type.Optional(Type.Integer({ minimum: 5, maximum: 1440, default: 5 })),
    }),
  ),
  parallelRunFailureThreshold: Type.Optional(
    StrictObject({
      enabled: Type.Optional(Type.Boolean({ default: false })),
      percentage: Type.Optional(Type.Integer({ minimum: 10, maximum: 100, default: 10 })),
    }),
  ),
})
export type CheckAlertSettings = Static<typeof CheckAlertSettings>

export const AlertChannelSubscription = StrictObject({
  alertChannelId: SerialId(),
  activated: Type.Boolean(),
})

export const RetryStrategy = StrictObject({
  type: StringEnum(RETRY_STRATEGY_TYPES),
  baseBackoffSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 600, default: 60 })),
  maxRetries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 2 })),
  maxDurationSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 600, default: 600 })),
  sameRegion: Type.Optional(Type.Boolean({ default: true })),
  onlyOn: Type.Optional(Type.Array(StringEnum(RETRY_ONLY_ON), { maxItems: 1 })),
})
export type RetryStrategy = Static<typeof RetryStrategy>

export const TriggerIncident = StrictObject({
  serviceId: Uuid({ description: 'A status page service (component) of the account.' }),
  severity: StringEnum(INCIDENT_SEVERITIES),
  name: Name({ maxLength: 255 }),
  description: Type.String({ maxLength: 10_000 }),
  notifySubscribers: Type.Boolean(),
})

export const ScriptDependency = StrictObject({
  path: Type.String({ minLength: 1, maxLength: 1024 }),
  content: Type.String({ maxLength: 1_000_000 }),
})

/** Fields every check type takes, with the spec's defaults. */
export const commonCheckFields = {
  name: Name({ maxLength: 2048 }),
  activated: Type.Optional(Type.Boolean({ default: true, description: 'Whether the check runs.' })),
  muted: Type.Optional(
    Type.Boolean({ default: false, description: 'Whether notifications are suppressed.' }),
  ),
  doubleCheck: Type.Optional(
    Type.Boolean({ default: true, deprecated: true, description: 'Deprecated: use retryStrategy.' }),
  ),
  shouldFail: Type.Optional(Type.Boolean({ default: false, description: 'Inverts the failure condition.' })),
  locations: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 50,
      description: "Default: the check group's locations, else the deployment's default locations.",
    }),
  ),
  privateLocations: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 })),
  alertSettings: Type.Optional(Nullable(CheckAlertSettings)),
  useGlobalAlertSettings: Type.Optional(Type.Boolean({ default: true })),
  groupId: Type.Optional(Nullable(SerialId())),
  groupOrder: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_INT32 }))),
  alertChannelSubscriptions: Type.Optional(Type.Array(AlertChannelSubscription, { maxItems: 100 })),
  retryStrategy: Type.Optional(Nullable(RetryStrategy)),
  triggerIncident: Type.Optional(Nullable(TriggerIncident)),
  runParallel: Type.Optional(Type.Boolean({ default: false })),
  environmentVariables: Type.Optional(
    Type.Array(CheckEnvironmentVariable, { maxItems: MAX_CHECK_ENVIRONMENT_VARIABLES }),
  ),
  frequency: Type.Optional(
    IntegerEnum(FREQUENCIES, {
      default: 10,
      description: "Minutes between runs. A check in a group that sends none runs at the group's frequency.",
    }),
  ),
}

/** Fields of the script check types (BROWSER, MULTI_STEP, AUTOMATION). */
export const scriptCheckFields = {
  runtimeId: Type.Optional(Nullable(StringEnum(RUNTIME_IDS))),
  scriptPath: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  dependencies: Type.Optional(Type.Array(ScriptDependency, { maxItems: 100 })),
}
