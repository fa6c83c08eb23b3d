import { Nullable, StrictObject } from '@svc/core'
import { Type } from 'typebox'

export const CheckTriggerParams = StrictObject({ checkId: Type.String({ format: 'uuid' }) })
export const GroupTriggerParams = StrictObject({
  groupId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
})
export const RunTriggerQuery = StrictObject({
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
})

const TriggerFields = {
  id: Type.Number(),
  token: Type.String(),
  created_at: Type.String(),
  called_at: Nullable(Type.String()),
  updated_at: Nullable(Type.String()),
}

export const CheckTrigger = Type.Object({ ...TriggerFields, checkId: Type.String() })
export const CheckGroupTrigger = Type.Object({ ...TriggerFields, groupId: Type.Number() })
