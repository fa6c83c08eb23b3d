import { Nullable, StatusPageServiceBody, StrictObject, Uuid } from '@svc/core'
import { type Static, Type } from 'typebox'

export const ServiceBody = StatusPageServiceBody
export type ServiceBody = StatusPageServiceBody

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
