import type { AssertionOutcome } from '@svc/core'

/** The message of a run whose assertion failed: what was expected, and what came. */
export function describeAssertionFailure(outcome: AssertionOutcome): string {
  const subject = [outcome.source, outcome.property].filter(Boolean).join(' ')
  if (outcome.error) return `Assertion on ${subject} could not be evaluated: ${outcome.error}`
  return `Assertion failed: ${subject} ${outcome.comparison} ${shown(outcome.target ?? '')}, got ${shown(outcome.actual)}`
}

/** Messages go into alerts (an SMS, a Slack line) and error groups: values are shown up to 200 characters. */
const MAX_SHOWN_CHARS = 200

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null'
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}…` : text
}
