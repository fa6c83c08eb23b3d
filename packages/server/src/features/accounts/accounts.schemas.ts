import { Name, ROLES, RUNTIME_IDS, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'
import { CursorQuery } from '../../http/cursor-pages.ts'

export const ESCALATION_TYPES = ['RUN_BASED', 'TIME_BASED'] as const

/** The check-level `alertSettings` shape; an account's copy applies to checks with `useGlobalAlertSettings`. */
export const AlertSettings = Type.Object({
  escalationType: StringEnum(ESCALATION_TYPES),
  runBasedEscalation: Type.Object({ failedRunThreshold: Type.Integer({ minimum: 1, maximum: 5 }) }),
  timeBasedEscalation: Type.Object({ minutesFailingThreshold: Type.Integer({ minimum: 1, maximum: 60 }) }),
  reminders: Type.Object({
    amount: Type.Integer({ minimum: 0, maximum: 100000 }),
    interval: Type.Integer({ minimum: 5, maximum: 1440 }),
  }),
  parallelRunFailureThreshold: Type.Object({
    enabled: Type.Boolean(),
    percentage: Type.Integer({ minimum: 10, maximum: 100 }),
  }),
})
export type AlertSettings = Static<typeof AlertSettings>

export const AlertSettingsPatch = StrictObject({
  escalationType: Type.Optional(StringEnum(ESCALATION_TYPES)),
  runBasedEscalation: Type.Optional(
    StrictObject({ failedRunThreshold: Type.Integer({ minimum: 1, maximum: 5 }) }),
  ),
  timeBasedEscalation: Type.Optional(
    StrictObject({ minutesFailingThreshold: Type.Integer({ minimum: 1, maximum: 60 }) }),
  ),
  reminders: Type.Optional(
    StrictObject({
      amount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
      interval: Type.Optional(Type.Integer({ minimum: 5, maximum: 1440 })),
    }),
  ),
  parallelRunFailureThreshold: Type.Optional(
    StrictObject({
      enabled: Type.Optional(Type.Boolean()),
      percentage: Type.Optional(Type.Integer({ minimum: 10, maximum: 100 })),
    }),
  ),
})
export type AlertSettingsPatch = Static<typeof AlertSettingsPatch>

export const AccountSettings = Type.Object({
  timezone: Type.String({ description: 'IANA time zone; analytics quick ranges use it.' }),
  resultRetentionDays: Type.Integer({ minimum: 1, maximum: 400 }),
  traceRetentionDays: Type.Integer({ minimum: 1, maximum: 400 }),
  extendedUptimeResponseTime: Type.Boolean({
    description:
      'When true, TCP, API and URL checks may set maxResponseTime up to 45000 ms instead of 30000.',
  }),
})
export type AccountSettings = Static<typeof AccountSettings>

export const AccountSettingsPatch = StrictObject({
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  resultRetentionDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 400 })),
  traceRetentionDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 400 })),
  extendedUptimeResponseTime: Type.Optional(Type.Boolean()),
})

export const Account = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    runtimeId: Type.String({ description: 'The default runtime of the account.' }),
    settings: AccountSettings,
    alertSettings: AlertSettings,
  },
  { title: 'Account' },
)
export type Account = Static<typeof Account>

export const AccountPatch = StrictObject({
  name: Type.Optional(Name({ maxLength: 255 })),
  runtimeId: Type.Optional(StringEnum(RUNTIME_IDS)),
  settings: Type.Optional(AccountSettingsPatch),
  alertSettings: Type.Optional(AlertSettingsPatch),
})
export type AccountPatch = Static<typeof AccountPatch>

export const Member = Type.Object(
  {
    type: Type.Literal('member'),
    accountId: Type.String({ format: 'uuid' }),
    userId: Type.String({ format: 'uuid' }),
    email: Type.String(),
    name: Type.String(),
    role: StringEnum(ROLES),
    status: Type.Literal('ACTIVE'),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    isSupportMembership: Type.Boolean(),
    ssoEnabled: Type.Boolean(),
    mfaEnabled: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Member' },
)
export type Member = Static<typeof Member>

/** The roles an invitation may give (the hosted invite's; OWNER is granted once the person has joined). */
export const INVITE_ROLES = ['ADMIN', 'READ_WRITE', 'READ_ONLY'] as const

/** A person invited who has not set a password yet; `id` is their user id (PATCH and DELETE take it). */
export const Invite = Type.Object(
  {
    type: Type.Literal('invite'),
    id: Type.String({ format: 'uuid' }),
    accountId: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: StringEnum(INVITE_ROLES),
    status: StringEnum(['PENDING', 'EXPIRED']),
    inviterEmail: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Invite' },
)
export type Invite = Static<typeof Invite>

export const MemberOrInvite = Type.Union([Member, Invite])
export type MemberOrInvite = Static<typeof MemberOrInvite>

export const InviteBody = StrictObject({
  email: Type.String({ format: 'email', maxLength: 320 }),
  role: StringEnum(INVITE_ROLES),
  name: Type.Optional(Name({ maxLength: 255 })),
})
export type InviteBody = Static<typeof InviteBody>

export const InviteCreated = Type.Object({
  member: MemberOrInvite,
  url: Type.Union([Type.String(), Type.Null()], {
    description:
      'The one-time set-password link to hand to the person; null when they have a password already.',
  }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  emailed: Type.Boolean({
    description: 'Whether the link was mailed (SVC_SMTP_URL is set and the server accepted it).',
  }),
})

/** The hosted list's filters; svc's roles are a subset of the hosted ones (no READ_RUN). */
export const MembersQuery = StrictObject({
  ...CursorQuery,
  search: Type.Optional(Type.String({ maxLength: 255 })),
  type: Type.Optional(StringEnum(['member', 'invite'])),
  role: Type.Optional(StringEnum(['OWNER', 'ADMIN', 'READ_WRITE', 'READ_RUN', 'READ_ONLY'])),
  status: Type.Optional(StringEnum(['ACTIVE', 'PENDING', 'EXPIRED'])),
})

export const MemberPatch = StrictObject({ role: StringEnum(ROLES) })

export const UserIdParams = StrictObject({ userId: Type.String({ format: 'uuid' }) })
