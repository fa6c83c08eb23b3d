import { Name, Nullable, ROLES, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'

export const API_KEY_TYPES = ['USER', 'SERVICE'] as const

export const ApiKey = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    type: StringEnum(API_KEY_TYPES, {
      description: 'USER keys act as their user; SERVICE keys belong to one account.',
    }),
    maskedKey: Type.String(),
    userId: Nullable(Type.String({ format: 'uuid' })),
    accountId: Nullable(Type.String({ format: 'uuid' })),
    role: Nullable(StringEnum(ROLES)),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ApiKey' },
)
export type ApiKey = Static<typeof ApiKey>

export const CreatedApiKey = Type.Object(
  { ...ApiKey.properties, key: Type.String({ description: 'The raw key. Shown only in this response.' }) },
  { title: 'CreatedApiKey' },
)
export type CreatedApiKey = Static<typeof CreatedApiKey>

export const KeyName = Name({ maxLength: 255 })

export const CreateAccountApiKeyBody = StrictObject({
  name: KeyName,
  type: Type.Optional(StringEnum(API_KEY_TYPES, { default: 'USER' })),
  role: Type.Optional(StringEnum(ROLES, { description: 'Role of a SERVICE key (required for it).' })),
})
export type CreateAccountApiKeyBody = Static<typeof CreateAccountApiKeyBody>

export const ApiKeyIdParams = StrictObject({ id: Type.String({ format: 'uuid' }) })
