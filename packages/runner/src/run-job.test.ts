import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, test } from 'node:test'
import { REDACTED } from '@svc/core'
import { runJob } from './run-job.ts'
import { listenOnLoopback } from './testing/loopback.ts'

const server = createServer((request, response) => {
  response.setHeader('set-cookie', 'session=abc123')
  response.setHeader('x-trace', 'visible')
  response.end(`auth was ${request.headers.authorization}`)
})
let url = ''
before(async () => {
  url = `${(await listenOnLoopback(server)).url}/`
})
after(() => server.close())

test('authorization and cookie headers never reach an HTTP outcome; other headers stay', async () => {
  const outcome = await runJob(
    {
      checkType: 'API',
      definition: {
        request: { url, method: 'GET', headers: [{ key: 'Authorization', value: 'Bearer plain-token' }] },
        degradedResponseTime: 10_000,
        maxResponseTime: 20_000,
      },
    },
    { now: () => new Date() },
  )
  const detail = outcome.detail as {
    request: { headers: Record<string, string> }
    response: { headers: Record<string, string>; body: string }
  }
  assert.equal(outcome.verdict.hasFailures, false)
  assert.equal(detail.request.headers.Authorization ?? detail.request.headers.authorization, REDACTED)
  assert.equal(detail.response.headers['set-cookie'], REDACTED)
  assert.equal(detail.response.headers['x-trace'], 'visible')
  assert.equal(detail.response.body, 'auth was Bearer plain-token', 'the target got the real header')
})
