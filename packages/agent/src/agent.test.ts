import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, test } from 'node:test'
import { listenOnLoopback } from '@svc/runner/testing'
import { SvcAgent } from './agent.ts'
import { AgentApi, type AgentJob, ApiError, dispatcherOf, type JobResultBody } from './api-client.ts'
import { loadAgentConfig } from './config.ts'

let requests = 0
const target = createServer((_request, response) => {
  requests++
  response.end('ok')
})
let url = ''
before(async () => {
  url = `${(await listenOnLoopback(target)).url}/`
})
after(() => target.close())

/** A liveness wait, not a timing assertion: gives up after ~10 s. */
const until = async (done: () => boolean) => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((tick) => setTimeout(tick, 20))
}

/**
 * The agent API as a server with `jobs` due: each poll hands out what `max` allows (or waits until the
 * agent aborts it), and every post of results waits until the test answers it. `server` says how the
 * batch route answers: a server from before it says 404; a broken one 500.
 */
type BatchRoute = 'takes batches' | 'from before batches' | 'fails'
function fakeApi(jobs: AgentJob[], server: BatchRoute = 'takes batches') {
  const posted: { route: 'single' | 'batch'; bodies: JobResultBody[]; answer: (codes?: number[]) => void }[] =
    []
  const polls: number[] = []
  const api = {
    async heartbeat() {
      return { leaseSeconds: 30 }
    },
    async pollJobs(max: number, _waitSeconds: number, signal: AbortSignal) {
      polls.push(max)
      if (jobs.length > 0) return jobs.splice(0, max)
      await new Promise((aborted) => signal.addEventListener('abort', aborted, { once: true }))
      throw new Error('poll aborted')
    },
    postResult(serialized: string) {
      const bodies = [JSON.parse(serialized) as JobResultBody]
      return new Promise<void>((answer) => posted.push({ route: 'single', bodies, answer: () => answer() }))
    },
    async postResults(serialized: string[]) {
      if (server === 'from before batches')
        throw new ApiError('posting results', 404, 'Route POST:/agent/v1/results/batch not found')
      if (server === 'fails') throw new ApiError('posting results', 500, 'Internal Server Error')
      const bodies = serialized.map((body) => JSON.parse(body) as JobResultBody)
      const codes = await new Promise<number[] | undefined>((answer) =>
        posted.push({ route: 'batch', bodies, answer }),
      )
      return bodies.map((body, i) => ({ resultId: body.resultId, statusCode: codes?.[i] ?? 204 }))
    },
    async goodbye() {},
    async postError() {},
  }
  return { api: api as unknown as AgentApi, posted, polls }
}

const urlJob = (n: number): AgentJob => ({
  jobId: `job-${n}`,
  slotKey: `${n}:check-${n}:private:loc`,
  attempt: 1,
  firstStartedMs: Date.now(),
  location: 'private:loc',
  resultId: `result-${n}`,
  checkId: `check-${n}`,
  checkType: 'URL',
  job: {
    checkType: 'URL',
    definition: { request: { url }, degradedResponseTime: 10_000, maxResponseTime: 20_000 },
  },
  hidden: [],
  proxyUrl: null,
})

test('a run frees its place when it ends, not when its result is posted; unposted results are bounded', async () => {
  const { api, posted, polls } = fakeApi([urlJob(1), urlJob(2), urlJob(3)])
  const agent = new SvcAgent({
    config: loadAgentConfig({ API_KEY: 'svc_pl_test', JOB_CONCURRENCY: '1', EXTERNAL_OBSERVABILITY: 'off' }),
    api,
    version: 'test',
    hostname: 'test',
    log: { info() {}, warn() {}, error() {} },
    onKeyRefused() {},
    onNotSvc() {},
    onRunEnded: (jobId) => ended.push(jobId),
  })
  const ended: string[] = []
  const before = requests
  agent.start()
  try {
    // One place: the first run ends and its result waits for the server; the second run takes the place
    // and its result waits for the first post to end. What the agent does when a run ends follows at once.
    await until(() => ended.length === 2)
    await new Promise(setImmediate)
    assert.deepEqual(
      posted.map((p) => p.bodies.map((body) => body.slotKey)),
      [['1:check-1:private:loc']],
    )
    // Two results waiting: twice the concurrency. No third job is taken until one is answered.
    assert.deepEqual(polls, [1, 1], 'no poll while two results wait')
    posted[0]?.answer()
    await until(() => requests - before === 3)
    assert.deepEqual(
      posted.map((p) => p.bodies.map((body) => body.slotKey)),
      [['1:check-1:private:loc'], ['2:check-2:private:loc']],
    )
    posted[1]?.answer()
    await until(() => posted.length === 3)
    assert.equal(posted[2]?.bodies[0]?.outcome.verdict.hasFailures, false)
  } finally {
    for (const post of posted) post.answer()
    await agent.shutdown()
  }
})

for (const server of ['takes batches', 'from before batches', 'fails'] as const) {
  test(`outcomes that end while a post is in flight go together in the next (server ${server})`, async () => {
    const { api, posted } = fakeApi(
      [urlJob(1), urlJob(2), urlJob(3), urlJob(4), urlJob(5), urlJob(6)],
      server,
    )
    const warnings: string[] = []
    const agent = new SvcAgent({
      config: loadAgentConfig({
        API_KEY: 'svc_pl_test',
        JOB_CONCURRENCY: '3',
        EXTERNAL_OBSERVABILITY: 'off',
      }),
      api,
      version: 'test',
      hostname: 'test',
      log: { info() {}, warn: (line) => warnings.push(line), error() {} },
      onKeyRefused() {},
      onNotSvc() {},
      onRunEnded: (jobId) => ended.push(jobId),
    })
    const ended: string[] = []
    const slotKeys = () => posted.flatMap((p) => p.bodies.map((body) => body.slotKey))
    agent.start()
    try {
      // The first result to arrive is posted alone; the rest run while it waits (three places, and at most
      // six jobs running or posting), then wait for it. What the agent does when a run ends follows at once.
      await until(() => ended.length === 6)
      await new Promise(setImmediate)
      assert.equal(posted.length, 1)
      assert.equal(posted[0]?.route, 'single')
      posted[0]?.answer()
      if (server === 'takes batches') {
        await until(() => posted.length === 2)
        assert.equal(posted[1]?.route, 'batch')
        assert.equal(posted[1]?.bodies.length, 5, 'the five waiting outcomes in one post')
        posted[1]?.answer([204, 404, 204, 204, 204])
        await until(() => warnings.length > 0)
        assert.match(warnings[0] ?? '', /^posting the result of .*: HTTP 404/)
      } else {
        await until(() => posted.length === 6)
        assert.deepEqual(
          posted.map((p) => [p.route, p.bodies.length]),
          Array.from({ length: 6 }, () => ['single', 1]),
          'one by one, each in its own post (each with its own retries)',
        )
      }
      assert.deepEqual(
        slotKeys().sort(),
        [1, 2, 3, 4, 5, 6].map((n) => `${n}:check-${n}:private:loc`),
        'every outcome posted once',
      )
    } finally {
      for (const post of posted) post.answer()
      await agent.shutdown()
    }
  })
}

test('an outcome the server refuses for good (404: not this location’s run any more; 409) is posted once, not retried', async () => {
  const { api } = fakeApi([urlJob(1), urlJob(2)])
  const attempts = new Map<string, number>()
  const refusals: Record<string, ApiError> = {
    '1:check-1:private:loc': new ApiError(
      'posting a result',
      404,
      'Job 1:check-1:private:loc is not open for this location: it was not given to this location, or its run is over',
    ),
    '2:check-2:private:loc': new ApiError('posting a result', 409, 'Conflict'),
  }
  api.postResult = async (serialized: string) => {
    const { slotKey } = JSON.parse(serialized) as JobResultBody
    attempts.set(slotKey, (attempts.get(slotKey) ?? 0) + 1)
    throw refusals[slotKey]
  }
  const { agent, lines } = agentLoggingTo(api, { JOB_CONCURRENCY: '1', EXTERNAL_OBSERVABILITY: 'off' })
  agent.start()
  try {
    await until(() => lines.length === 2)
    assert.deepEqual(Object.fromEntries(attempts), { '1:check-1:private:loc': 1, '2:check-2:private:loc': 1 })
    assert.match(
      lines[0] ?? '',
      /^warn posting the result of 1:check-1:private:loc: .*HTTP 404 \(Job .* is not open/,
    )
    assert.match(
      lines[1] ?? '',
      /^error posting the result of 2:check-2:private:loc failed after 1 attempt\(s\): .*HTTP 409/,
    )
    assert.equal(agent.runningJobs, 0, 'nothing left waiting to be posted')
  } finally {
    await agent.shutdown()
  }
})

test('an outcome the server refuses as malformed (400), alone or in its batch, is posted once and reported; the others are stored', async () => {
  const { api, posted } = fakeApi([urlJob(1), urlJob(2), urlJob(3), urlJob(4)])
  const singles: string[] = []
  const refusal = 'body.outcome.detail.timingPhases.dns must be number'
  // The first outcome goes alone, refused once the other runs ended: they then go together in a batch.
  api.postResult = async (serialized: string) => {
    singles.push((JSON.parse(serialized) as JobResultBody).slotKey)
    await until(() => ended.length === 4)
    throw new ApiError('posting a result', 400, refusal)
  }
  const events: string[] = []
  api.postError = async (event) => {
    events.push(event.message)
  }
  const { agent, lines, ended } = agentLoggingTo(api, { JOB_CONCURRENCY: '4' })
  agent.start()
  try {
    await until(() => posted.length === 1)
    assert.equal(posted[0]?.route, 'batch')
    assert.equal(posted[0]?.bodies.length, 3)
    posted[0]?.answer([204, 400, 204])
    await until(() => events.length === 2)
    // Every job done, its outcome posted or given up: nothing is left that could be posted again.
    await until(() => agent.runningJobs === 0)
    assert.deepEqual(singles, ['1:check-1:private:loc'], 'the lone outcome is posted once')
    assert.equal(posted.length, 1, 'the batch is not posted again, nor its refused outcome')
    assert.equal(lines.filter((line) => line.startsWith('error ')).length, 2, lines.join('\n'))
    assert.equal(events.length, 2)
    assert.match(
      events[0] ?? '',
      /^posting the result failed after 1 attempt\(s\): .*HTTP 400 \(body\.outcome\.detail/,
    )
    assert.match(events[1] ?? '', /^posting results: 1 of 3 refused: HTTP 400/)
    assert.equal(agent.runningJobs, 0, 'nothing left waiting to be posted')
  } finally {
    for (const post of posted) post.answer()
    await agent.shutdown()
  }
})

test('an error event the server refuses with 429 (its per-location limit) is dropped with a warning, not retried', async () => {
  const reports: string[] = []
  const server = createServer((request, response) => {
    reports.push(`${request.method} ${request.url}`)
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '45' })
    response.end(
      JSON.stringify({
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Rate limit exceeded: 60 requests per 60 seconds',
        attributes: { limit: 60, windowSeconds: 60, retryAfterSeconds: 45 },
      }),
    )
  })
  const { url: apiUrl } = await listenOnLoopback(server)
  const dispatcher = dispatcherOf({ httpProxy: '', httpsProxy: '', noProxy: '' })
  const warnings: string[] = []
  const agent = new SvcAgent({
    config: loadAgentConfig({ API_KEY: 'svc_pl_test' }),
    api: new AgentApi({
      apiUrl,
      apiKey: 'svc_pl_test',
      agentId: '00000000-0000-4000-8000-000000000001',
      dispatcher,
    }),
    version: 'test',
    hostname: 'test',
    log: { info() {}, warn: (line) => warnings.push(line), error() {} },
    onKeyRefused: () => assert.fail('a 429 is no refused key'),
    onNotSvc: () => assert.fail('a 429 in the error shape is svc'),
  })
  try {
    await agent.reportError(new Error('boom'))
    await agent.reportError(new Error('boom again'))
    assert.deepEqual(reports, ['POST /agent/v1/errors', 'POST /agent/v1/errors'], 'one request per event')
    assert.deepEqual(warnings, [
      'could not report an error event: reporting an error event: HTTP 429 (Rate limit exceeded: 60 requests per 60 seconds)',
      'could not report an error event: reporting an error event: HTTP 429 (Rate limit exceeded: 60 requests per 60 seconds)',
    ])
  } finally {
    await dispatcher.close()
    server.close()
  }
})

/** An agent on `api` whose warnings and errors go to `lines`, as `warn …` and `error …`. */
function agentLoggingTo(api: AgentApi, env: Record<string, string>) {
  const lines: string[] = []
  const agent = new SvcAgent({
    config: loadAgentConfig({ API_KEY: 'svc_pl_test', ...env }),
    api,
    version: 'test',
    hostname: 'test',
    log: {
      info() {},
      warn: (line) => lines.push(`warn ${line}`),
      error: (line) => lines.push(`error ${line}`),
    },
    onKeyRefused() {},
    onNotSvc() {},
    onRunEnded: (jobId) => ended.push(jobId),
  })
  const ended: string[] = []
  return { agent, lines, ended }
}
