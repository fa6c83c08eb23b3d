import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { SvcAgent } from './agent.ts'
import type { AgentApi, AgentJob, JobResultBody } from './api-client.ts'
import { loadAgentConfig } from './config.ts'

let requests = 0
const target = createServer((_request, response) => {
  requests++
  response.end('ok')
})
let url = ''
before(async () => {
  await new Promise<void>((done) => target.listen(0, '127.0.0.1', done))
  url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`
})
after(() => target.close())

/** A liveness wait, not a timing assertion: gives up after ~10 s. */
const until = async (done: () => boolean) => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((tick) => setTimeout(tick, 20))
}

/**
 * The agent API as a server with `jobs` due: each poll hands out what `max` allows (or waits until the
 * agent aborts it), and every posted result waits until the test answers it.
 */
function fakeApi(jobs: AgentJob[]) {
  const posted: { body: JobResultBody; answer: () => void }[] = []
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
    postResult(body: JobResultBody) {
      return new Promise<void>((answer) => posted.push({ body, answer }))
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
  })
  const before = requests
  agent.start()
  try {
    // One place: the first run ends and its result waits for the server; the second run takes the place.
    await until(() => posted.length === 2)
    assert.deepEqual(
      posted.map((p) => p.body.slotKey),
      ['1:check-1:private:loc', '2:check-2:private:loc'],
    )
    assert.equal(requests - before, 2, 'the second job ran while the first result was still posting')
    // Two results waiting: twice the concurrency. No third job is taken until one is answered.
    await new Promise((done) => setTimeout(done, 100))
    assert.deepEqual(polls, [1, 1], 'no poll while two results wait')
    posted[0]?.answer()
    await until(() => posted.length === 3)
    assert.equal(requests - before, 3)
    assert.equal(posted[2]?.body.outcome.verdict.hasFailures, false)
  } finally {
    for (const post of posted) post.answer()
    await agent.shutdown()
  }
})
