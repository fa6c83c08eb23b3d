import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { describe, test } from 'node:test'
import { createDb } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { deploymentEnv, type ServerProcess, startServerProcess } from './testing/server-process.ts'

/** Real server processes on one store: first start, shared rate limits, durability, shutdown. */
for (const engine of testEngines()) {
  describe(`server processes on ${engine.engine}`, () => {
    const baseEnv = async () => {
      const store = await engine.createUrl()
      return { env: deploymentEnv(store.url), storeUrl: store.url, dispose: store.dispose }
    }

    test('first start prints the account and key once; a second start reuses the data', async () => {
      const { env, dispose } = await baseEnv()
      const { SVC_BOOTSTRAP_API_KEY: _preset, ...withoutPreset } = env
      let server: ServerProcess | undefined
      try {
        server = await startServerProcess(withoutPreset)
        assert.match(server.output(), /svc is running at http:\/\/localhost:\d+/)
        // Without SVC_SMTP_URL the subscribe form still promises a link: the log says where it went (logs
        // are written asynchronously, so they may come after the lines printed when ready).
        await server.waitForOutput('SVC_SMTP_URL is not set')
        assert.match(
          server.output(),
          /SVC_SMTP_URL is not set: status page subscribers get no mail \(confirmations and updates wait in the store until a server with it starts\) and EMAIL alert channels fail/,
        )
        assert.ok(server.accountId)
        assert.match(server.apiKey ?? '', /^svc_[A-Za-z0-9_-]{43}$/)
        const key = server.apiKey ?? ''
        const me = await fetch(`${server.url}/v1/accounts/me`, { headers: bearer(key) })
        assert.equal(me.status, 200)
        const account = (await me.json()) as Record<string, unknown>
        assert.equal(account.id, server.accountId)
        assert.equal(account.name, 'Default')
        assert.equal(account.runtimeId, '2025.04')
        assert.deepEqual(Object.keys(account).sort(), [
          'alertSettings',
          'id',
          'name',
          'runtimeId',
          'settings',
        ])
        // The banner names the dashboard and a one-time link that sets the owner's password.
        assert.match(
          server.output(),
          /dashboard: +(http:\/\/localhost:\d+\/|not built: run npm run build -w @svc\/web)/,
        )
        const link = server.output().match(/password: +(http\S+\/set-password\?token=\S+)/)?.[1] ?? ''
        const token = new URL(link).searchParams.get('token')
        const password = 'a password for the owner'
        const set = await fetch(`${server.url}/v1/auth/password`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token, password }),
        })
        assert.equal(set.status, 204)
        const signedIn = await fetch(`${server.url}/v1/auth/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'owner@localhost', password }),
        })
        assert.equal(signedIn.status, 200)
        assert.equal(await server.stop('SIGTERM'), 0)

        server = await startServerProcess(withoutPreset)
        assert.doesNotMatch(server.output(), /set-password/)
        assert.equal(server.apiKey, undefined)
        assert.equal(server.accountId, undefined)
        const again = await fetch(`${server.url}/v1/accounts/me`, { headers: bearer(key) })
        assert.equal(again.status, 200)
        assert.equal(((await again.json()) as { id: string }).id, account.id)
      } finally {
        await server?.stop('SIGKILL')
        await dispose()
      }
    })

    test('a first start on a port in use says so, and the next start still prints the first key', async () => {
      const { env, dispose } = await baseEnv()
      const { SVC_BOOTSTRAP_API_KEY: _preset, ...withoutPreset } = env
      const taken = createServer()
      const { port: busyPort } = await listenOnLoopback(taken)
      let server: ServerProcess | undefined
      try {
        await assert.rejects(
          startServerProcess({ ...withoutPreset, PORT: String(busyPort) }),
          (error: Error) => {
            assert.match(error.message, /exited with 1 before it was ready/)
            assert.match(
              error.message,
              new RegExp(
                `svc: PORT ${busyPort} is in use on 127\\.0\\.0\\.1: stop what listens there or set PORT to a free port`,
              ),
            )
            assert.doesNotMatch(error.message, /API key:|at Server\./, 'no key printed, no stack trace')
            return true
          },
        )
        server = await startServerProcess(withoutPreset)
        assert.match(
          server.apiKey ?? '',
          /^svc_[A-Za-z0-9_-]{43}$/,
          'the first key is printed once it serves',
        )
        const me = await fetch(`${server.url}/v1/accounts/me`, { headers: bearer(server.apiKey ?? '') })
        assert.equal(me.status, 200)
        assert.equal(((await me.json()) as { id: string }).id, server.accountId)
      } finally {
        taken.close()
        await server?.stop('SIGKILL')
        await dispose()
      }
    })

    test('a HOST that is no address of this machine stops the start saying so, without a stack trace', async () => {
      const { env, dispose } = await baseEnv()
      try {
        for (const host of ['198.51.100.1', 'nowhere.invalid']) {
          await assert.rejects(startServerProcess({ ...env, HOST: host }), (error: Error) => {
            assert.match(
              error.message,
              new RegExp(
                `svc: HOST ${host.replaceAll('.', '\\.')} is not an address of this machine: set HOST to one of its addresses \\(0\\.0\\.0\\.0: all of them\\)`,
              ),
            )
            assert.doesNotMatch(error.message, /\n +at /, 'no stack trace')
            return true
          })
        }
      } finally {
        await dispose()
      }
    })

    test('two processes share one rate-limit window: exactly 600 of 700 requests pass', async () => {
      const { env, dispose } = await baseEnv()
      const servers: ServerProcess[] = []
      try {
        servers.push(await startServerProcess(env))
        // The key the user chose is not printed: the first start says where it is.
        const firstOutput = servers[0]?.output() ?? ''
        assert.match(firstOutput, /API key: +the one set in SVC_BOOTSTRAP_API_KEY \(not printed\)/)
        assert.match(firstOutput, /curl -H "Authorization: Bearer \$SVC_BOOTSTRAP_API_KEY" http/)
        assert.equal(firstOutput.includes(env.SVC_BOOTSTRAP_API_KEY), false, 'the chosen key is not printed')
        assert.doesNotMatch(firstOutput, /shown once/)
        assert.ok(servers[0]?.accountId)
        servers.push(await startServerProcess(env))
        const key = env.SVC_BOOTSTRAP_API_KEY
        const statuses: number[] = []
        const remaining: number[] = []
        const limited: { body: Record<string, unknown>; retryAfter: string | null }[] = []
        let next = 0
        const worker = async () => {
          while (next < 700) {
            const n = next++
            const server = servers[n % 2] as ServerProcess
            const res = await fetch(`${server.url}/v1/accounts/me`, { headers: bearer(key) })
            statuses.push(res.status)
            remaining.push(Number(res.headers.get('x-ratelimit-remaining')))
            const body = (await res.json()) as Record<string, unknown>
            if (res.status === 429) limited.push({ body, retryAfter: res.headers.get('retry-after') })
          }
        }
        await Promise.all(Array.from({ length: 50 }, worker))
        assert.equal(statuses.filter((s) => s === 200).length, 600)
        assert.equal(statuses.filter((s) => s === 429).length, 100)
        assert.equal(Math.min(...remaining), 0)
        const sample = limited[0]
        assert.ok(sample)
        assert.equal(sample.body.statusCode, 429)
        assert.equal(sample.body.error, 'Too Many Requests')
        const attributes = sample.body.attributes as Record<string, number>
        assert.equal(attributes.limit, 600)
        assert.equal(attributes.windowSeconds, 60)
        assert.ok((attributes.retryAfterSeconds ?? 0) > 0 && (attributes.retryAfterSeconds ?? 0) <= 60)
        assert.equal(sample.retryAfter, String(attributes.retryAfterSeconds))
      } finally {
        await Promise.all(servers.map((s) => s.stop('SIGKILL')))
        await dispose()
      }
    })

    test('a resource answered with 201 survives SIGKILL; SIGTERM exits 0', async () => {
      const { env, dispose } = await baseEnv()
      let server: ServerProcess | undefined
      try {
        server = await startServerProcess(env)
        const key = env.SVC_BOOTSTRAP_API_KEY
        const headers = { ...bearer(key), 'content-type': 'application/json' }
        const plain = await fetch(`${server.url}/v1/variables`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ key: 'PLAIN', value: 'visible' }),
        })
        const locked = await fetch(`${server.url}/v1/variables`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ key: 'LOCKED', value: 'hidden', locked: true }),
        })
        assert.equal(plain.status, 201)
        assert.equal(locked.status, 201)
        assert.equal(await server.stop('SIGKILL'), null)

        server = await startServerProcess(env)
        const list = await fetch(`${server.url}/v1/variables`, { headers: bearer(key) })
        const variables = (await list.json()) as { key: string; value: string; locked: boolean }[]
        assert.deepEqual(
          variables.map(({ key, value, locked }) => ({ key, value, locked })),
          [
            { key: 'LOCKED', value: '***masked***', locked: true },
            { key: 'PLAIN', value: 'visible', locked: false },
          ],
        )
        assert.equal(await server.stop('SIGTERM'), 0)
      } finally {
        await server?.stop('SIGKILL')
        await dispose()
      }
    })

    test('SIGTERM: no new requests at once, while the scheduled run in flight finishes and is stored; exit 0', async (context) => {
      const { env, storeUrl, dispose } = await baseEnv()
      let releaseTarget: () => void = () => {}
      const targetHit = Promise.withResolvers<void>()
      const target = createServer((_request, response) => {
        targetHit.resolve()
        releaseTarget = () => response.end('late but fine')
      })
      const { url: targetUrl } = await listenOnLoopback(target, context)
      let server: ServerProcess | undefined
      const store = createDb(storeUrl)
      try {
        server = await startServerProcess(env)
        const key = env.SVC_BOOTSTRAP_API_KEY
        const created = await fetch(`${server.url}/v1/checks/url`, {
          method: 'POST',
          headers: { ...bearer(key), 'content-type': 'application/json' },
          body: JSON.stringify({
            name: 'slow',
            frequency: 1,
            doubleCheck: false,
            request: { url: `${targetUrl}/` },
          }),
        })
        const check = (await created.json()) as { id: string }
        // Due now rather than at its offset in the minute: the scheduler claims it within a tick.
        await store.db
          .updateTable('check_schedules')
          .set({ next_due_ms: Date.now() })
          .where('check_id', '=', check.id)
          .execute()
        await targetHit.promise
        const exited = server.stop('SIGTERM')
        // A liveness wait, not a timing assertion: requests are refused soon after the signal, while
        // the run is still waiting on its target.
        let refused = false
        for (let i = 0; i < 200 && !refused; i++) {
          const answer = await fetch(`${server.url}/v1/accounts/me`, { headers: bearer(key) }).catch(
            () => null,
          )
          refused = answer === null || answer.status === 503
          if (!refused) await new Promise((tick) => setTimeout(tick, 25))
        }
        assert.ok(refused, 'new requests are refused once shutdown begins')
        releaseTarget()
        assert.equal(await exited, 0)
        const results = await store.db
          .selectFrom('check_results')
          .select(['check_id', 'has_failures'])
          .where('check_id', '=', check.id)
          .execute()
        assert.deepEqual(
          results.map((r) => [r.check_id, Boolean(r.has_failures)]),
          [[check.id, false]],
          'the run that finished during shutdown is stored',
        )
      } finally {
        await server?.stop('SIGKILL')
        await store.close()
        await dispose()
      }
    })
  })
}

function bearer(key: string) {
  return { authorization: `Bearer ${key}` }
}
