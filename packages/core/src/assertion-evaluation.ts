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
  const byValue = numberOrder(actual, target)
  return byValue === null ? asText(actual) === target : byValue === 0
}

/**
 * How `actual` stands to `target`: numbers by value when both parse as numbers, two texts by their text
 * (ISO dates, versions). A missing value, null, a JSON array, object or boolean, or a number against a
 * non-number has no order (null): neither greater nor less, so both comparisons fail.
 */
function order(actual: unknown, target: string): number | null {
  if (typeof actual !== 'string' && typeof actual !== 'number') return null
  const byValue = numberOrder(actual, target)
  if (byValue !== null) return byValue
  const text = asText(actual)
  if (decimalOf(text) || decimalOf(target)) return null
  return text < target ? -1 : text > target ? 1 : 0
}

/**
 * How two numbers stand, or null when either side is no number. A JSON number is the double it parsed
 * to, so the target's text is read as a double too; numbers written as text (a JSON string, a body, a
 * header, a regex's capture) compare exactly as decimals, so ids past 2^53 don't collapse into one.
 * Decimal only: `0x10`, `0b101` and `Infinity` are texts.
 */
function numberOrder(actual: unknown, target: string): number | null {
  const right = decimalOf(target)
  if (!right) return null
  if (typeof actual === 'number') return Number.isFinite(actual) ? Math.sign(actual - Number(target)) : null
  const left = decimalOf(asText(actual))
  return left ? compareDecimals(left, right) : null
}

/** A decimal as sign, significant digits (no leading or trailing zeros) and exponent: ±0.DIGITS × 10^exponent. */
interface Decimal {
  sign: -1 | 0 | 1
  digits: string
  exponent: number
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/

function decimalOf(text: string): Decimal | null {
  const match = DECIMAL.exec(text.trim())
  if (!match) return null
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match
  if (whole === '' && fraction === '') return null
  const all = whole + fraction
  const leading = all.length - all.replace(/^0+/, '').length
  const digits = all.slice(leading).replace(/0+$/, '')
  if (digits === '') return { sign: 0, digits, exponent: 0 }
  return { sign: sign === '-' ? -1 : 1, digits, exponent: Number(exponent) + whole.length - leading }
}

function compareDecimals(a: Decimal, b: Decimal): number {
  if (a.sign !== b.sign) return Math.sign(a.sign - b.sign)
  if (a.sign === 0) return 0
  const width = Math.max(a.digits.length, b.digits.length)
  const magnitude =
    a.exponent !== b.exponent
      ? Math.sign(a.exponent - b.exponent)
      : a.digits.padEnd(width, '0') < b.digits.padEnd(width, '0')
        ? -1
        : a.digits.padEnd(width, '0') > b.digits.padEnd(width, '0')
          ? 1
          : 0
  return a.sign * magnitude
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
