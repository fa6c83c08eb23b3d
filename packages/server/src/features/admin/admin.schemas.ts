import { Name, PageQuery, ROLES, RUNTIME_IDS, StrictObject, StringEnum } from '@svc/core'
import { Type } from 'typebox'
import { KeyName } from '../api-keys/api-keys.schemas.ts'

export const User = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    name: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'User' },
)

export const CreateUserBody = StrictObject({
  email: Type.String({ format: 'email', maxLength: 320 }),
  name: Name({ maxLength: 255 }),
})

export const CreateAccountBody = StrictObject({
  name: Name({ maxLength: 255 }),
  runtimeId: Type.Optional(StringEnum(RUNTIME_IDS)),
})

export const CreateMembershipBody = StrictObject({
  userId: Type.String({ format: 'uuid' }),
  accountId: Type.String({ format: 'uuid' }),
  role: StringEnum(ROLES),
})

export const Membership = Type.Object(
  {
    userId: Type.String({ format: 'uuid' }),
    accountId: Type.String({ format: 'uuid' }),
    role: StringEnum(ROLES),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Membership' },
)

export const CreateAdminApiKeyBody = StrictObject(
  {
    name: KeyName,
    userId: Type.Optional(Type.String({ format: 'uuid', description: 'For a user key.' })),
    accountId: Type.Optional(Type.String({ format: 'uuid', description: 'For a service key, with role.' })),
    role: Type.Optional(StringEnum(ROLES, { description: 'For a service key, with accountId.' })),
  },
  { description: '`{name, userId}` creates a user key; `{name, accountId, role}` a service key.' },
)

export const ListAdminApiKeysQuery = StrictObject({
  ...PageQuery,
  userId: Type.Optional(Type.String({ format: 'uuid' })),
  accountId: Type.Optional(Type.String({ format: 'uuid' })),
})
