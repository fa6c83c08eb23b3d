import type { AssertionOutcome } from '@svc/core'

/** The message of a run whose assertion failed: what was expected, and what came. */
export function describeAssertionFailure(outcome: AssertionOutcome): string {
  const subject = [outcome.source, outcome.property].filter(Boolean).join(' ')
  if (outcome.error) return `Assertion on ${subject} could not be evaluated: ${outcome.error}`
  return `Assertion failed: ${subject} ${outcome.comparison} ${JSON.stringify(outcome.target ?? '')}, got ${JSON.stringify(outcome.actual)}`
}
