import assert from 'node:assert/strict'
import { test } from 'node:test'
import { REDACTED, Scrubber } from '@svc/core'
import type { RunnerJob, RunOutcome } from '@svc/runner'
import { onAgentRuntime, outcomeToSend } from './outcome.ts'

const script = (runtimeId: string | null): RunnerJob => ({
  checkType: 'BROWSER',
  script: { name: 'b', script: '', runLocation: 'lab', runtimeId },
})

test('a script check on an older runtime runs on 2025.04, with a note; others run as they are', () => {
  const older = onAgentRuntime(script('2024.09'))
  assert.equal((older.job as { script: { runtimeId: string } }).script.runtimeId, '2025.04')
  assert.equal(older.note, 'Runtime 2024.09 is not available on private-location agents: ran on 2025.04')
  for (const job of [script('2025.04'), script(null), { checkType: 'URL', definition: {} } as RunnerJob]) {
    assert.deepEqual(onAgentRuntime(job), { job, note: null })
  }
})

test('outcomes sent: secrets scrubbed in every string, the runtime note first', () => {
  const outcome = (detail: unknown): RunOutcome => ({
    verdict: {
      startedAt: '2026-01-01T00:00:00.000Z',
      stoppedAt: '2026-01-01T00:00:01.000Z',
      responseTime: 1000,
      hasFailures: false,
      hasErrors: false,
      isDegraded: false,
      overMaxResponseTime: false,
      error: null,
    },
    detailKey: 'apiCheckResult',
    detail,
    statusCode: 200,
  })
  const sent = outcomeToSend(
    outcome({
      request: {
        method: 'GET',
        url: 'http://t/?k=top-secret',
        headers: { authorization: 'Basic plain', 'x-a': 'b' },
      },
      response: {
        status: 200,
        headers: { 'set-cookie': 'id=1', 'x-echo': 'top-secret' },
        body: 'top-secret',
      },
    }),
    new Scrubber(['top-secret']),
    null,
  )
  assert.deepEqual(sent.detail, {
    request: {
      method: 'GET',
      url: `http://t/?k=${REDACTED}`,
      headers: { authorization: 'Basic plain', 'x-a': 'b' },
    },
    response: { status: 200, headers: { 'set-cookie': 'id=1', 'x-echo': REDACTED }, body: REDACTED },
  })
  const withNote = outcomeToSend(
    outcome({ notes: ['memory limit reached'] }),
    new Scrubber([]),
    'ran on 2025.04',
  )
  assert.deepEqual(withNote.detail, { notes: ['ran on 2025.04', 'memory limit reached'] })
  assert.equal(outcomeToSend(outcome(null), new Scrubber([]), null).detail, null)
})
