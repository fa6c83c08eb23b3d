import assert from 'node:assert/strict'
import { json, type TestApp } from './test-app.ts'

/**
 * A webhook channel to port 9 on loopback, where nothing listens: checks can subscribe to it and their
 * alerts are recorded without a receiver to start (each delivery fails). Gives its id.
 */
export async function unreachableWebhookChannel(t: TestApp): Promise<number> {
  const channel = await t.call({
    method: 'POST',
    url: '/v1/alert-channels',
    payload: { type: 'WEBHOOK', config: { name: 'hook', url: 'http://127.0.0.1:9/hook' } },
  })
  assert.equal(channel.statusCode, 201, channel.body)
  return json(channel).id
}
