import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type AgentJob, jobResultBody } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { DETAIL_KEYS, type RunnerJob, runJob } from '@svc/runner'
import {
  browserTestsSkipReason,
  listenOnLoopback,
  pingSkipReason,
  selfSignedCertificate,
} from '@svc/runner/testing'
import dns2 from 'dns2'
import { asAgent, latestDueMs, privateLocationWithKey } from '../../testing/agent-locations.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

/**
 * A run's detail comes from an agent on its owner's host, at the agent's version: what the server reads of it
 * (alert variables, analytics, root cause analysis, the results API) is checked for its type and bounds as it
 * is posted, by the check's type. A bad value is a 400 naming it and stores nothing; a field the server does
 * not know is kept, one an older agent does not send reads as absent.
 */

const SCRIPT = "const { test } = require('@playwright/test'); test('t', async () => {})"
const BROWSER_SCRIPT = `
const { test, expect } = require('@playwright/test')
test('heading', async ({ page }) => {
  await page.setContent('<h1>Hello</h1>')
  await expect(page.locator('h1')).toHaveText('Hello')
})`

type CheckKind = 'url' | 'api' | 'tcp' | 'dns' | 'icmp' | 'browser'

for (const engine of testEngines()) {
  describe(`what an agent posts as a run's detail on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-23T08:00:00.000Z')
    let httpUrl = ''
    let httpsUrl = ''
    let tcpPort = 0
    let dnsPort = 0
    const http = createServer((_request, response) => response.end('ok'))
    const https = createHttpsServer(selfSignedCertificate('localhost'), (_request, response) =>
      response.end('secure'),
    )
    const tcp = createTcpServer((socket) => {
      // The runner closes as soon as it has the reply.
      socket.on('error', () => {})
      socket.end('hello\n')
    })
    const dns = dns2.createServer({
      udp: true,
      handle(request, send) {
        const response = dns2.Packet.createResponseFromRequest(request)
        const [question] = request.questions
        response.answers.push({
          name: question?.name ?? '',
          type: dns2.Packet.TYPE.A,
          class: dns2.Packet.CLASS.IN,
          ttl: 60,
          address: '127.0.0.1',
        } as (typeof response.answers)[number])
        send(response)
      },
    })
    before(async () => {
      httpUrl = (await listenOnLoopback(http)).url
      httpsUrl = (await listenOnLoopback(https)).url.replace('http:', 'https:')
      tcpPort = (await listenOnLoopback(tcp)).port
      await dns.listen({ udp: { port: 0, address: '127.0.0.1' } })
      dnsPort = (dns.addresses().udp as { port: number }).port
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      await t.close()
      http.close()
      https.close()
      tcp.close()
      await dns.close()
    })

    const definitions: Record<CheckKind, () => object> = {
      url: () => ({ request: { url: `${httpUrl}/` } }),
      api: () => ({ request: { url: `${httpsUrl}/`, method: 'GET', skipSSL: true } }),
      tcp: () => ({ request: { hostname: '127.0.0.1', port: tcpPort } }),
      dns: () => ({
        request: { query: 'shop.test', recordType: 'A', nameServer: '127.0.0.1', port: dnsPort },
      }),
      icmp: () => ({ request: { hostname: '127.0.0.1', pingCount: 2 } }),
      browser: () => ({ script: SCRIPT }),
    }

    /**
     * A new private location with one check per case (of the case's kind), and its agent's jobs for them:
     * `post` and `postBatch` send as that agent.
     */
    async function jobsFor(slugName: string, cases: Record<string, CheckKind>) {
      const { rawKey } = await privateLocationWithKey(t, slugName)
      const ids = new Map<string, string>()
      for (const [name, kind] of Object.entries(cases)) {
        const created = await t.call({
          method: 'POST',
          url: `/v1/checks/${kind === 'browser' ? 'browser' : kind}?autoAssignAlerts=false`,
          payload: {
            name,
            locations: [],
            privateLocations: [slugName],
            doubleCheck: false,
            ...definitions[kind](),
          },
        })
        assert.equal(created.statusCode, 201, created.body)
        ids.set(name, json(created).id)
      }
      nowMs = Math.max(nowMs, await latestDueMs(t, ids.values()))
      const agentId = randomUUID()
      const polled: AgentJob[] = json(
        await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0&max=100' }),
      )
      const jobs = new Map(
        [...ids].map(([name, checkId]) => [name, polled.find((job) => job.checkId === checkId) as AgentJob]),
      )
      assert.equal(polled.length, ids.size)
      const send = (url: string, payload: unknown) =>
        asAgent(t, rawKey, agentId, {
          method: 'POST',
          url,
          // As text: a detail may hold what JSON.stringify writes otherwise (1e400 for an infinite number).
          payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        })
      return {
        jobs,
        ids,
        post: (body: unknown) => send('/agent/v1/results', body),
        postBatch: (bodies: unknown[]) => send('/agent/v1/results/batch', { results: bodies }),
      }
    }

    /** The body an agent posts for `job` with `detail` as its run's detail (a run that passed). */
    const withDetail = (job: AgentJob, detail: unknown) => {
      const at = new Date(nowMs).toISOString()
      return jobResultBody(job, {
        verdict: {
          startedAt: at,
          stoppedAt: at,
          responseTime: 12,
          hasFailures: false,
          hasErrors: false,
          isDegraded: false,
          overMaxResponseTime: false,
          error: null,
        },
        detailKey: DETAIL_KEYS[job.checkType as keyof typeof DETAIL_KEYS],
        detail,
        statusCode: null,
      })
    }

    const resultsOf = async (checkId: string) =>
      json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` })) as Record<string, unknown>[]
    const rollupsOf = async (checkId: string) =>
      (
        await t.ctx.db
          .selectFrom('analytics_rollups')
          .select('check_id')
          .where('check_id', '=', checkId)
          .execute()
      ).length

    test('what the runner reports for URL, API, TCP, DNS and ICMP checks is taken and stored as posted', {
      skip: pingSkipReason(),
    }, async () => {
      const kinds = ['url', 'api', 'tcp', 'dns', 'icmp'] as const
      const { jobs, ids, postBatch } = await jobsFor(
        'real-uptime',
        Object.fromEntries(kinds.map((kind) => [kind, kind])),
      )
      const bodies = await Promise.all(
        kinds.map(async (kind) => {
          const job = jobs.get(kind) as AgentJob
          const outcome = await runJob(job.job as RunnerJob, { now: () => new Date(nowMs) })
          return jobResultBody(job, outcome)
        }),
      )
      const answer = await postBatch(bodies)
      assert.equal(answer.statusCode, 200, answer.body)
      assert.deepEqual(
        json(answer).results.map((r: { statusCode: number; message?: string }) => [r.statusCode, r.message]),
        kinds.map(() => [204, undefined]),
      )
      for (const [i, kind] of kinds.entries()) {
        const body = bodies[i] as (typeof bodies)[number]
        const [stored] = await resultsOf(ids.get(kind) as string)
        assert.deepEqual(
          stored?.[body.outcome.detailKey],
          JSON.parse(JSON.stringify(body.outcome.detail)),
          `${kind}: stored as posted`,
        )
      }
      // What the runs read, as the server reads it: a certificate, timings, ping's summary, an answer.
      const detail = (kind: string) => bodies[kinds.indexOf(kind as (typeof kinds)[number])]?.outcome.detail
      assert.equal(typeof (detail('api') as { tls: { daysRemaining: number } }).tls.daysRemaining, 'number')
      assert.equal((detail('url') as { response: { status: number } }).response.status, 200)
      assert.equal((detail('icmp') as { summary: { packetLoss: number } }).summary.packetLoss, 0)
      assert.equal((detail('dns') as { responseCode: string }).responseCode, 'NOERROR')
      assert.equal(typeof (detail('tcp') as { timingPhases: { total: number } }).timingPhases.total, 'number')
    })

    test('what the runner reports for a browser check is taken and stored as posted', {
      skip: browserTestsSkipReason(),
    }, async () => {
      const { rawKey } = await privateLocationWithKey(t, 'real-browser')
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/browser?autoAssignAlerts=false',
        payload: {
          name: 'real browser',
          locations: [],
          privateLocations: ['real-browser'],
          doubleCheck: false,
          script: BROWSER_SCRIPT,
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const checkId = json(created).id
      nowMs = Math.max(nowMs, await latestDueMs(t, [checkId]))
      const agentId = randomUUID()
      const [job]: AgentJob[] = json(
        await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0' }),
      )
      assert.ok(job)
      const artifactsDir = mkdtempSync(join(tmpdir(), 'svc-agent-detail-'))
      try {
        const outcome = await runJob(job.job as RunnerJob, {
          now: () => new Date(nowMs),
          playwright: t.ctx.scripts.pool,
          artifactsDir,
        })
        assert.equal(outcome.verdict.hasFailures, false, JSON.stringify(outcome.verdict.error))
        const body = jobResultBody(job, outcome)
        const posted = await asAgent(t, rawKey, agentId, {
          method: 'POST',
          url: '/agent/v1/results',
          payload: body,
        })
        assert.equal(posted.statusCode, 204, posted.body)
        const [stored] = await resultsOf(checkId)
        const detail = JSON.parse(JSON.stringify(outcome.detail))
        const { browserCheckResult } = stored as { browserCheckResult: Record<string, unknown> }
        for (const field of ['tests', 'errors', 'logs', 'network', 'pages', 'notes'])
          assert.deepEqual(browserCheckResult[field], detail[field], field)
        assert.equal((detail.tests as unknown[]).length, 1)
      } finally {
        rmSync(artifactsDir, { recursive: true, force: true })
      }
    })

    test('a value of another type, past its bound or a detail that is no object is 400 naming the field, alone or in a batch; nothing is stored, rolled up or alerted', async () => {
      const MiB = 1_048_576
      const refused: Record<string, [CheckKind, unknown, string]> = {
        'a timing as text': ['url', { timingPhases: { dns: '5' } }, 'timingPhases.dns'],
        'a negative timing': ['api', { timingPhases: { firstByte: -1 } }, 'timingPhases.firstByte'],
        'a timing past a day': ['url', { timingPhases: { total: 1e300 } }, 'timingPhases.total'],
        'an infinite timing': ['url', '{"timingPhases": {"wait": 1e400}}', 'timingPhases.wait'],
        'timings as a list': ['url', { timingPhases: [1, 2] }, 'timingPhases'],
        'a list for the detail': ['url', [{ timingPhases: { dns: 1 } }], ''],
        'a text for the detail': ['api', 'Service Unavailable', ''],
        'a number for the detail': ['tcp', 7, ''],
        'a boolean for the detail': ['browser', true, ''],
        'a text for the response': ['api', { response: '503 Service Unavailable' }, 'response'],
        'a status that is no whole number': ['api', { response: { status: 503.5 } }, 'response.status'],
        'a status as an object': ['api', { response: { status: { code: 503 } } }, 'response.status'],
        'a huge status text': [
          'api',
          { response: { statusText: 'S'.repeat(100_000) } },
          'response.statusText',
        ],
        'a body over 1 MiB': ['url', { response: { body: 'x'.repeat(MiB + 1) } }, 'response.body'],
        'certificate days as text': ['api', { tls: { daysRemaining: '3' } }, 'tls.daysRemaining'],
        'certificate days past any date': ['api', { tls: { daysRemaining: 1e21 } }, 'tls.daysRemaining'],
        'a certificate domain as a number': ['browser', { tls: { domain: 7 } }, 'tls.domain'],
        'a TCP phase as text': ['tcp', { timingPhases: { connection: 'fast' } }, 'timingPhases.connection'],
        'a DNS response code as a number': ['dns', { responseCode: 3 }, 'responseCode'],
        'packet loss over 100%': ['icmp', { summary: { packetLoss: 101 } }, 'summary.packetLoss'],
        'a latency as text': ['icmp', { summary: { latency: { avg: '1.5' } } }, 'summary.latency.avg'],
        'a vital as text': [
          'browser',
          { pages: [{ pageIndex: 0, webVitals: { LCP: { value: '900' } } }] },
          'pages.0.webVitals.LCP.value',
        ],
        'a page index no store holds': ['browser', { pages: [{ pageIndex: 2 ** 31 }] }, 'pages.0.pageIndex'],
        'a log level as a number': ['browser', { logs: [{ level: 5, text: 'x' }] }, 'logs.0.level'],
        'logs as an object': ['browser', { logs: { level: 'error' } }, 'logs'],
        'a request status as text': ['browser', { network: [{ status: '500' }] }, 'network.0.status'],
        'more log entries than any run': [
          'browser',
          { logs: Array.from({ length: 100_001 }, () => ({})) },
          'logs',
        ],
        'a nested step’s status as a number': [
          'browser',
          { tests: [{ failed: true, steps: [{ status: 'failed', steps: [{ status: 5 }] }] }] },
          'tests.0.steps.0.steps.0.status',
        ],
        'an error stack as an object': ['browser', { errors: [{ stack: { at: 1 } }] }, 'errors.0.stack'],
      }
      const cases = Object.fromEntries(Object.entries(refused).map(([name, [kind]]) => [name, kind]))
      const { jobs, ids, post, postBatch } = await jobsFor('refused-details', cases)
      for (const [name, [, detail, field]] of Object.entries(refused)) {
        const job = jobs.get(name) as AgentJob
        const body =
          typeof detail === 'string' && detail.startsWith('{')
            ? JSON.stringify(withDetail(job, '<detail>')).replace('"<detail>"', () => detail)
            : withDetail(job, detail)
        const path = `body.outcome.detail${field ? `.${field}` : ''}`
        const alone = await post(body)
        assert.equal(alone.statusCode, 400, `${name}: ${alone.body}`)
        const error = json(alone)
        assert.deepEqual(Object.keys(error).sort(), ['attributes', 'error', 'message', 'statusCode'], name)
        assert.equal(error.attributes.errors[0].path, path, name)
        assert.ok(error.message.startsWith(`${path} `), `${name}: ${error.message}`)
        const batch = await postBatch([
          typeof body === 'string' ? JSON.parse(body.replace('1e400', '"<inf>"')) : body,
        ])
        assert.equal(batch.statusCode, 200, `${name}: ${batch.body}`)
        const [item] = json(batch).results
        if (typeof body === 'string') continue // JSON.parse can't give back an infinite number.
        assert.equal(item.statusCode, 400, `${name} in a batch`)
        assert.ok(
          item.message.startsWith(`body.results.0.outcome.detail${field ? `.${field}` : ''} `),
          `${name} in a batch: ${item.message}`,
        )
      }
      for (const [name, checkId] of ids) {
        assert.deepEqual(await resultsOf(checkId), [], `${name}: nothing stored`)
        assert.equal(await rollupsOf(checkId), 0, `${name}: nothing rolled up`)
      }
      const notifications = await t.ctx.db
        .selectFrom('alert_notifications')
        .select('check_id')
        .where('check_id', 'in', [...ids.values()])
        .execute()
      assert.deepEqual(notifications, [], 'nothing alerted')
    })

    test('fields the server does not know, fields an older agent does not send and null are taken; a bad outcome costs its batch nothing else', async () => {
      const { jobs, ids, post, postBatch } = await jobsFor('taken-details', {
        'a newer agent': 'url',
        'an older agent': 'api',
        'a run that threw': 'tcp',
        'an empty detail': 'icmp',
        'a browser run from a newer agent': 'browser',
        'bad, in a batch': 'url',
        'good, in the same batch': 'dns',
      })
      const newer = {
        request: { method: 'GET', url: 'https://shop.test/', http3: true },
        response: {
          status: 200,
          statusText: 'OK',
          headers: { 'content-length': '2' },
          body: 'ok',
          trailers: {},
        },
        timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 3, download: 4, total: 10, quic: 5 },
        tls: null,
        carbon: { grams: 0.2, source: ['grid'] },
      }
      const taken = {
        'a newer agent': newer,
        'an older agent': { response: { status: 503 } },
        'a run that threw': null,
        'an empty detail': {},
        'a browser run from a newer agent': {
          tests: [{ title: 't', failed: false, steps: [], errors: [], retries: 2 }],
          logs: [{ level: 'error', text: 'Failed', pageIndex: null, origin: 'console' }],
          pages: [{ pageIndex: 0, url: 'https://shop.test/', webVitals: { LCP: null, INP: { value: 8 } } }],
          accessibility: { violations: 0 },
        },
      }
      for (const [name, detail] of Object.entries(taken)) {
        const posted = await post(withDetail(jobs.get(name) as AgentJob, detail))
        assert.equal(posted.statusCode, 204, `${name}: ${posted.body}`)
        const job = jobs.get(name) as AgentJob
        const [stored] = await resultsOf(ids.get(name) as string)
        const key = DETAIL_KEYS[job.checkType as keyof typeof DETAIL_KEYS]
        // A script result's artifacts are listed with their links, none here.
        const links = ['traceUrl', 'screenshots', 'traces', 'videos', 'playwrightTestVideos']
        const kept =
          job.checkType === 'BROWSER'
            ? Object.fromEntries(
                Object.entries(stored?.[key] as object).filter(([field]) => !links.includes(field)),
              )
            : stored?.[key]
        assert.deepEqual(kept, detail, `${name}: kept as posted`)
      }
      const batch = await postBatch([
        withDetail(jobs.get('bad, in a batch') as AgentJob, { timingPhases: { dns: '1' } }),
        withDetail(jobs.get('good, in the same batch') as AgentJob, { responseCode: 'NOERROR' }),
      ])
      assert.deepEqual(
        json(batch).results.map((r: { statusCode: number }) => r.statusCode),
        [400, 204],
      )
      assert.equal((await resultsOf(ids.get('bad, in a batch') as string)).length, 0)
      assert.equal((await resultsOf(ids.get('good, in the same batch') as string)).length, 1)
    })
  })
}
