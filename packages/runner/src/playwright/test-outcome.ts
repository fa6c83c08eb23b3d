import type { RunErrorType } from '../types.ts'
import type { RunEvent } from './run-events.ts'
import type { ScriptError, StepOutcome, TestOutcome } from './types.ts'

export type ErrorOf = (value: { message?: unknown; stack?: unknown } | null | undefined) => ScriptError

/** A failed `expect` is an assertion; anything else a script error. */
export function errorTypeOf(message: string): RunErrorType {
  return /^(Error: )?expect\(/.test(message.trim()) ? 'ASSERTION' : 'SCRIPT'
}

/** A test as the reporter's testEnd (or our own, for a test that never ended) tells it. */
export function testOutcomeOf(
  event: RunEvent,
  errorOf: ErrorOf,
  clean: (text: string) => string,
): TestOutcome {
  const location = event.location as { file?: string } | undefined
  const status = String(event.status) as TestOutcome['status']
  const stepOf = (step: Record<string, unknown>): StepOutcome => {
    const at = step.location as { file?: string; line?: number; column?: number } | null
    return {
      title: String(step.title),
      startedAt: String(step.startedAt),
      duration: Number(step.duration),
      status: step.status === 'failed' ? 'failed' : 'passed',
      error: step.error ? errorOf(step.error as { message?: unknown; stack?: unknown }) : null,
      location: at?.file ? clean(`${at.file}:${at.line}:${at.column}`) : null,
      steps: ((step.steps as Record<string, unknown>[]) ?? []).map(stepOf),
    }
  }
  return {
    title: String(event.title),
    titlePath: (event.titlePath as string[]) ?? [String(event.title)],
    file: clean(String(location?.file ?? '')),
    status,
    expectedStatus: String(event.expectedStatus),
    failed: status !== 'skipped' && status !== event.expectedStatus,
    startedAt: String(event.startedAt),
    duration: Number(event.duration),
    errors: ((event.errors as Record<string, unknown>[]) ?? []).map((e) => errorOf(e)),
    steps: ((event.steps as Record<string, unknown>[]) ?? []).map(stepOf),
  }
}
