'use strict'
// A Playwright reporter that appends each finished test (outcome, steps, errors, attachments) to
// the run's event file as soon as it ends, so a run killed later still keeps what it finished.
const fs = require('node:fs')

const config = JSON.parse(fs.readFileSync(process.env.SVC_RUN_CONFIG, 'utf8'))
const MAX_OUTPUT_LINES = 1000
let outputLines = 0

function emit(event) {
  try {
    fs.appendFileSync(
      config.eventsFile,
      `${JSON.stringify({ ...event, pid: process.pid, at: Date.now() })}\n`,
    )
  } catch {}
}

function errorOf(error) {
  return {
    message: String(error.message ?? error.value ?? 'Error').slice(0, config.maxText),
    stack: error.stack ? String(error.stack).slice(0, config.maxText) : null,
    location: error.location ?? null,
  }
}

/**
 * Only `test.step` blocks are steps for users; API calls inside them are left out. A step still
 * running when its test ended (a timeout) never finished (duration -1): it failed, until `endMs`.
 */
function stepsOf(steps, endMs) {
  const out = []
  for (const step of steps) {
    if (step.category === 'test.step') {
      const unfinished = step.duration < 0
      out.push({
        title: step.title,
        startedAt: step.startTime.toISOString(),
        duration: unfinished ? Math.max(0, endMs - step.startTime.getTime()) : step.duration,
        status: step.error || unfinished ? 'failed' : 'passed',
        error: step.error ? errorOf(step.error) : null,
        location: step.location ?? null,
        steps: stepsOf(step.steps, endMs),
      })
    } else {
      out.push(...stepsOf(step.steps, endMs))
    }
  }
  return out
}

class SvcReporter {
  onBegin(_config, suite) {
    emit({ type: 'begin', tests: suite.allTests().length })
  }
  onStdOut(chunk, test) {
    this.output('info', chunk, test)
  }
  onStdErr(chunk, test) {
    this.output('error', chunk, test)
  }
  output(level, chunk, test) {
    const text = String(chunk).replace(/\n$/, '').slice(0, config.maxText)
    if (!text || ++outputLines > MAX_OUTPUT_LINES) return
    emit({ type: 'stdout', level, text, test: test ? test.title : null })
  }
  onTestBegin(test, result) {
    emit({
      type: 'testBegin',
      id: test.id,
      title: test.title,
      titlePath: test.titlePath().slice(3),
      location: test.location,
      expectedStatus: test.expectedStatus,
      startedAt: result.startTime.toISOString(),
    })
  }
  onTestEnd(test, result) {
    emit({
      type: 'testEnd',
      id: test.id,
      title: test.title,
      titlePath: test.titlePath().slice(3),
      location: test.location,
      expectedStatus: test.expectedStatus,
      retry: result.retry,
      status: result.status,
      startedAt: result.startTime.toISOString(),
      duration: result.duration,
      errors: result.errors.map(errorOf),
      steps: stepsOf(result.steps, result.startTime.getTime() + result.duration),
      attachments: result.attachments
        .filter((a) => a.path)
        .map((a) => ({ name: a.name, path: a.path, contentType: a.contentType })),
    })
  }
  onError(error) {
    emit({ type: 'runnerError', ...errorOf(error) })
  }
  onEnd(result) {
    emit({ type: 'end', status: result.status })
  }
  printsToStdio() {
    return false
  }
}

module.exports = SvcReporter
