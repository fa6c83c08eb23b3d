import type { RunError } from '../types.ts'
import { EventCollector, time } from './collect-events.ts'
import type { Execution } from './execute-run.ts'
import type { PreparedRun } from './prepare-run.ts'
import type { RunEvent } from './run-events.ts'
import { cut, NODE_MODULES, RUNNER_DIR } from './run-settings.ts'
import type { ArtifactCandidate } from './store-artifacts.ts'
import { type ErrorOf, errorTypeOf, testOutcomeOf } from './test-outcome.ts'
import type { PageResult, ScriptCheckResult, ScriptError, ScriptRunnerContext, TestOutcome } from './types.ts'
import { webVitalsOf } from './web-vitals.ts'

export interface Assembled {
  result: Omit<ScriptCheckResult, 'screenshots' | 'traces' | 'videos' | 'artifactsTruncated'>
  error: RunError | null
  responseTime: number | null
  artifacts: ArtifactCandidate[]
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')

/** What a finished run left (its events and process outcome) as a check result and error. */
export function assemble(
  run: PreparedRun,
  events: RunEvent[],
  exec: Execution,
  timeoutMs: number,
  ctx: ScriptRunnerContext,
): Assembled {
  const clean = cleanerOf(run)
  const errorOf: ErrorOf = (value) => ({
    message: cut(clean(String(value?.message ?? 'Error'))),
    stack: typeof value?.stack === 'string' ? cut(clean(value.stack)) : null,
  })
  const collected = new EventCollector(exec, errorOf, clean)
  for (const event of events) collected.take(event)
  const stopped = settleAttempts(collected, events, errorOf, clean)
  if (run.mode === 'script') {
    for (const { at, line } of exec.stdout)
      collected.log({ time: time(at), level: 'info', text: clean(line), pageIndex: null })
  }
  collected.noteLimits()
  const stderr = clean(exec.stderr.trim())
  // V8 aborts a process out of heap (the test worker or the script) with this on its stderr.
  const heapExhausted = [exec.stderr, ...collected.logs.map((entry) => entry.text)].some((text) =>
    /FATAL ERROR: .*JavaScript heap out of memory/.test(text),
  )
  const error = runErrorOf({ run, exec, timeoutMs, ctx, collected, stopped, heapExhausted, stderr })
  if (run.mode === 'script' && stderr) {
    for (const line of stderr.split('\n').slice(-20))
      collected.log({ time: new Date().toISOString(), level: 'error', text: line, pageIndex: null })
  }
  const errors = errorsOf(collected, error)
  if (exec.memoryExceeded) collected.notes.push(`memory limit of ${ctx.playwright.memoryLimitMb} MB reached`)
  if (heapExhausted) collected.notes.push(`JavaScript heap limit of ${ctx.playwright.heapLimitMb} MB reached`)
  const { tests } = collected
  const responseTime = responseTimeOf(run, collected)
  return {
    result: {
      runtimeId: run.runtimeId,
      mode: run.mode,
      tests,
      errors,
      logs: collected.logs,
      network: collected.network,
      pages: pagesOf(collected),
      notes: collected.notes,
    },
    error,
    responseTime,
    artifacts: collected.artifacts,
  }
}

/** A suite's time is its tests' (none: null); a script's is its own run. */
function responseTimeOf(run: PreparedRun, collected: EventCollector): number | null {
  if (run.mode !== 'test') return collected.scriptDuration
  const { tests } = collected
  return tests.length ? tests.reduce((sum, test) => sum + test.duration, 0) : null
}

/** The pages the run opened, in order, with their web vitals. */
function pagesOf(collected: EventCollector): PageResult[] {
  return [...collected.pages]
    .sort(([a], [b]) => a - b)
    .map(([pageIndex, page]) => ({ pageIndex, url: page.url, webVitals: webVitalsOf(page.vitals) }))
}

/** Paths read relative to the script's project; the server's own install paths never show. */
function cleanerOf(run: PreparedRun): (text: string) => string {
  return (text) =>
    text
      .replace(ANSI, '')
      .split(`file://${run.workDir}/`)
      .join('')
      .split(`${run.workDir}/`)
      .join('')
      .split(`${NODE_MODULES}/`)
      .join('node_modules/')
      .split(`${RUNNER_DIR}/`)
      .join('svc/')
}

/**
 * A retried test counts by its last attempt, as in Playwright's own outcome (passing late is flaky).
 * Answers the tests the run was stopped in: Playwright ends such a test as interrupted when its worker
 * stops in time, and reports nothing when the worker is killed first (a race a loaded machine loses).
 */
function settleAttempts(
  collected: EventCollector,
  events: RunEvent[],
  errorOf: ErrorOf,
  clean: (text: string) => string,
): TestOutcome[] {
  const lastAttempts = new Set(collected.lastAttempt.values())
  for (const test of collected.tests) {
    if (lastAttempts.has(test)) continue
    test.failed = false
  }
  for (const [id, test] of collected.lastAttempt) {
    const retry = (events.findLast((e) => e.type === 'testEnd' && e.id === id)?.retry as number) ?? 0
    if (retry > 0 && !test.failed)
      collected.notes.push(`${test.titlePath.join(' › ')} passed on retry ${retry}`)
  }
  const stopped = [...lastAttempts].filter((test) => test.status === 'interrupted')
  for (const begun of collected.running.values()) {
    const duration = Math.max(0, Date.now() - Date.parse(String(begun.startedAt)))
    const test = testOutcomeOf({ ...begun, status: 'interrupted', duration }, errorOf, clean)
    collected.tests.push(test)
    stopped.push(test)
  }
  return stopped
}

interface Ending {
  run: PreparedRun
  exec: Execution
  timeoutMs: number
  ctx: ScriptRunnerContext
  collected: EventCollector
  stopped: TestOutcome[]
  heapExhausted: boolean
  /** The run's stderr, cleaned and trimmed. */
  stderr: string
}

/** Why the run failed, if it did: the process's own ending first, then what its tests or script said. */
function runErrorOf(ending: Ending): RunError | null {
  const { exec, timeoutMs, ctx, stopped, heapExhausted } = ending
  const stillRunning = stopped.length
    ? ` (still running: ${stopped.map((test) => test.titlePath.join(' › ')).join(', ')})`
    : ''
  if (exec.cancelled) return { type: 'CANCELLED', message: `The run was cancelled${stillRunning}` }
  if (exec.timedOut)
    return {
      type: 'TIMEOUT',
      message: `The run did not finish within ${timeoutMs / 1000} s and was stopped${stillRunning}`,
    }
  if (exec.memoryExceeded)
    return {
      type: 'SCRIPT',
      message: `The run used more than ${ctx.playwright.memoryLimitMb} MB of memory and was stopped`,
    }
  if (heapExhausted)
    return {
      type: 'SCRIPT',
      message: `The run used more than ${ctx.playwright.heapLimitMb} MB of JavaScript heap and was stopped`,
    }
  return ending.run.mode === 'test' ? testRunErrorOf(ending, stillRunning) : scriptErrorOf(ending)
}

function testRunErrorOf(
  { run, exec, timeoutMs, collected, stderr }: Ending,
  stillRunning: string,
): RunError | null {
  const { tests, runnerErrors } = collected
  const failed = tests.find((test) => test.failed && test.status !== 'interrupted')
  if (failed) {
    const first = failed.errors[0]?.message ?? `${failed.status}`
    return {
      type: failed.status === 'timedOut' ? 'TIMEOUT' : errorTypeOf(first),
      message: `${failed.titlePath.join(' › ')}: ${first}`,
    }
  }
  if (collected.endStatus === 'timedout') {
    // A suite's message names its own globalTimeout; a check's global timeout is its limit + grace.
    const suiteMessage = run.checkType === 'AUTOMATION' ? runnerErrors[0]?.message : undefined
    return {
      type: 'TIMEOUT',
      message: `${suiteMessage ?? `The run did not finish within ${timeoutMs / 1000} s and was stopped`}${stillRunning}`,
    }
  }
  if (runnerErrors.length) return { type: 'SCRIPT', message: runnerErrors[0]?.message as string }
  const summary = stderrSummary(stderr)
  if (tests.length === 0) return { type: 'SCRIPT', message: `No tests ran${summary ? `: ${summary}` : ''}` }
  if (exec.exitCode !== 0)
    return {
      type: 'SCRIPT',
      message: `Playwright exited with code ${exec.exitCode}${summary ? `: ${summary}` : ''}`,
    }
  return null
}

function scriptErrorOf({ exec, collected, stderr }: Ending): RunError | null {
  const { scriptError } = collected
  if (scriptError) return { type: errorTypeOf(scriptError.message), message: scriptError.message }
  if (exec.exitCode === 0) return null
  const summary = stderrSummary(stderr)
  return {
    type: 'SCRIPT',
    message: `The script exited with code ${exec.exitCode}${summary ? `: ${summary}` : ''}`,
  }
}

/** An error message says what went wrong: a crash's stack frames would push its first line out. */
function stderrSummary(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line.trim() && !/^\s+at /.test(line))
    .slice(-20)
    .join('\n')
}

function errorsOf(collected: EventCollector, error: RunError | null): ScriptError[] {
  const errors: ScriptError[] = []
  for (const test of collected.tests) if (test.failed) errors.push(...test.errors)
  if (collected.scriptError) errors.push(collected.scriptError)
  errors.push(...collected.runnerErrors)
  if (error && errors.length === 0) errors.push({ message: error.message, stack: null })
  return errors
}
