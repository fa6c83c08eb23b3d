import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp } from '../testing/test-app.ts'
import { formatLogLine, prettyLogStream } from './pretty-log.ts'

const TIME = Date.parse('2026-11-29T08:15:30.123Z')

test('a log entry is one line for people: time, level, message, request, then other fields', () => {
  const line = JSON.stringify({
    level: 30,
    time: TIME,
    pid: 1,
    hostname: 'h',
    reqId: 'r1',
    req: { method: 'GET', url: '/v1/checks' },
    res: { statusCode: 200 },
    responseTime: 3.25,
    msg: 'request completed',
  })
  assert.equal(
    formatLogLine(line, false),
    '08:15:30.123 INFO  request completed GET /v1/checks 200 3.3ms reqId=r1\n',
  )
  const warn = formatLogLine(JSON.stringify({ level: 40, time: TIME, msg: 'no SMTP', count: 2 }), true)
  assert.equal(warn, '\x1b[90m08:15:30.123\x1b[0m \x1b[33mWARN \x1b[0m no SMTP \x1b[90mcount=2\x1b[0m\n')
  const error = formatLogLine(
    JSON.stringify({ level: 50, time: TIME, msg: 'pruning failed', err: { stack: 'Error: x\n    at y' } }),
    false,
  )
  assert.equal(error, '08:15:30.123 ERROR pruning failed\n    Error: x\n        at y\n')
  assert.equal(formatLogLine('not json', false), 'not json')
})

test('requests are logged at debug: an info log shows none, a debug log one line each', async () => {
  const [sqlite] = testEngines()
  for (const level of ['info', 'debug']) {
    const written: string[] = []
    const out = new Writable({
      write(chunk, _encoding, done) {
        written.push(chunk.toString())
        done()
      },
    })
    const t = await createTestApp(sqlite as never, { logger: { level, stream: prettyLogStream(out) } })
    await t.call({ method: 'GET', url: '/v1/checks' })
    await t.close()
    const requestLines = written.filter((line) => line.includes('GET /v1/checks'))
    assert.equal(requestLines.length, level === 'debug' ? 1 : 0, level)
    if (level === 'debug')
      assert.match(requestLines[0] as string, /DEBUG request completed GET \/v1\/checks 200 [\d.]+ms/)
  }
})
