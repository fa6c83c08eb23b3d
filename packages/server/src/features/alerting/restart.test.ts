import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDb } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { deploymentEnv, type ServerProcess, startServerProcess } from '../../testing/server-process.ts'
import { startReceiver } from './testing.ts'

const SECRET = 'restart-secret'

/** Polls `probe` until it answers something truthy (the deadline only bounds a broken run). */
async function until<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  deadlineMs = 60_000,
): Promise<T> {
  const end = Date.now() + deadlineMs
  while (Date.now() < end) {
    const value = await probe()
    if (value) return value
    await sleep(50)
  }
  throw new Error(`gave up waiting for ${what}`)
}

for (const engine of testEngines()) {
  describe(`alert delivery across a server crash on ${engine.engine}`, () => {
    test('a server killed between retries resumes them after restart: delivered exactly once', async (context) => {
      const store = await engine.createUrl()
      const receiver = await startReceiver(SECRET)
      const target = createServer((_request, response) => {
        response.statusCode = 503
        response.end('down')
      })
      const { url: targetUrl } = await listenOnLoopback(target, context)
      const env = deploymentEnv(store.url)
      const key = env.SVC_BOOTSTRAP_API_KEY
      let server: ServerProcess | undefined
      try {
        server = await startServerProcess(env)
        const base = server.url
        const call = async (method: string, path: string, body?: object) => {
          const response = await fetch(`${base}${path}`, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            body: body ? JSON.stringify(body) : undefined,
          })
          return { status: response.status, body: (await response.json()) as any }
        }
        const channel = await call('POST', '/v1/alert-channels', {
          type: 'WEBHOOK',
          config: { name: 'hook', url: `${receiver.url}/hook`, webhookSecret: SECRET },
        })
        assert.equal(channel.status, 201)
        const check = await call('POST', '/v1/checks/api', {
          name: 'down',
          activated: false,
          request: { url: `${targetUrl}/` },
        })
        assert.equal(check.status, 201)

        receiver.failNext(1)
        const triggered = await call('POST', `/v1/checks/${check.body.id}/trigger`)
        assert.equal(triggered.body.hasFailures, true)
        const first = await until(async () => {
          const list = await call('GET', `/v1/alert-notifications?checkId=${check.body.id}`)
          const [row] = list.body
          return row?.attempts === 1 && row.deliveryStatus === 'PENDING' && row.lastResponse ? row : undefined
        }, 'the first attempt')
        assert.equal(receiver.received.length, 1, JSON.stringify(first.lastResponse))

        // Killed between the failed attempt and its retry; time passes while it is down.
        await server.stop('SIGKILL')
        server = undefined
        const direct = createDb(store.url)
        await direct.db
          .updateTable('alert_notifications')
          .set({ next_attempt_ms: Date.now() })
          .where('id', '=', first.id)
          .execute()
        await direct.close()

        server = await startServerProcess(env)
        const restarted = server.url
        const delivered = await until(async () => {
          const response = await fetch(`${restarted}/v1/alert-notifications/${first.id}`, {
            headers: { authorization: `Bearer ${key}` },
          })
          const row = (await response.json()) as { deliveryStatus: string; attempts: number }
          return row.deliveryStatus === 'DELIVERED' ? row : undefined
        }, 'the retry after restart')
        assert.equal(delivered.attempts, 2)
        await server.stop('SIGTERM')
        server = undefined
        assert.equal(receiver.received.length, 2, 'one failed attempt, one delivery, nothing more')
        assert.ok(receiver.received.every((r) => r.signatureValid === true))
        const [one, two] = receiver.received
        assert.equal(one?.body, two?.body, 'the same event both times')
      } finally {
        await server?.stop('SIGKILL')
        await receiver.close()
        await store.dispose()
      }
    })
  })
}
