import { type Static, Type } from 'typebox'
import { Nullable, StrictObject, StringEnum } from './schema-helpers.ts'

/** Where an assertion reads its value, per check type (API.md "Assertions"). */
export const ASSERTION_SOURCES = {
  API: ['STATUS_CODE', 'JSON_BODY', 'TEXT_BODY', 'HEADERS', 'RESPONSE_TIME'],
  URL: ['STATUS_CODE', 'RESPONSE_TIME'],
  TCP: ['RESPONSE_DATA', 'RESPONSE_TIME'],
  DNS: ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'],
  ICMP: ['LATENCY', 'JSON_RESPONSE'],
} as const
export type AssertionCheckType = keyof typeof ASSERTION_SOURCES

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

/** `{source, property, comparison, target, regex}` limited to the sources of one check type. */
export function AssertionSchema<T extends AssertionCheckType>(checkType: T) {
  return StrictObject({
    source: StringEnum(ASSERTION_SOURCES[checkType]),
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

export function AssertionList<T extends AssertionCheckType>(checkType: T) {
  return Type.Array(AssertionSchema(checkType), { maxItems: MAX_ASSERTIONS, default: [] })
}

export interface Assertion {
  source: string
  property?: string
  comparison: AssertionComparison
  target?: string
  regex?: string | null
}
export type ApiAssertion = Static<ReturnType<typeof AssertionSchema<'API'>>>
