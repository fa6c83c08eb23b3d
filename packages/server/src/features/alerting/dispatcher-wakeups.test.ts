import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { listenForWakeups } from '../../wakeups.ts'
import { nextNotificationDueMs } from './alert-notifications.repo.ts'
import { createDispatcher, RETRY_DELAY_MS } from './dispatcher.ts'
import { storeResult } from './testing.ts'

/** Longer than any test here: a dispatcher that delivers did so on a wake-up, not on its own look. */
const NEVER_MS = 3_600_000

/** A webhook receiver whose deliveries are awaited; `failNext` answers 500 to the next ones. */
async function receiver() {
  const bodies: string[] = []
  const waiting = new Set<() => void>()
  let failNext = 0
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      response.statusCode = failNext-- > 0 ? 500 : 200
      response.end()
      for (const wake of waiting) wake()
    })
  })
  const { url } = await listenOnLoopback(server)
  return {
    url,
    failNext: (count: number) => {
      failNext = count
    },
    /** Resolves once `count` deliveries came in. */
    async received(count: number): Promise<string[]> {
      while (bodies.length < count) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiting.delete(wake)
            resolve()
          }
          waiting.add(wake)
        })
      }
      return bodies
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}

for (const engine of testEngines()) {
  describe(`a started dispatcher waits on work, not on a timer, on ${engine.engine}`, () => {
    let t: TestApp
    let hooks: Awaited<ReturnType<typeof receiver>>
    let wakeups: ReturnType<typeof listenForWakeups>
    const nowMs = Date.parse('2026-11-29T09:00:00.000Z')
    before(async () => {
      hooks = await receiver()
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      // As main.ts does: on PostgreSQL, wake-ups raised in a transaction come back through the store.
      wakeups = listenForWakeups(t.store.url, { warn: () => {} })
      await wakeups.ready
    })
    after(async () => {
      await wakeups.close()
      await t.close()
      await hooks.close()
    })

    /** An inactive API check that alerts a webhook channel of the receiver. */
    const alertingCheck = async (name: string) => {
      const channel = json(
        await t.call({
          method: 'POST',
          url: '/v1/alert-channels',
          payload: { type: 'WEBHOOK', config: { name, url: `${hooks.url}/${name}` } },
        }),
      )
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/api?autoAssignAlerts=false',
          payload: {
            name,
            activated: false,
            request: { url: 'https://shop.example.com/' },
            alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
          },
        }),
      )
      return { id: check.id as string, accountId: t.owner.accountId }
    }

    test('a stopped dispatcher reads nothing more, so its store may close as soon as stop() resolves', async () => {
      const own = await createTestApp(engine)
      const errors: string[] = []
      const node = createDispatcher(own.ctx, {
        fallbackMs: NEVER_MS,
        log: { error: (_details, message) => errors.push(message) },
      })
      // Its first pass ends after stop(): it must not then look for its next due time.
      node.start()
      await node.stop()
      await own.close()
      await new Promise((later) => setTimeout(later, 100))
      assert.deepEqual(errors, [])
    })

    test('an alert queued in this process goes out at once; a refused one is planned for its retry', async () => {
      const subject = await alertingCheck('here')
      const node = createDispatcher(t.ctx, {
        fallbackMs: NEVER_MS,
        log: { error: (details) => assert.fail(String((details as { err: unknown }).err)) },
      })
      node.start()
      try {
        hooks.failNext(1)
        await storeResult(t.ctx, subject, { status: 'failing' })
        const [body] = await hooks.received(1)
        assert.ok(body?.includes(subject.id), body)
        // Stopping waits for the attempt to be recorded: the next pass is due at its retry.
        await node.stop()
        assert.equal(await nextNotificationDueMs(t.ctx), nowMs + RETRY_DELAY_MS)
      } finally {
        await node.stop()
      }
    })

    if (engine.engine === 'postgres') {
      test('an alert another process queues on the same store wakes it (NOTIFY), with no look of its own', async () => {
        const subject = await alertingCheck('elsewhere')
        // A real notification row, taken out of the outbox before the dispatcher starts...
        await storeResult(t.ctx, subject, { status: 'failing' })
        const row = await t.ctx.db
          .selectFrom('alert_notifications')
          .selectAll()
          .where('check_id', '=', subject.id)
          .executeTakeFirstOrThrow()
        await t.ctx.db.deleteFrom('alert_notifications').where('id', '=', row.id).execute()
        const before = (await hooks.received(0)).length
        const node = createDispatcher(t.ctx, {
          fallbackMs: NEVER_MS,
          log: { error: (details) => assert.fail(String((details as { err: unknown }).err)) },
        })
        node.start()
        try {
          // ...and queued again by another process, through the outbox's one insert.
          await queueFromAnotherProcess(t.store.url, { ...row, id: randomUUID() })
          const bodies = await hooks.received(before + 1)
          assert.ok(bodies.at(-1)?.includes(subject.id), bodies.at(-1))
        } finally {
          await node.stop()
        }
      })
    }
  })
}

const REPO = fileURLToPath(new URL('./alert-notifications.repo.ts', import.meta.url))

/** Runs `insertNotifications` in a process of its own on the store at `url`. */
async function queueFromAnotherProcess(url: string, row: object): Promise<void> {
  const script = `
    import { createDb } from '@svc/db'
    import { insertNotifications } from ${JSON.stringify(REPO)}
    const store = createDb(process.env.STORE_URL)
    await insertNotifications({ db: store.db, engine: store.engine }, [JSON.parse(process.env.ROW)])
    await store.close()`
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script],
    {
      env: { ...process.env, STORE_URL: url, ROW: JSON.stringify(row) },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const [code] = await once(child, 'exit')
  assert.equal(code, 0, stderr)
}
