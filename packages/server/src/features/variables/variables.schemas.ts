import { PageQuery, StrictObject } from '@svc/core'
import { type Static, Type } from 'typebox'

export const MASKED_VALUE = '***masked***'
export const KEY_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$'
export const MAX_VALUE_LENGTH = 10_000

const VariableKey = Type.String({
  pattern: KEY_PATTERN,
  minLength: 1,
  maxLength: 128,
  description:
    'Letters, digits and underscores, not starting with a digit. Cannot be changed after creation.',
})
const VariableValue = Type.String({ maxLength: MAX_VALUE_LENGTH })
const Description = Type.String({ maxLength: 1000 })

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

export const CreateVariableBody = StrictObject({
  key: VariableKey,
  value: VariableValue,
  locked: Type.Optional(Type.Boolean({ default: false, description: 'Hide the value like a password.' })),
  secret: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Never readable again through any API; only check runs get it.',
    }),
  ),
  description: Type.Optional(Description),
})
export type CreateVariableBody = Static<typeof CreateVariableBody>

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
