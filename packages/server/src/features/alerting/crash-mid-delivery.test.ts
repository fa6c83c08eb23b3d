import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDb } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { deploymentEnv, type ServerProcess, startServerProcess } from '../../testing/server-process.ts'

/** Polls `probe` until it answers something truthy (the deadline only bounds a broken run). */
async function until<T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> {
  const end = Date.now() + 100_000
  while (Date.now() < end) {
    const value = await probe()
    if (value) return value
    await sleep(50)
  }
  throw new Error(`gave up waiting for ${what}`)
}

/**
 * A receiver that holds the first delivery unanswered (it is in flight when the node dies) and
 * answers 200 to the ones after it.
 */
async function startHoldingReceiver(context: Parameters<typeof listenOnLoopback>[1]) {
  const received: { body: string; deliveryId: string | undefined; answered: boolean }[] = []
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const entry = {
        body: Buffer.concat(chunks).toString(),
        deliveryId: request.headers['x-svc-delivery-id'] as string | undefined,
        answered: received.length > 0,
      }
      received.push(entry)
      server.emit('delivery', entry)
      if (entry.answered) response.end('thanks')
    })
  })
  const { url } = await listenOnLoopback(server, context)
  return { url, received, server }
}

for (const engine of testEngines()) {
  describe(`a node killed mid-delivery on ${engine.engine}`, () => {
    test('takes back its delivery lease when it restarts: delivered once, before the lease would have run out', async (context) => {
      const store = await engine.createUrl()
      const receiver = await startHoldingReceiver(context)
      const target = createServer((_request, response) => {
        response.statusCode = 503
        response.end('down')
      })
      const { url: targetUrl } = await listenOnLoopback(target, context)
      const env = deploymentEnv(store.url)
      const headers = {
        authorization: `Bearer ${env.SVC_BOOTSTRAP_API_KEY}`,
        'content-type': 'application/json',
      }
      let server: ServerProcess | undefined
      try {
        server = await startServerProcess(env)
        const post = async (url: string, body: object) =>
          (await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })).json() as Promise<any>
        await post(`${server.url}/v1/alert-channels`, {
          type: 'WEBHOOK',
          config: { name: 'hook', url: `${receiver.url}/hook` },
        })
        const check = await post(`${server.url}/v1/checks/api`, {
          name: 'down',
          activated: false,
          request: { url: `${targetUrl}/` },
        })
        const firstArrived = once(receiver.server, 'delivery')
        await fetch(`${server.url}/v1/checks/${check.id}/trigger`, {
          method: 'POST',
          headers: { authorization: headers.authorization },
        })
        await firstArrived

        // The first attempt is at the receiver, unanswered, when the node dies.
        await server.stop('SIGKILL')
        server = undefined
        const direct = createDb(store.url)
        const [held] = await direct.db.selectFrom('alert_notifications').selectAll().execute()
        await direct.close()
        assert.ok(held?.lease_owner, 'the killed node held the delivery lease')
        const leaseEndMs = Number(held.lease_until_ms)

        server = await startServerProcess(env)
        const restarted = server.url
        const delivered = await until(async () => {
          const response = await fetch(`${restarted}/v1/alert-notifications/${held.id}`, { headers })
          const row = (await response.json()) as {
            deliveryStatus: string
            attempts: number
            deliveredAt: string
          }
          return row.deliveryStatus === 'DELIVERED' ? row : undefined
        }, 'the delivery after restart')
        assert.equal(await server.stop('SIGTERM'), 0)
        server = undefined

        assert.equal(delivered.attempts, 2)
        assert.ok(
          Date.parse(delivered.deliveredAt) < leaseEndMs,
          `delivered at ${delivered.deliveredAt}, before the killed node's lease ended at ${new Date(leaseEndMs).toISOString()}`,
        )
        assert.deepEqual(
          receiver.received.map((r) => r.answered),
          [false, true],
          'the attempt cut by the crash, then the one delivery',
        )
        const [cut, made] = receiver.received
        assert.equal(made?.deliveryId, cut?.deliveryId, 'one delivery id: the receiver takes it once')
        assert.equal(made?.body, cut?.body)
      } finally {
        await server?.stop('SIGKILL')
        await store.dispose()
      }
    })
  })
}
