import { JSONPath } from 'jsonpath-plus'
import type { Assertion } from './assertions.ts'

export interface AssertionOutcome extends Assertion {
  /**
   * The value compared (after the property and regex were applied), as JSON-safe data; past
   * `MAX_ACTUAL_CHARS` of text, the start of its (JSON) text followed by `…`.
   */
  actual: unknown
  passed: boolean
  /** Why the assertion could not be evaluated (bad JSONPath or regex); it then fails. */
  error?: string
}

/**
 * Evaluates one assertion against the value of its source (status code, parsed JSON body, headers,
 * response data, ...). Pure; never throws: a bad path or regex is a failed assertion with an error.
 */
export function evaluateAssertion(assertion: Assertion, sourceValue: unknown): AssertionOutcome {
  const target = assertion.target ?? ''
  try {
    let actual = select(sourceValue, assertion.property ?? '')
    if (assertion.regex) actual = extract(actual, assertion.regex)
    return { ...assertion, actual: jsonSafe(actual), passed: compare(assertion.comparison, actual, target) }
  } catch (error) {
    return { ...assertion, actual: null, passed: false, error: (error as Error).message }
  }
}

/** A JSONPath for JSON values (`$.a.b`), a case-insensitive key for header maps, nothing when empty. */
function select(value: unknown, property: string): unknown {
  if (property === '') return value
  if (property.startsWith('$')) {
    // jsonpath-plus answers nothing at all for a falsy document (`null`, `0`, `false`, `""`): `$` is
    // the document itself, and nothing is below it.
    const matches =
      (JSONPath({ path: property, json: value as object, wrap: true }) as unknown[] | undefined) ??
      (property === '$' ? [value] : [])
    return matches.length <= 1 ? matches[0] : matches
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const key = Object.keys(value).find((k) => k.toLowerCase() === property.toLowerCase())
    return key === undefined ? undefined : (value as Record<string, unknown>)[key]
  }
  return undefined
}

function extract(value: unknown, pattern: string): string | undefined {
  const match = new RegExp(pattern).exec(asText(value))
  if (!match) return undefined
  return match[1] ?? match[0]
}

function compare(comparison: Assertion['comparison'], actual: unknown, target: string): boolean {
  switch (comparison) {
    case 'EQUALS':
      return equals(actual, target)
    case 'NOT_EQUALS':
      return !equals(actual, target)
    case 'HAS_KEY':
      return hasKey(actual, target)
    case 'NOT_HAS_KEY':
      return !hasKey(actual, target)
    case 'HAS_VALUE':
      return hasValue(actual, target)
    case 'NOT_HAS_VALUE':
      return !hasValue(actual, target)
    case 'IS_EMPTY':
      return isEmpty(actual)
    case 'NOT_EMPTY':
      return !isEmpty(actual)
    case 'GREATER_THAN':
      return (order(actual, target) ?? 0) > 0
    case 'LESS_THAN':
      return (order(actual, target) ?? 0) < 0
    case 'CONTAINS':
      return actual !== undefined && asText(actual).includes(target)
    case 'NOT_CONTAINS':
      return actual === undefined || !asText(actual).includes(target)
    case 'MATCHES_REGEX':
      return actual !== undefined && new RegExp(target).test(asText(actual))
    case 'IS_NULL':
      return actual === null || actual === undefined
    case 'NOT_NULL':
      return actual !== null && actual !== undefined
  }
}

/** Numbers compare as numbers when both sides parse as numbers, everything else by its text. */
function equals(actual: unknown, target: string): boolean {
  if (actual === undefined) return false
  if (bothNumbers(actual, target)) return Number(asText(actual)) === Number(target)
  return asText(actual) === target
}

/**
 * How `actual` stands to `target`: numbers by value when both parse as numbers, two texts by their text
 * (ISO dates, versions). A missing value, null, a JSON array, object or boolean, or a number against a
 * non-number has no order (null): neither greater nor less, so both comparisons fail.
 */
function order(actual: unknown, target: string): number | null {
  if (typeof actual !== 'string' && typeof actual !== 'number') return null
  const text = asText(actual)
  const numbers = [isNumeric(text), isNumeric(target)]
  if (numbers[0] && numbers[1]) return Number(text) - Number(target)
  if (numbers[0] || numbers[1]) return null
  return text < target ? -1 : text > target ? 1 : 0
}

function bothNumbers(actual: unknown, target: string): boolean {
  return isNumeric(asText(actual)) && isNumeric(target)
}

function isNumeric(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text))
}

/** A value's text: strings as they are, anything else as its JSON text (`true`, `{"a":1}`). */
function asText(value: unknown): string {
  if (value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function hasKey(actual: unknown, key: string): boolean {
  return typeof actual === 'object' && actual !== null && !Array.isArray(actual) && Object.hasOwn(actual, key)
}

function hasValue(actual: unknown, target: string): boolean {
  if (typeof actual !== 'object' || actual === null) return false
  return Object.values(actual).some((value) => equals(value, target))
}

function isEmpty(actual: unknown): boolean {
  if (actual === null || actual === undefined || actual === '') return true
  if (Array.isArray(actual)) return actual.length === 0
  if (typeof actual === 'object') return Object.keys(actual).length === 0
  return false
}

/** The most of an actual value an outcome keeps: past it, the start of its text (results stay small). */
export const MAX_ACTUAL_CHARS = 64 * 1024

function jsonSafe(value: unknown): unknown {
  if (value === undefined) return null
  if (typeof value === 'string') return value.length > MAX_ACTUAL_CHARS ? cut(value) : value
  if (typeof value !== 'object' || value === null) return value
  const text = JSON.stringify(value)
  return text.length > MAX_ACTUAL_CHARS ? cut(text) : value
}

function cut(text: string): string {
  return `${text.slice(0, MAX_ACTUAL_CHARS)}…`
}
