import { Name, Nullable, StrictObject, Uuid } from '@svc/core'
import { type Static, Type } from 'typebox'

export const ServiceBody = StrictObject({
  name: Name({ maxLength: 255, description: 'Shown on status pages and in emails.' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  checkIds: Type.Optional(
    Type.Array(Uuid(), {
      maxItems: 100,
      description:
        'Checks whose current status the service shows (worst wins) unless an ongoing incident sets it.',
    }),
  ),
})
export type ServiceBody = Static<typeof ServiceBody>

export const Service = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    accountId: Type.String({ format: 'uuid' }),
    checkIds: Type.Array(Type.String({ format: 'uuid' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'StatusPageService' },
)
export type Service = Static<typeof Service>

export const ServiceIdParams = StrictObject({ id: Uuid() })
