import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assemble } from './assemble.ts'
import type { ScriptRunnerContext } from './types.ts'

type Run = Parameters<typeof assemble>[0]
type RunEvent = Parameters<typeof assemble>[1][number]

const suiteRun = {
  checkType: 'AUTOMATION',
  mode: 'test',
  workDir: '/runs/svc-run-1-1-1',
  runtimeId: '2025.04',
} as Run
const timedOutExec = {
  exitCode: 1,
  timedOut: false,
  memoryExceeded: false,
  cancelled: false,
  stdout: [],
  stdoutDropped: 0,
  stderr: '',
  wallMs: 60_500,
}
const ctx = { playwright: { heapLimitMb: 512, memoryLimitMb: 1024 } } as unknown as ScriptRunnerContext

const at = Date.parse('2026-11-28T10:00:00Z')
const testEvent = (type: 'testBegin' | 'testEnd', title: string, extra: object = {}): RunEvent => ({
  type,
  at,
  id: title,
  title,
  titlePath: ['checkout', title],
  location: { file: 'tests/a.spec.ts' },
  expectedStatus: 'passed',
  startedAt: new Date(at).toISOString(),
  ...extra,
})
const ended = (title: string, status: string) =>
  testEvent('testEnd', title, { status, duration: 5, errors: [], steps: [] })
const suiteTimedOut: RunEvent[] = [
  { type: 'runnerError', at, message: 'Timed out waiting 60s for the test suite to run' },
  { type: 'end', at, status: 'timedout' },
]

test('a suite stopped at its global timeout names the test it stopped, whether or not Playwright reported that test ended', () => {
  const begun = [
    { type: 'begin', at, tests: 2 },
    testEvent('testBegin', 'quick'),
    ended('quick', 'passed'),
    testEvent('testBegin', 'hangs'),
  ]
  // The worker killed before it reported the test (what an unloaded machine shows), or stopped in time
  // to end it as interrupted (what a loaded one sometimes did, and the message named no test).
  for (const events of [
    [...begun, ...suiteTimedOut],
    [...begun, ended('hangs', 'interrupted'), ...suiteTimedOut],
  ]) {
    const { error, result } = assemble(suiteRun, events, timedOutExec, 60_000, ctx)
    assert.deepEqual(error, {
      type: 'TIMEOUT',
      message: 'Timed out waiting 60s for the test suite to run (still running: checkout › hangs)',
    })
    assert.deepEqual(
      result.tests.map((t) => [t.titlePath.join(' › '), t.status, t.failed]),
      [
        ['checkout › quick', 'passed', false],
        ['checkout › hangs', 'interrupted', true],
      ],
    )
  }
})
