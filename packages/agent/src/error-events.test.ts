import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Scrubber } from '@svc/core'
import { dropUrls, errorEventOf } from './error-events.ts'

test('URLs are dropped (credentials, hosts, queries); code locations stay as paths', () => {
  assert.equal(
    dropUrls('GET https://user:pw@intra.example/a?b=c failed, see http://x.test.'),
    'GET [URL] failed, see [URL]',
  )
  assert.equal(
    dropUrls('at run (file:///srv/agent/src/agent.ts:10:3)'),
    'at run (/srv/agent/src/agent.ts:10:3)',
  )
  assert.equal(dropUrls('postgres://svc:secret@db:5432/svc refused'), '[URL] refused')
})

test('an error event holds only message, stack and versions, scrubbed of secrets in any encoding', () => {
  const secret = 'sup3r-s3cret-value'
  const error = new Error(
    `call to https://api.internal/x?key=${secret} failed with ${Buffer.from(`me:${secret}`).toString('base64')} ` +
      `and ${encodeURIComponent(`${secret}/+`)}`,
  )
  const event = errorEventOf(error, new Scrubber([secret]), { version: '1.2.3' })
  assert.deepEqual(Object.keys(event).sort(), [
    'agentVersion',
    'message',
    'platform',
    'runtimeVersion',
    'stack',
  ])
  assert.equal(event.agentVersion, '1.2.3')
  assert.equal(event.runtimeVersion, process.version)
  assert.equal(event.platform, `${process.platform}-${process.arch}`)
  assert.match(event.message, /^call to \[URL\] failed with \S*\[REDACTED\]\S* and \[REDACTED\]/)
  const sent = JSON.stringify(event)
  for (const form of new Scrubber([secret]).forms) assert.ok(!sent.includes(form), form)
  assert.ok(!sent.includes('api.internal'))
  assert.match(event.stack ?? '', /error-events\.test\.ts/)

  const thrown = errorEventOf('plain string', new Scrubber([]), { version: '1.2.3' })
  assert.equal(thrown.message, 'plain string')
  assert.equal(thrown.stack, null)
})
