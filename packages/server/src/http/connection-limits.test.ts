import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { connect, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import type { ConnectionLimits } from './connection-limits.ts'

/** Short limits, so that each is seen to act; the long-poll below waits longer than the request timeout. */
const LIMITS: ConnectionLimits = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  idleTimeoutMs: 10_000,
  maxConnections: 4,
}

/** A raw connection to `port` and everything the server sent over it until it closed it. */
async function rawConnection(port: number): Promise<{ socket: Socket; closed: Promise<string> }> {
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  const closed = once(socket, 'close').then(() => Buffer.concat(chunks).toString())
  await once(socket, 'connect')
  return { socket, closed }
}

/** Sends one whole request over `socket` and waits for its answer's first bytes. */
async function answerOver(socket: Socket, request: string): Promise<string> {
  const data = once(socket, 'data')
  socket.write(request)
  return String((await data)[0])
}

for (const engine of testEngines()) {
  describe(`connection limits of a listening server on ${engine.engine}`, () => {
    let t: TestApp
    let port: number
    before(async () => {
      t = await createTestApp(engine, { connectionLimits: LIMITS })
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      port = (t.app.server.address() as AddressInfo).port
    })
    after(() => t.close())

    test('a request whose headers never end is answered 408 and closed after the headers timeout', async () => {
      const { socket, closed } = await rawConnection(port)
      socket.write('GET /v1/locations HTTP/1.1\r\nHost: svc.test\r\nX-Slow: ')
      assert.match(await closed, /^HTTP\/1\.1 408 /)
    })

    test('a connection that sends nothing is closed after the headers timeout', async () => {
      const { closed } = await rawConnection(port)
      assert.match(await closed, /^(HTTP\/1\.1 408 |$)/)
    })

    test('a request whose body never ends is answered 408 and closed after the request timeout', async () => {
      const { socket, closed } = await rawConnection(port)
      socket.write(
        'POST /v1/checks HTTP/1.1\r\nHost: svc.test\r\n' +
          `Authorization: Bearer ${t.owner.key}\r\nContent-Type: application/json\r\n` +
          'Content-Length: 1000\r\n\r\n{"name": "slow',
      )
      assert.match(await closed, /^HTTP\/1\.1 408 /)
    })

    test('the agents’ long-poll waits longer than the request timeout and is answered', async () => {
      const location = json(
        await t.call({
          method: 'POST',
          url: '/v1/private-locations',
          payload: { name: 'Lab', slugName: 'lab' },
        }),
      )
      const { rawKey } = json(
        await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }),
      )
      const { socket } = await rawConnection(port)
      // A second, the least waitSeconds above 0, is longer than the request timeout (600 ms).
      const answer = await answerOver(
        socket,
        'GET /agent/v1/jobs?waitSeconds=1 HTTP/1.1\r\nHost: svc.test\r\n' +
          `Authorization: Bearer ${rawKey}\r\nX-Svc-Agent-Id: ${randomUUID()}\r\n\r\n`,
      )
      socket.destroy()
      assert.match(answer, /^HTTP\/1\.1 200 /)
      assert.match(answer, /\r\n\r\n\[\]$/)
    })
  })

  describe(`the connection cap on ${engine.engine}`, () => {
    let t: TestApp
    let port: number
    before(async () => {
      // Long timeouts: the connections held below must stay open until the test ends them.
      const limits = { ...LIMITS, headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, maxConnections: 3 }
      t = await createTestApp(engine, { connectionLimits: limits })
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      port = (t.app.server.address() as AddressInfo).port
    })
    after(() => t.close())

    test('a connection past the cap is closed unanswered while those held are served', async () => {
      const ping = 'GET /v1/locations HTTP/1.1\r\nHost: svc.test\r\nAuthorization: Bearer KEY\r\n\r\n'
      const request = ping.replace('KEY', t.owner.key)
      const held: Socket[] = []
      for (let i = 0; i < 3; i++) {
        const { socket } = await rawConnection(port)
        // Answered: the server holds this connection (kept alive).
        assert.match(await answerOver(socket, request), /^HTTP\/1\.1 200 /)
        held.push(socket)
      }
      const extra = await rawConnection(port)
      extra.socket.write(request)
      assert.equal(await extra.closed, '')
      assert.match(await answerOver(held[0] as Socket, request), /^HTTP\/1\.1 200 /)
      for (const socket of held) socket.destroy()
    })
  })
}
