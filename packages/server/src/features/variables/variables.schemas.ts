import {
  VariableDescription as Description,
  PageQuery,
  StrictObject,
  VariableKey,
  VariableValue,
} from '@svc/core'
import { type Static, Type } from 'typebox'

export const MASKED_VALUE = '***masked***'
export { CreateVariableBody } from '@svc/core'

export const Variable = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    key: Type.String(),
    value: Type.String({ description: `${MASKED_VALUE} for locked and secret variables.` }),
    locked: Type.Boolean(),
    secret: Type.Boolean(),
    description: Type.String(),
    usage: Type.Object({ checksCount: Type.Integer(), checkGroupsCount: Type.Integer() }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'EnvironmentVariable' },
)
export type Variable = Static<typeof Variable>

export const UpdateVariableBody = StrictObject({
  key: Type.Optional(Type.String({ description: 'Accepted only when equal to the key in the path.' })),
  value: Type.Optional(VariableValue),
  locked: Type.Optional(Type.Boolean()),
  secret: Type.Optional(Type.Boolean({ description: 'A secret cannot be made non-secret.' })),
  description: Type.Optional(Description),
})
export type UpdateVariableBody = Static<typeof UpdateVariableBody>

export const VariableKeyParams = StrictObject({ key: VariableKey })

export const ListVariablesQuery = StrictObject({
  ...PageQuery,
  key: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_*]{1,128}$',
      description: 'Exact key, or a pattern with `*` wildcards (`API_*`, `*_TOKEN`). Case-sensitive.',
    }),
  ),
  locked: Type.Optional(Type.Boolean()),
})
export type ListVariablesQuery = Static<typeof ListVariablesQuery>
