import { type Static, Type } from 'typebox'
import { StrictObject } from '../schema-helpers.ts'

/** An account variable's body as the API validates it, here so the CLI's construct takes the same rules. */

export const VARIABLE_KEY_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$'
export const MAX_VARIABLE_VALUE_LENGTH = 10_000

export const VariableKey = Type.String({
  pattern: VARIABLE_KEY_PATTERN,
  minLength: 1,
  maxLength: 128,
  description:
    'Letters, digits and underscores, not starting with a digit. Cannot be changed after creation.',
})
export const VariableValue = Type.String({ maxLength: MAX_VARIABLE_VALUE_LENGTH })
export const VariableDescription = Type.String({ maxLength: 1000 })

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
  description: Type.Optional(VariableDescription),
})
export type CreateVariableBody = Static<typeof CreateVariableBody>
