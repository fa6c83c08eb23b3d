import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Scrubber } from '@svc/core'
import { createDb } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import {
  browserTestsSkipReason,
  ffmpegSkipReason,
  listenOnLoopback,
  readZip,
  startRecordingProxy,
} from '@svc/runner/testing'
import { type AgentProcess, startAgentProcess } from './testing/agent-process.ts'
import { pidOfClient } from './testing/client-pid.ts'
import { deploymentEnv, type ServerProcess, startServerProcess } from './testing/server-process.ts'

const skip = browserTestsSkipReason()

const BROWSER_SCRIPT = `
const { test, expect } = require('@playwright/test')
test.use({ video: 'retain-on-failure' })
test('wrong heading', async ({ page }) => {
  console.log('token is ' + process.env.PAGE_TOKEN + ' in ' + process.env.SVC_RUN_LOCATION)
  await page.goto(process.env.SITE_URL)
  await expect(page.locator('h1')).toHaveText('Goodbye', { timeout: 500 })
})`

/**
 * A real server and real agent processes of one private location, on loopback: the agents share the
 * location's runs, a killed agent's run goes to the other once its lease runs out, SIGTERM drains, a
 * revoked key stops an agent, and what an agent sends through a proxy holds no secret.
 */
describe('svc agent processes', { concurrency: true }, () => {
  for (const engine of testEngines()) {
    describe(`on ${engine.engine}`, { concurrency: false }, () => {
      let store: { url: string; dispose(): Promise<void> }
      let server: ServerProcess
      let target: Target
      let location: { id: string; slugName: string }
      let agentKey = ''
      const apiKey = `svc_${randomBytes(32).toString('base64url')}`
      const agents: AgentProcess[] = []

      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${apiKey}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        const text = await response.text()
        return { status: response.status, body: text ? JSON.parse(text) : undefined }
      }
      const newKey = async () => (await call('POST', `/v1/private-locations/${location.id}/keys`, {})).body
      const startAgent = async (
        env: Record<string, string> = {},
        options?: { wait?: 'ready' | 'live' | 'none' },
      ) => {
        const agent = await startAgentProcess(
          { API_KEY: agentKey, SVC_API_URL: server.url, JOB_CONCURRENCY: '2', ...env },
          options,
        )
        agents.push(agent)
        return agent
      }
      const createCheck = async (
        name: string,
        path: string,
        headers: { key: string; value: string }[] = [],
      ) => {
        const created = await call('POST', '/v1/checks/api', {
          name,
          activated: false,
          locations: [],
          privateLocations: [location.slugName],
          doubleCheck: false,
          request: { url: `${target.url}${path}`, method: 'GET', headers },
        })
        assert.equal(created.status, 201, JSON.stringify(created.body))
        return created.body.id as string
      }
      const trigger = (checkId: string) => call('POST', `/v1/checks/${checkId}/trigger`)
      const resultsOf = async (checkId: string) => (await call('GET', `/v1/check-results/${checkId}`)).body
      const pidOf = (agent: AgentProcess) => agent.child.pid ?? -1

      before(async () => {
        store = await engine.createUrl()
        target = await startTarget(() => agents.map(pidOf))
        server = await startServerProcess({
          ...deploymentEnv(store.url),
          SVC_BOOTSTRAP_API_KEY: apiKey,
          SVC_RUNNER_LEASE_SECONDS: '3',
        })
        const created = await call('POST', '/v1/private-locations', { name: 'Lab', slugName: 'lab' })
        assert.equal(created.status, 201)
        location = created.body
        agentKey = (await newKey()).rawKey
      })
      after(async () => {
        await Promise.all(agents.map((agent) => agent.stop('SIGKILL')))
        await server?.stop('SIGKILL')
        target?.close()
        await store?.dispose()
      })

      test('two agents share the location’s runs; each run is stored once', async () => {
        const [first, second] = [await startAgent(), await startAgent()]
        const listed = (await call('GET', `/v1/private-locations/${location.id}`)).body
        assert.equal(listed.healthy, true)
        assert.deepEqual(
          listed.agents.map((a: { id: string }) => a.id).sort(),
          [first.id, second.id].sort(),
          'both agents registered with a heartbeat',
        )
        const checks = await Promise.all(
          Array.from({ length: 12 }, (_, n) => createCheck(`split ${n}`, `/slow/split-${n}`)),
        )
        const answers = await Promise.all(checks.map(trigger))
        for (const [n, answer] of answers.entries()) {
          assert.equal(answer.status, 200, JSON.stringify(answer.body))
          assert.equal(answer.body.runLocation, 'lab')
          assert.equal(answer.body.hasFailures, false)
          assert.equal(answer.body.apiCheckResult.response.status, 200)
          assert.equal(answer.body.apiCheckResult.response.body, `slow split-${n}`)
        }
        for (const check of checks) assert.equal((await resultsOf(check)).length, 1)
        const hits = target.hits.filter((hit) => hit.path.startsWith('/slow/split-'))
        assert.equal(hits.length, 12, 'each run reached the target once')
        const [ofFirst = 0, ofSecond = 0] = [first, second].map(
          (agent) => hits.filter((hit) => hit.pid === pidOf(agent)).length,
        )
        assert.equal(ofFirst + ofSecond, 12, `runs per agent: ${ofFirst}, ${ofSecond}`)
        assert.ok(ofFirst > 0 && ofSecond > 0, `runs per agent: ${ofFirst}, ${ofSecond}`)
        await Promise.all([first, second].map((agent) => agent.stop('SIGTERM')))
      })

      test('an agent killed mid-run loses its lease; the other agent re-runs the job, stored once', async () => {
        const pair = [await startAgent(), await startAgent()]
        const check = await createCheck('hangs once', '/hang-once/kill')
        const answer = trigger(check)
        const hit = await target.waitForHit('/hang-once/kill')
        const victim = pair.find((agent) => pidOf(agent) === hit.pid)
        assert.ok(victim, 'an agent took the run')
        const survivor = pair.find((agent) => agent !== victim) as AgentProcess
        assert.equal(await victim.stop('SIGKILL'), null)
        const { status, body } = await answer
        assert.equal(status, 200, JSON.stringify(body))
        assert.equal(body.hasFailures, false)
        const hits = target.hits.filter((h) => h.path === '/hang-once/kill')
        assert.deepEqual(
          hits.map((h) => h.pid),
          [pidOf(victim), pidOf(survivor)],
          'the survivor re-ran it after the lease',
        )
        assert.equal((await resultsOf(check)).length, 1, 'stored once')
        assert.equal(await survivor.stop('SIGTERM'), 0)
      })

      test('SIGTERM: readiness 503 while liveness stays 200, the running job’s result arrives, exit 0', async () => {
        const agent = await startAgent()
        assert.equal(await agent.probe('/-/readiness'), 200)
        const check = await createCheck('held', '/hold/drain')
        const answer = trigger(check)
        await target.waitForHit('/hold/drain')
        agent.child.kill('SIGTERM')
        while ((await agent.probe('/-/readiness')) !== 503) await sleep(20)
        assert.equal(await agent.probe('/-/liveness'), 200)
        assert.equal(await agent.probe('/health'), 200)
        assert.equal(agent.child.exitCode, null, 'still finishing its job')
        target.release('/hold/drain')
        const { status, body } = await answer
        assert.equal(status, 200, JSON.stringify(body))
        assert.equal(body.apiCheckResult.response.body, 'held /hold/drain')
        assert.equal(await agent.exited, 0, agent.output())
        assert.equal((await resultsOf(check)).length, 1)
        const listed = (await call('GET', `/v1/private-locations/${location.id}`)).body
        assert.ok(agent.id)
        assert.ok(!listed.agents.some((a: { id: string }) => a.id === agent.id), 'the agent said goodbye')
      })

      test('a job still running when the grace ends is left to another agent, stored once', async () => {
        const leaving = await startAgent({ SHUTDOWN_GRACE_SECONDS: '1' })
        const check = await createCheck('outlives the grace', '/hold/grace')
        const answer = trigger(check)
        await target.waitForHit('/hold/grace')
        assert.equal(await leaving.stop('SIGTERM'), 0)
        assert.match(leaving.output(), /1 job\(s\) did not finish within the grace/)
        const taking = await startAgent()
        while (target.hits.filter((h) => h.path === '/hold/grace').length < 2) await sleep(20)
        target.release('/hold/grace')
        const { status, body } = await answer
        assert.equal(status, 200, JSON.stringify(body))
        assert.equal(body.apiCheckResult.response.body, 'held /hold/grace')
        assert.equal((await resultsOf(check)).length, 1)
        assert.equal(await taking.stop('SIGTERM'), 0)
      })

      /**
       * One agent for these script checks: an agent process warms each account's compile cache up and
       * starts its Chromium on the account's first script run, once. (The proxy tests start their own:
       * a long poll in flight hands out the location as it was when the poll began.)
       */
      describe('script checks on one agent', { skip }, () => {
        let agent: AgentProcess
        before(async () => {
          agent = await startAgent()
        })
        after(async () => {
          assert.equal(await agent.stop('SIGTERM'), 0, agent.output())
        })

        test('a browser check on an agent: screenshot, trace and video uploaded, secrets scrubbed', {
          skip,
        }, async () => {
          const secret = `tok-${randomBytes(9).toString('hex')}`
          await call('POST', '/v1/variables', { key: 'PAGE_TOKEN', value: secret, secret: true })
          await call('POST', '/v1/variables', { key: 'SITE_URL', value: `${target.url}/page` })
          const created = await call('POST', '/v1/checks/browser', {
            name: 'wrong heading',
            activated: false,
            locations: [],
            privateLocations: [location.slugName],
            doubleCheck: false,
            runtimeId: '2024.09',
            script: BROWSER_SCRIPT,
          })
          assert.equal(created.status, 201, JSON.stringify(created.body))
          const { status, body } = await trigger(created.body.id)
          assert.equal(status, 200, JSON.stringify(body))
          assert.equal(body.runLocation, 'lab')
          assert.equal(body.hasFailures, true)
          assert.equal(body.error.type, 'ASSERTION', JSON.stringify(body.browserCheckResult.errors))
          const detail = body.browserCheckResult
          const log = detail.logs.map((entry: { text: string }) => entry.text).join('\n')
          assert.match(log, /token is \[REDACTED\] in lab/)
          assert.equal(detail.runtimeId, '2025.04')
          assert.equal(
            detail.notes[0],
            'Runtime 2024.09 is not available on private-location agents: ran on 2025.04',
          )
          const download = async (url: string) => {
            const response = await fetch(url.replace(/^https?:\/\/[^/]+/, server.url), {
              headers: { authorization: `Bearer ${apiKey}` },
            })
            return {
              status: response.status,
              type: response.headers.get('content-type'),
              bytes: Buffer.from(await response.arrayBuffer()),
            }
          }
          const trace = await download(detail.traceUrl)
          assert.equal(trace.status, 200)
          assert.equal(trace.bytes.subarray(0, 2).toString(), 'PK')
          const shot = detail.screenshots.find((s: { onFailure: boolean }) => s.onFailure)
          assert.ok(shot, 'a screenshot on failure')
          const image = await download(shot.url)
          assert.equal(image.status, 200)
          assert.deepEqual([...image.bytes.subarray(1, 4)], [...Buffer.from('PNG')])
          for (const bytes of [trace.bytes, image.bytes, Buffer.from(JSON.stringify(body))])
            assert.ok(!bytes.includes(secret))
          if (!ffmpegSkipReason()) {
            assert.deepEqual(
              detail.videos.map((v: { path: string }) => v.path),
              ['video-1.webm'],
            )
            const video = await download(detail.videos[0].url)
            assert.equal(video.status, 200)
            assert.equal(video.type, 'video/webm')
            assert.deepEqual([...video.bytes.subarray(0, 4)], [0x1a, 0x45, 0xdf, 0xa3])
            assert.equal(video.bytes.length, detail.videos[0].size)
          } else {
            // Without ffmpeg (apt-get install ffmpeg) the test runs unrecorded, and the result says why.
            assert.deepEqual(detail.videos, [])
            assert.ok(detail.notes.some((note: string) => note.startsWith('No video was recorded')))
          }
        })

        test('a suite run on an agent stops on cancel; the trigger answers its cancelled result', {
          skip,
        }, async () => {
          const created = await call('POST', '/v1/checks/automation', {
            name: 'held suite',
            activated: false,
            locations: [],
            privateLocations: [location.slugName],
            dependencies: [
              {
                path: 'playwright.config.ts',
                content: `export default { testDir: './tests', timeout: 120_000 }\n`,
              },
              {
                path: 'tests/held.spec.ts',
                content: `import { test } from '@playwright/test'
test('quick', async () => {})
test('held', async ({ page }) => {
  await test.step('open the held page', async () => {
    await page.goto(${JSON.stringify(`${target.url}/hold/suite`)}, { timeout: 0 })
  })
  await page.waitForTimeout(60_000)
})
`,
              },
            ],
          })
          assert.equal(created.status, 201, JSON.stringify(created.body))
          const checkId = created.body.id as string
          const triggering = trigger(checkId)
          await target.waitForHit('/hold/suite')
          assert.equal((await call('POST', `/v1/checks/${checkId}/cancel`)).status, 204)
          const { status, body } = await triggering
          assert.equal(status, 200, JSON.stringify(body))
          assert.equal(body.runLocation, 'lab')
          assert.equal(body.isCancelled, true)
          assert.equal(body.hasFailures, false)
          assert.deepEqual(body.error, {
            type: 'CANCELLED',
            message: 'The run was cancelled (still running: held)',
          })
          assert.deepEqual(
            body.playwrightCheckResult.tests.map((t: { title: string; status: string }) => [
              t.title,
              t.status,
            ]),
            [
              ['quick', 'passed'],
              ['held', 'interrupted'],
            ],
          )
          assert.ok(body.playwrightCheckResult.traceUrl, 'the traces of the run so far are uploaded')
          const statusOf = (await call('GET', `/v1/check-statuses/${checkId}`)).body
          assert.equal(statusOf.status, null, 'a cancelled run gives the check no status')
          assert.equal((await call('POST', `/v1/checks/${checkId}/cancel`)).status, 409)
          target.release('/hold/suite')
        })
      })

      test('the location’s proxy URL carries its URL and API checks', async () => {
        const proxy = await startRecordingProxy()
        const body = { name: 'Lab', slugName: 'lab' }
        try {
          const put = await call('PUT', `/v1/private-locations/${location.id}`, {
            ...body,
            proxyUrl: proxy.url,
          })
          assert.equal(put.status, 200, JSON.stringify(put.body))
          const agent = await startAgent()
          const check = await createCheck('via the location proxy', '/slow/located')
          const { status, body: answer } = await trigger(check)
          assert.equal(status, 200, JSON.stringify(answer))
          assert.deepEqual(
            proxy.requests.map((r) => [r.host, r.path]),
            [[new URL(target.url).host, '/slow/located']],
            'the check, and nothing else, went through the location’s proxy',
          )
          assert.equal(await agent.stop('SIGTERM'), 0)
        } finally {
          await call('PUT', `/v1/private-locations/${location.id}`, { ...body, proxyUrl: null })
          await proxy.close()
        }
      })

      test('the location’s proxy URL, with credentials, carries a browser check; the password is stored nowhere', {
        skip,
      }, async () => {
        const credentials = { username: 'lab-agent', password: `pw-${randomBytes(9).toString('hex')}` }
        const proxy = await startRecordingProxy({ credentials })
        const body = { name: 'Lab', slugName: 'lab' }
        try {
          const proxyUrl = proxy.url.replace('://', `://${credentials.username}:${credentials.password}@`)
          const put = await call('PUT', `/v1/private-locations/${location.id}`, { ...body, proxyUrl })
          assert.equal(put.status, 200, JSON.stringify(put.body))
          const created = await call('POST', '/v1/checks/browser', {
            name: 'through the location proxy',
            activated: false,
            locations: [],
            privateLocations: [location.slugName],
            doubleCheck: false,
            script: `const { test, expect } = require('@playwright/test')
test('heading', async ({ page }) => {
  await page.goto(${JSON.stringify(`${target.url}/page`)})
  await expect(page.locator('h1')).toHaveText('Hello')
})`,
          })
          assert.equal(created.status, 201, JSON.stringify(created.body))
          const agent = await startAgent()
          const { status, body: result } = await trigger(created.body.id)
          assert.equal(status, 200, JSON.stringify(result))
          assert.equal(result.hasFailures, false, JSON.stringify(result.browserCheckResult?.errors))
          const viaProxy = proxy.requests.filter((r) => r.path !== '/favicon.ico')
          assert.deepEqual(
            viaProxy.map((r) => [r.host, r.path]),
            [[new URL(target.url).host, '/page']],
            'the page went through the location’s proxy',
          )
          assert.ok(proxy.refused.length >= 1, 'first without credentials (407), then with them')
          const authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`
          assert.ok(viaProxy[0]?.bytes.toString('latin1').includes(`roxy-Authorization: ${authorization}`))
          const trace = await fetch(
            result.browserCheckResult.traceUrl.replace(/^https?:\/\/[^/]+/, server.url),
            {
              headers: { authorization: `Bearer ${apiKey}` },
            },
          )
          assert.equal(trace.status, 200)
          const traceEntries = readZip(Buffer.from(await trace.arrayBuffer())).map((entry) => entry.data)
          assert.ok(traceEntries.length > 0)
          const stored = [...traceEntries, Buffer.from(JSON.stringify(result))]
          for (const form of new Scrubber([credentials.password]).forms)
            for (const bytes of stored) assert.ok(!bytes.includes(form), form)
          assert.ok(!agent.output().includes(credentials.password), 'nor in the agent’s log')
          assert.equal(await agent.stop('SIGTERM'), 0)
        } finally {
          await call('PUT', `/v1/private-locations/${location.id}`, { ...body, proxyUrl: null })
          await proxy.close()
        }
      })

      test('a revoked key is refused at once: the agent says so and exits 1', async () => {
        const key = await newKey()
        const agent = await startAgent({ API_KEY: key.rawKey })
        assert.equal(
          (await call('DELETE', `/v1/private-locations/${location.id}/keys/${key.id}`)).status,
          204,
        )
        assert.equal(await agent.exited, 1)
        assert.match(agent.output(), /refused this agent’s key \(.*HTTP 401/)
        assert.ok(!agent.output().includes(key.rawKey), 'the key is not printed')

        const unknown = await startAgent({ API_KEY: 'svc_pl_not-a-key' }, { wait: 'none' })
        assert.equal(await unknown.exited, 1)
        assert.match(unknown.output(), /refused this agent’s key/)
      })

      test('outcomes that end while a post is in flight reach the server together, each stored once', async () => {
        const proxy = await startRecordingProxy()
        try {
          const agent = await startAgent({ HTTP_PROXY: proxy.url, NO_PROXY: '', JOB_CONCURRENCY: '3' })
          const checks = await Promise.all(
            Array.from({ length: 3 }, (_, n) => createCheck(`together ${n}`, `/together-${n}`)),
          )
          const held = proxy.holdNext('/agent/v1/results')
          const triggered = Promise.all(checks.map(trigger))
          const posts = () => proxy.requests.filter((r) => r.path.startsWith('/agent/v1/results'))
          while (
            target.hits.filter((hit) => hit.path.startsWith('/together-')).length < 3 ||
            posts().length < 1
          )
            await sleep(20)
          // The other two outcomes are ready while the first post is held: they wait for it to end.
          await sleep(200)
          assert.deepEqual(
            posts().map((r) => r.path),
            ['/agent/v1/results'],
          )
          held.release()
          for (const answer of await triggered) assert.equal(answer.status, 200, JSON.stringify(answer.body))
          assert.deepEqual(
            posts().map((r) => r.path),
            ['/agent/v1/results', '/agent/v1/results/batch'],
          )
          const batch = JSON.parse(posts()[1]?.bytes.toString().split('\r\n\r\n')[1] ?? '{}')
          assert.equal(batch.results.length, 2)
          for (const check of checks) assert.equal((await resultsOf(check)).length, 1)
          assert.equal(await agent.stop('SIGTERM'), 0)
        } finally {
          await proxy.close()
        }
      })

      test('behind an HTTP proxy (API calls and checks): nothing the server receives holds a secret; error events only when on', async () => {
        const proxy = await startRecordingProxy()
        const accountSecret = `acct-${randomBytes(9).toString('hex')}`
        const agentSecret = `agent-${randomBytes(9).toString('hex')}`
        target.echoExtra = agentSecret
        try {
          const variable = { key: 'SVC_SECRET_TARGET_TOKEN', value: accountSecret }
          assert.equal((await call('POST', '/v1/variables', variable)).status, 201)
          const proxied = { HTTP_PROXY: proxy.url, NO_PROXY: '', SVC_SECRET_AGENT_SIDE: agentSecret }
          // Its first three polls fail with an answer naming a URL and a secret: an error event.
          const failure = JSON.stringify({
            statusCode: 502,
            error: 'Bad Gateway',
            message: `upstream https://internal.example/x?token=${agentSecret} refused`,
          })
          proxy.failNext('/agent/v1/jobs', 3, 502, failure)
          const reporting = await startAgent(proxied)
          while (!proxy.requests.some((r) => r.path.startsWith('/agent/v1/errors'))) await sleep(50)
          const check = await createCheck('echo', '/echo', [
            { key: 'Authorization', value: 'Bearer {{SVC_SECRET_TARGET_TOKEN}}' },
            { key: 'x-token', value: '{{SVC_SECRET_TARGET_TOKEN}}' },
            { key: 'Cookie', value: 'session=not-a-variable' },
          ])
          // Posting the result meets a dropped connection and a 503 first: it is retried, stored once.
          proxy.failNext('/agent/v1/results', 1, 0, '')
          proxy.failNext('/agent/v1/results', 1, 503, '{}')
          const { status, body } = await trigger(check)
          assert.equal(status, 200, JSON.stringify(body))
          assert.match(body.apiCheckResult.response.body, /\[REDACTED\]/)
          assert.equal(body.apiCheckResult.request.headers.cookie, '[REDACTED]', 'sensitive headers always')
          assert.equal(proxy.requests.filter((r) => r.path === '/agent/v1/results').length, 3)
          assert.equal((await resultsOf(check)).length, 1)
          assert.equal(await reporting.stop('SIGTERM'), 0)

          // The same with EXTERNAL_OBSERVABILITY=off: ready again after its failures, and no event.
          proxy.failNext('/agent/v1/jobs', 3, 502, failure)
          const quiet = await startAgent({ ...proxied, EXTERNAL_OBSERVABILITY: 'off' })
          assert.equal(await quiet.stop('SIGTERM'), 0)
          assert.equal(proxy.requests.filter((r) => r.path.startsWith('/agent/v1/jobs')).length >= 8, true)

          const sent = proxy.sent(new URL(server.url).host).toString('latin1')
          assert.ok(
            proxy.requests.some((r) => r.host === new URL(target.url).host && r.path === '/echo'),
            'the check itself went through the proxy too',
          )
          assert.ok(sent.includes('POST /agent/v1/results'), 'results went through the proxy')
          assert.ok(sent.includes('POST /agent/v1/heartbeat'), 'heartbeats went through the proxy')
          for (const secret of [accountSecret, agentSecret]) {
            for (const form of new Scrubber([secret]).forms)
              assert.ok(!sent.includes(form), `${secret}: ${form}`)
          }
          assert.ok(!sent.includes('internal.example'), 'no URL in error events')
          assert.equal(proxy.requests.filter((r) => r.path.startsWith('/agent/v1/errors')).length, 1)

          const reader = createDb(store.url)
          try {
            const events = await reader.db.selectFrom('agent_events').selectAll().execute()
            assert.deepEqual(
              events.map((e) => e.agent_id),
              [reporting.id],
              'only the reporting agent sent an event',
            )
            const [event] = events
            assert.match(event?.message ?? '', /polling for jobs: HTTP 502 \(upstream \[URL\] refused\)/)
            assert.equal(event?.agent_version, '0.1.0')
            assert.equal(event?.runtime_version, process.version)
          } finally {
            await reader.close()
          }
        } finally {
          target.echoExtra = ''
          await proxy.close()
        }
      })
    })
  }
})

interface Target {
  url: string
  hits: { path: string; pid: number | undefined }[]
  /** Resolves with the first hit on `path` (now or later). */
  waitForHit(path: string): Promise<{ path: string; pid: number | undefined }>
  /** Answers the requests held on `path`. */
  release(path: string): void
  /** Echoed by `/echo` besides what the request carried (a secret a target might reveal). */
  echoExtra: string
  close(): void
}

/**
 * Paths: `/slow/<x>` answers after 200 ms; `/hold/<x>` when released; `/hang-once/<x>` never for its
 * first request and at once after; `/echo` repeats the request's headers (plain, base64, URL-encoded).
 * Each hit is traced to the agent process that made it.
 */
async function startTarget(pids: () => number[]): Promise<Target> {
  const held = new Map<string, ServerResponse[]>()
  const waiting: { path: string; done: (hit: Target['hits'][number]) => void }[] = []
  const hits: Target['hits'] = []
  const target: Target = {
    url: '',
    hits,
    echoExtra: '',
    waitForHit(path) {
      const hit = hits.find((h) => h.path === path)
      if (hit) return Promise.resolve(hit)
      return new Promise((done) => waiting.push({ path, done }))
    },
    release(path) {
      for (const response of held.get(path) ?? []) response.end(`held ${path}`)
      held.delete(path)
    },
    close() {
      server.closeAllConnections()
      server.close()
    },
  }
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '/'
    const hit = { path, pid: pidOfClient(request.socket.remotePort ?? 0, port, pids()) }
    hits.push(hit)
    for (const waiter of waiting.filter((w) => w.path === path)) waiter.done(hit)
    if (path.startsWith('/slow/')) {
      setTimeout(() => response.end(`slow ${path.slice('/slow/'.length)}`), 200)
    } else if (path.startsWith('/hold/')) {
      held.set(path, [...(held.get(path) ?? []), response])
    } else if (path.startsWith('/hang-once/')) {
      if (hits.filter((h) => h.path === path).length > 1) response.end('ok')
    } else if (path === '/page') {
      response.setHeader('content-type', 'text/html')
      response.end('<!doctype html><html><head><title>t</title></head><body><h1>Hello</h1></body></html>')
    } else if (path === '/echo') {
      const values = [request.headers.authorization ?? '', String(request.headers['x-token'] ?? '')]
      if (target.echoExtra) values.push(target.echoExtra)
      response.end(
        values
          .flatMap((value) => [value, Buffer.from(value).toString('base64'), encodeURIComponent(value)])
          .join('\n'),
      )
    } else {
      response.end('ok')
    }
  })
  const { port } = await listenOnLoopback(server)
  target.url = `http://127.0.0.1:${port}`
  return target
}
