import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type Readiness, startHealthServer } from './health.ts'

test('probes: readiness follows the agent; liveness and health always 200', async () => {
  let state: Readiness = 'starting'
  const { server, port } = await startHealthServer(0, () => state)
  const get = async (path: string, method = 'GET') => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method })
    return { status: response.status, body: await response.text() }
  }
  try {
    assert.deepEqual(await get('/-/readiness'), { status: 503, body: '{"status":"starting"}' })
    state = 'ready'
    assert.deepEqual(await get('/-/readiness'), { status: 200, body: '{"status":"ready"}' })
    assert.equal((await get('/-/readiness', 'HEAD')).status, 200)
    state = 'not polling'
    assert.equal((await get('/-/readiness')).status, 503)
    state = 'shutting down'
    assert.deepEqual(await get('/-/readiness'), { status: 503, body: '{"status":"shutting down"}' })
    for (const path of ['/-/liveness', '/health', '/health?x=1'])
      assert.deepEqual(await get(path), { status: 200, body: '{"status":"ok"}' })
    assert.equal((await get('/other')).status, 404)
    assert.equal((await get('/health', 'POST')).status, 405)
  } finally {
    server.close()
  }
})

test('a port in use is an error at start', async () => {
  const { server, port } = await startHealthServer(0, () => 'ready')
  try {
    await assert.rejects(
      startHealthServer(port, () => 'ready'),
      /EADDRINUSE/,
    )
  } finally {
    server.close()
  }
})
