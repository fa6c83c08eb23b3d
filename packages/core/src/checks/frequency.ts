import { Type } from 'typebox'
import { IntegerEnum } from '../schema-helpers.ts'
import { FREQUENCIES } from './check-fields.ts'

/**
 * High-frequency checks (issue 30): `frequency: 0` with `frequencyOffset` 10, 20 or 30 runs a check
 * every that many seconds. The hosted schemas allow it for the uptime types (API, URL, TCP, DNS, ICMP,
 * SSL); script types stay at one minute or more.
 */
export const HIGH_FREQUENCIES = [0, ...FREQUENCIES] as const
export const SUB_MINUTE_OFFSETS = [10, 20, 30] as const

/** The `frequency` and `frequencyOffset` of the types that may run more than once a minute. */
export const highFrequencyFields = {
  frequency: Type.Optional(
    IntegerEnum(HIGH_FREQUENCIES, {
      default: 10,
      description:
        "Minutes between runs; 0 runs every `frequencyOffset` seconds. A check in a group that sends none runs at the group's frequency.",
    }),
  ),
  frequencyOffset: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'With frequency 0, the seconds between runs: 10, 20 or 30. With other frequencies it is kept and answered; svc spreads those checks over their period itself.',
    }),
  ),
}

/** Milliseconds between two runs of a check in one location (with `runParallel`) or in turn. */
export function checkPeriodMs(check: { frequency: number; frequencyOffset?: number | null }): number {
  if (check.frequency === 0) return (check.frequencyOffset ?? SUB_MINUTE_OFFSETS[0]) * 1000
  return check.frequency * 60_000
}

/** Why a check's own `frequency` and `frequencyOffset` don't go together, or null when they do. */
export function frequencyOffsetProblem(check: {
  frequency?: number
  frequencyOffset?: number | null
}): string | null {
  if (check.frequency !== 0) return null
  const offset = check.frequencyOffset
  if (offset === undefined || offset === null) {
    return `is required with frequency 0: one of ${SUB_MINUTE_OFFSETS.join(', ')} seconds`
  }
  return (SUB_MINUTE_OFFSETS as readonly number[]).includes(offset)
    ? null
    : `must be one of ${SUB_MINUTE_OFFSETS.join(', ')} seconds with frequency 0`
}
