import { Type } from 'typebox'
import { Nullable, StrictObject, StringEnum } from './schema-helpers.ts'

export const ASSERTION_COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'HAS_KEY',
  'NOT_HAS_KEY',
  'HAS_VALUE',
  'NOT_HAS_VALUE',
  'IS_EMPTY',
  'NOT_EMPTY',
  'GREATER_THAN',
  'LESS_THAN',
  'CONTAINS',
  'NOT_CONTAINS',
  'MATCHES_REGEX',
  'IS_NULL',
  'NOT_NULL',
] as const
export type AssertionComparison = (typeof ASSERTION_COMPARISONS)[number]

export const MAX_ASSERTIONS = 50

/**
 * `{source, property, comparison, target, regex}` limited to the sources of one check type (its module in
 * check-types/ names them; API.md "Assertions").
 */
export function AssertionSchema<const S extends readonly string[]>(sources: S) {
  return StrictObject({
    source: StringEnum(sources),
    property: Type.Optional(
      Type.String({ maxLength: 1024, default: '', description: 'JSONPath ($.a.b), header name, or empty.' }),
    ),
    comparison: StringEnum(ASSERTION_COMPARISONS),
    target: Type.Optional(Type.String({ maxLength: 10_000, default: '' })),
    regex: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 1024,
          description: 'Extracts the first capture group before comparing; null: none.',
        }),
      ),
    ),
  })
}

export function AssertionList<const S extends readonly string[]>(sources: S) {
  return Type.Array(AssertionSchema(sources), { maxItems: MAX_ASSERTIONS, default: [] })
}

export interface Assertion {
  source: string
  property?: string
  comparison: AssertionComparison
  target?: string
  regex?: string | null
}
