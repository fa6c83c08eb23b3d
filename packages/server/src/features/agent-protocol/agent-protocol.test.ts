import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type AgentJob, jobResultBody } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { PlaywrightPool, type RunnerJob, runJob } from '@svc/runner'
import { browserTestsSkipReason, listenOnLoopback } from '@svc/runner/testing'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../app.ts'
import { createSecretBox } from '../../crypto/secret-box.ts'
import { insertTriggerJob } from '../../runs/retries.repo.ts'
import { listSchedule } from '../../runs/schedules.repo.ts'
import { asAgent, latestDueMs, privateLocationWithKey } from '../../testing/agent-locations.ts'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { raiseWakeup } from '../../wakeups.ts'
import * as accounts from '../accounts/accounts.service.ts'
import { LocalArtifactStore } from '../artifacts/artifact-store.ts'
import { forgetOldScriptRuns } from './agent-artifacts.service.ts'
import { artifactBytesOf } from './agent-protocol.repo.ts'
import { RESULT_JSON_DEPTH } from './agent-protocol.routes.ts'

/** A script that passes without a page: its run needs no target. */
const SCRIPT = `
const { test, expect } = require('@playwright/test')
test('passes', async ({ page }) => {
  await page.setContent('<h1>Hello</h1>')
  await expect(page.locator('h1')).toHaveText('Hello')
})`

/** What an agent posts for a script run that passed (no artifacts listed). */
const passingOutcome = (atMs: number) => {
  const at = new Date(atMs).toISOString()
  return {
    verdict: {
      startedAt: at,
      stoppedAt: at,
      responseTime: 1,
      hasFailures: false,
      hasErrors: false,
      isDegraded: false,
      overMaxResponseTime: false,
      error: null,
    },
    detailKey: 'browserCheckResult',
    detail: null,
    statusCode: null,
  }
}

/**
 * A private-location key is handed to whoever runs the agent: it may post the outcome of a run only
 * when the server gave that run to its location and the run is still open (or stored before).
 */
/** One retry a minute later, in the same location. */
const ONE_RETRY = {
  retryStrategy: {
    type: 'FIXED',
    baseBackoffSeconds: 60,
    maxRetries: 1,
    maxDurationSeconds: 600,
    sameRegion: true,
  },
}

for (const engine of testEngines()) {
  describe(`what a location’s key may post on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-23T08:00:00.000Z')
    /** Called on each read of the app's clock, when set. */
    let onClockRead: (() => void) | undefined
    let base = ''
    const target = createServer((request, response) => {
      response.statusCode = request.url === '/down' ? 500 : 200
      response.end('ok')
    })
    before(async () => {
      base = (await listenOnLoopback(target)).url
      t = await createTestApp(engine, {
        clock: {
          now: () => {
            onClockRead?.()
            return new Date(nowMs)
          },
        },
      })
    })
    after(async () => {
      target.close()
      await t.close()
    })

    const as = (key: string, agentId: string = randomUUID()) => ({
      poll: async (): Promise<AgentJob[]> =>
        json(await asAgent(t, key, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0&max=20' })),
      post: (body: unknown) =>
        asAgent(t, key, agentId, { method: 'POST', url: '/agent/v1/results', payload: body as object }),
      postBatch: (results: unknown[]) =>
        asAgent(t, key, agentId, { method: 'POST', url: '/agent/v1/results/batch', payload: { results } }),
      upload: (checkId: string, resultId: string, path: string, bytes: Buffer) =>
        asAgent(t, key, agentId, {
          method: 'PUT',
          url: `/agent/v1/checks/${checkId}/results/${resultId}/artifacts/${path}`,
          headers: { 'content-type': 'application/octet-stream' },
          payload: bytes,
        }),
    })
    const locationWithKey = (slugName: string) => privateLocationWithKey(t, slugName)
    const createCheck = async (name: string, privateLocations: string[], extra: object = {}) => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/url',
        payload: {
          name,
          locations: [],
          privateLocations,
          doubleCheck: false,
          request: { url: `${base}/` },
          ...extra,
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      return json(created).id as string
    }
    /** A browser check running SCRIPT, no double check; `payload` adds or overrides fields. */
    const createScriptCheck = async (name: string, payload: object) => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/browser',
        payload: { name, script: SCRIPT, doubleCheck: false, ...payload },
      })
      assert.equal(created.statusCode, 201, created.body)
      return json(created).id as string
    }
    /** When every location's next run of the check is due. */
    const dueOf = (checkId: string) => latestDueMs(t, [checkId])
    /** A long-poll of the agent of `rawKey` once it sleeps: its first claim found nothing due and it asked the clock how long to wait. */
    const sleepingPoll = async (rawKey: string) => {
      let reads = 0
      const sleeping = Promise.withResolvers<void>()
      onClockRead = () => {
        if (++reads === 2) sleeping.resolve()
      }
      const poll = t.app.inject({
        method: 'GET',
        url: '/agent/v1/jobs?waitSeconds=30',
        headers: { authorization: `Bearer ${rawKey}`, 'x-svc-agent-id': randomUUID() },
      })
      await sleeping.promise
      onClockRead = undefined
      // In an object: the answer is thenable, and an async function returning it would wait for it.
      return { poll }
    }
    /**
     * Says that the test's clock jumped to when a sleeping poll's slot falls due: the timer a real clock
     * would fire then can't, so the poll is woken as a write making a slot due would wake it.
     */
    const timePassed = () => raiseWakeup(t.ctx, 'schedule')
    /** Runs what `job` says, against `path` of the target. */
    const outcomeOf = (job: AgentJob, path = '/') => {
      const { checkType, definition } = job.job as RunnerJob & { definition: { request: object } }
      const request = { ...definition.request, url: `${base}${path}` }
      return runJob({ checkType, definition: { ...definition, request } } as RunnerJob, {
        now: () => new Date(nowMs),
      })
    }
    const resultsOf = async (checkId: string) =>
      json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` })) as { id: string }[]

    test('outcomes of runs never given to the location are refused with 404 and store nothing', async () => {
      const alpha = await locationWithKey('alpha')
      const beta = await locationWithKey('beta')
      const onlyAlpha = await createCheck('only alpha', ['alpha'])
      const onlyBeta = await createCheck('only beta', ['beta'])
      const both = await createCheck('both', ['alpha', 'beta'])
      const other = await accounts.createAccount(t.ctx, { name: 'Another account' })
      const stranger = await t.addUser('OWNER', other.id)
      const ofAnotherAccount = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          as: stranger,
          payload: { name: 'theirs', locations: ['local'], doubleCheck: false, request: { url: `${base}/` } },
        }),
      ).id as string
      nowMs = Math.max(...(await Promise.all([onlyAlpha, onlyBeta, both].map(dueOf))))
      const alphaAgent = as(alpha.rawKey)
      const betaAgent = as(beta.rawKey)
      const alphaJobs = await alphaAgent.poll()
      const betaJobs = await betaAgent.poll()
      assert.deepEqual(alphaJobs.map((job) => job.checkId).sort(), [onlyAlpha, both].sort())
      assert.deepEqual(betaJobs.map((job) => job.checkId).sort(), [onlyBeta, both].sort())
      const alphaJob = alphaJobs.find((job) => job.checkId === onlyAlpha) as AgentJob
      const betaJobOfBoth = betaJobs.find((job) => job.checkId === both) as AgentJob
      const betaJobOfOnlyBeta = betaJobs.find((job) => job.checkId === onlyBeta) as AgentJob
      // A one-off run (a trigger) leased to beta.
      const triggerKey = `trigger:${randomUUID()}`
      await insertTriggerJob(t.ctx, {
        slotKey: triggerKey,
        checkId: both,
        location: beta.key,
        attempt: 1,
        dueMs: nowMs,
        firstStartedMs: nowMs,
      })
      const [betaTrigger] = await betaAgent.poll()
      assert.equal(betaTrigger?.slotKey, triggerKey)

      const outcome = await outcomeOf(alphaJob)
      const forged = (job: Pick<AgentJob, 'slotKey' | 'checkId'>, changes: Partial<AgentJob> = {}) =>
        jobResultBody(
          {
            ...alphaJob,
            ...job,
            attempt: 1,
            location: alpha.key,
            resultId: randomUUID(),
            ...changes,
          } as AgentJob,
          outcome,
        )
      const refused = {
        'a check that does not run in alpha': forged({
          checkId: onlyBeta,
          slotKey: `${nowMs}:${onlyBeta}:${alpha.key}`,
        }),
        'a job never issued': forged({
          checkId: onlyAlpha,
          slotKey: `${nowMs + 60_000}:${onlyAlpha}:${alpha.key}`,
        }),
        'beta’s job, relabelled': forged(betaJobOfBoth),
        'beta’s job of a check alpha does not run': forged(betaJobOfOnlyBeta),
        'beta’s one-off run': forged(betaTrigger as AgentJob),
        'a retry nobody planned': forged(alphaJob, { attempt: 2 }),
        'alpha’s open job under another check': forged({ checkId: onlyBeta, slotKey: alphaJob.slotKey }),
      }
      const answer = await alphaAgent.postBatch(Object.values(refused))
      assert.equal(answer.statusCode, 200, answer.body)
      assert.deepEqual(
        json(answer).results.map((r: { statusCode: number; message: string }, i: number) => [
          Object.keys(refused)[i],
          r.statusCode,
          r.message,
        ]),
        Object.entries(refused).map(([what, body]) => [
          what,
          404,
          `Job ${body.attempt === 1 ? body.slotKey : `${body.slotKey}#${body.attempt}`} is not open for this location: it was not given to this location, or its run is over`,
        ]),
      )
      for (const [what, body] of Object.entries(refused)) {
        const single = await alphaAgent.post(body)
        assert.equal(single.statusCode, 404, `${what}: ${single.body}`)
        assert.deepEqual(Object.keys(json(single)).sort(), ['error', 'message', 'statusCode'])
      }
      const theirs = await alphaAgent.post(
        forged({ checkId: ofAnotherAccount, slotKey: `${nowMs}:${ofAnotherAccount}:${alpha.key}` }),
      )
      assert.equal(theirs.statusCode, 404)
      assert.equal(json(theirs).message, `Check ${ofAnotherAccount} not found`)
      for (const checkId of [onlyAlpha, onlyBeta, both])
        assert.deepEqual(await resultsOf(checkId), [], checkId)
      assert.deepEqual(
        json(await t.call({ method: 'GET', url: `/v1/check-results/${ofAnotherAccount}`, as: stranger })),
        [],
      )

      // What each location was given is still theirs to post.
      const own = await alphaAgent.postBatch(alphaJobs.map((job) => jobResultBody(job, outcome)))
      assert.deepEqual(
        json(own).results.map((r: { statusCode: number }) => r.statusCode),
        [204, 204],
      )
      const betas = await betaAgent.postBatch(
        [...betaJobs, betaTrigger as AgentJob].map((job) => jobResultBody(job, outcome)),
      )
      assert.deepEqual(
        json(betas).results.map((r: { statusCode: number }) => r.statusCode),
        [204, 204, 204],
      )
      assert.equal((await resultsOf(onlyAlpha)).length, 1)
      assert.equal((await resultsOf(onlyBeta)).length, 1)
      assert.equal((await resultsOf(both)).length, 3, 'alpha’s run, beta’s run and beta’s one-off run')
    })

    test('a finished run answers a repeated post 204 and changes nothing, whoever holds the next run', async () => {
      const gamma = await locationWithKey('gamma')
      const checkId = await createCheck('retried', ['gamma'], ONE_RETRY)
      nowMs = await dueOf(checkId)
      const first = as(gamma.rawKey)
      const [job] = await first.poll()
      assert.equal(job?.checkId, checkId)
      const stored = jobResultBody(job as AgentJob, await outcomeOf(job as AgentJob))
      assert.equal((await first.post(stored)).statusCode, 204)
      assert.equal((await first.post(stored)).statusCode, 204, 'a lost answer posted again')
      assert.deepEqual(
        (await first.postBatch([stored])).json().results.map((r: { statusCode: number }) => r.statusCode),
        [204],
      )

      // The next run is leased to another agent of the location.
      nowMs = await dueOf(checkId)
      const nextAgentId = randomUUID()
      const [next] = await as(gamma.rawKey, nextAgentId).poll()
      assert.ok(next && next.slotKey !== job?.slotKey)
      const leased = await listSchedule(t.ctx, checkId)
      // The finished run again, failing this time, posted under the id of the agent holding the next one.
      const failing = {
        ...stored,
        resultId: randomUUID(),
        outcome: await outcomeOf(job as AgentJob, '/down'),
      }
      const again = await as(gamma.rawKey, nextAgentId).post(failing)
      assert.equal(again.statusCode, 204, again.body)
      assert.deepEqual(
        (await resultsOf(checkId)).map((result) => result.id),
        [job?.resultId],
        'nothing stored',
      )
      assert.deepEqual(await listSchedule(t.ctx, checkId), leased, 'the next run keeps its lease')
      assert.deepEqual(
        await t.ctx.db
          .selectFrom('check_retries')
          .select('slot_key')
          .where('check_id', '=', checkId)
          .execute(),
        [],
        'no retry planned',
      )
    })

    test('a suite run cancelled while no agent holds it is not given out again: it ends cancelled, its slot moves on', async () => {
      const sigma = await locationWithKey('sigma')
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/automation',
        payload: {
          name: 'suite on sigma',
          locations: [],
          privateLocations: ['sigma'],
          dependencies: [
            { path: 'playwright.config.ts', content: 'export default { testDir: "./tests" }\n' },
            {
              path: 'tests/one.spec.ts',
              content: "import { test } from '@playwright/test'\ntest('one', async () => {})\n",
            },
          ],
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const checkId = json(created).id as string
      const dueMs = await dueOf(checkId)
      nowMs = dueMs
      const [job] = await as(sigma.rawKey).poll()
      assert.equal(job?.checkId, checkId)
      const cancelled = await t.call({ method: 'POST', url: `/v1/checks/${checkId}/cancel` })
      assert.equal(cancelled.statusCode, 204, cancelled.body)

      // Its agent is gone before it learnt of the cancel: once the lease runs out, another agent claims the run.
      nowMs += t.ctx.runnerLeaseMs + 1
      assert.deepEqual(await as(sigma.rawKey).poll(), [], 'the cancelled run is not run again')
      const results = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
      assert.deepEqual(
        results.map((r: any) => [r.isCancelled, r.hasFailures, r.resultType, r.runLocation, r.error]),
        [[true, false, 'FINAL', 'sigma', { type: 'CANCELLED', message: 'The run was cancelled' }]],
      )
      assert.deepEqual(results[0].playwrightCheckResult.tests, [])
      const [slot] = await listSchedule(t.ctx, checkId)
      assert.equal(slot?.lease_owner, null)
      assert.ok(Number(slot?.next_due_ms) > dueMs, 'the slot moved on to its next run')
      const runs = await t.ctx.db
        .selectFrom('suite_runs')
        .selectAll()
        .where('check_id', '=', checkId)
        .execute()
      assert.deepEqual(runs, [], 'nothing of it is in flight')
      const again = await t.call({ method: 'POST', url: `/v1/checks/${checkId}/cancel` })
      assert.equal(again.statusCode, 409, again.body)
    })

    test('a run in flight when its check is edited is still stored; one moved off the location is not', async () => {
      const delta = await locationWithKey('delta')
      await locationWithKey('epsilon')
      const edited = await createCheck('edited', ['delta'])
      const moved = await createCheck('moved', ['delta'])
      nowMs = Math.max(await dueOf(edited), await dueOf(moved))
      const agent = as(delta.rawKey)
      const jobs = await agent.poll()
      assert.deepEqual(jobs.map((job) => job.checkId).sort(), [edited, moved].sort())
      const put = (checkId: string, payload: object) =>
        t.call({ method: 'PUT', url: `/v1/checks/${checkId}`, payload })
      assert.equal((await put(edited, { name: 'renamed', frequency: 5 })).statusCode, 200)
      assert.equal((await put(moved, { privateLocations: ['epsilon'] })).statusCode, 200)
      const answer = await agent.postBatch(
        await Promise.all(jobs.map(async (job) => jobResultBody(job, await outcomeOf(job)))),
      )
      const statusOf = (checkId: string) =>
        json(answer).results[jobs.findIndex((job) => job.checkId === checkId)].statusCode
      assert.deepEqual([statusOf(edited), statusOf(moved)], [204, 404])
      assert.equal((await resultsOf(edited)).length, 1)
      assert.deepEqual(await resultsOf(moved), [])
      const [slot] = await listSchedule(t.ctx, edited)
      assert.equal(slot?.lease_owner, null, 'the slot moved on')
      const nextMs = Number(slot?.next_due_ms)
      assert.ok(nextMs > nowMs && nextMs <= nowMs + 5 * 60_000, 'onto the new frequency')
    })

    test('a retry falling due after its check was deactivated is dropped, not given to the agent', async () => {
      const upsilon = await locationWithKey('upsilon')
      const checkId = await createCheck('paused before its retry', ['upsilon'], {
        request: { url: `${base}/down` },
        retryStrategy: { type: 'FIXED', baseBackoffSeconds: 30, maxRetries: 2, sameRegion: true },
      })
      nowMs = await dueOf(checkId)
      const agent = as(upsilon.rawKey)
      const [job] = await agent.poll()
      assert.equal(job?.checkId, checkId)
      const answer = await agent.post(
        jobResultBody(job as AgentJob, await outcomeOf(job as AgentJob, '/down')),
      )
      assert.equal(answer.statusCode, 204, answer.body)
      const retries = async () =>
        (
          await t.store.db
            .selectFrom('check_retries')
            .select('attempt')
            .where('check_id', '=', checkId)
            .execute()
        ).map((row) => Number(row.attempt))
      assert.deepEqual(await retries(), [2])
      const pause = await t.call({
        method: 'PUT',
        url: `/v1/checks/${checkId}`,
        payload: { activated: false },
      })
      assert.equal(pause.statusCode, 200)
      nowMs += 30_000
      assert.deepEqual(await agent.poll(), [])
      assert.deepEqual(await retries(), [])
      assert.equal((await resultsOf(checkId)).length, 1)
    })

    test('artifacts go only under the result id of a script run the location holds, while it is open', async () => {
      const zeta = await locationWithKey('zeta')
      const eta = await locationWithKey('eta')
      const both = await createScriptCheck('both', { locations: [], privateLocations: ['zeta', 'eta'] })
      nowMs = await dueOf(both)
      const zetaAgent = as(zeta.rawKey)
      const etaAgent = as(eta.rawKey)
      const [zetaJob] = await zetaAgent.poll()
      const [etaJob] = await etaAgent.poll()
      assert.ok(zetaJob && etaJob)
      assert.deepEqual([zetaJob.checkId, etaJob.checkId], [both, both])
      const bytes = (text: string) => Buffer.from(text)
      const artifact = async (checkId: string, resultId: string, path: string) => {
        const got = await t.call({
          method: 'GET',
          url: `/v1/check-results/${checkId}/${resultId}/artifacts/${path}`,
        })
        return got.statusCode === 200 ? got.rawPayload.toString() : got.statusCode
      }
      const refusal = (resultId: string) =>
        `Result ${resultId} is not of a run open for this location: it was not given to this location, or its run is over`

      // Each location uploads under its own run's result id while the run is open.
      assert.equal(
        (await zetaAgent.upload(both, zetaJob.resultId, 'trace-1.zip', bytes('zeta'))).statusCode,
        204,
      )
      assert.equal(
        (await etaAgent.upload(both, etaJob.resultId, 'trace-1.zip', bytes('eta'))).statusCode,
        204,
      )
      assert.equal(
        (await zetaAgent.upload(both, zetaJob.resultId, 'trace-1.zip', bytes('zeta again'))).statusCode,
        204,
        'an upload retried replaces its own artifact',
      )
      // Not under another location's run, nor under a made-up id of the check it holds a run of.
      const madeUp = randomUUID()
      for (const [resultId, path] of [
        [etaJob.resultId, 'trace-1.zip'],
        [etaJob.resultId, 'screenshot-1.png'],
        [madeUp, 'trace-1.zip'],
      ] as const) {
        const refused = await zetaAgent.upload(both, resultId, path, bytes('forged'))
        assert.equal(refused.statusCode, 404, refused.body)
        assert.deepEqual(json(refused), { statusCode: 404, error: 'Not Found', message: refusal(resultId) })
      }
      // Nor under a run of another check (its result id, another check's path).
      const elsewhere = await zetaAgent.upload(
        await createScriptCheck('other', { activated: false, privateLocations: ['zeta'] }),
        zetaJob.resultId,
        'trace-1.zip',
        bytes('forged'),
      )
      assert.equal(elsewhere.statusCode, 404)

      // Once each run's outcome is stored, nobody uploads under it any more: not its location, not another.
      const outcome = passingOutcome(nowMs)
      const posted = await etaAgent.postBatch([jobResultBody(etaJob, outcome)])
      assert.equal(json(posted).results[0].statusCode, 204)
      assert.equal(
        (await zetaAgent.upload(both, etaJob.resultId, 'trace-1.zip', bytes('forged'))).statusCode,
        404,
      )
      assert.equal(
        (await etaAgent.upload(both, etaJob.resultId, 'trace-1.zip', bytes('late'))).statusCode,
        404,
      )
      assert.equal((await zetaAgent.post(jobResultBody(zetaJob, outcome))).statusCode, 204)
      assert.equal(
        (await zetaAgent.upload(both, zetaJob.resultId, 'trace-2.zip', bytes('late'))).statusCode,
        404,
      )
      assert.equal(await artifact(both, zetaJob.resultId, 'trace-1.zip'), 'zeta again')
      assert.equal(await artifact(both, zetaJob.resultId, 'trace-2.zip'), 404)
      assert.equal(await artifact(both, etaJob.resultId, 'trace-1.zip'), 'eta')
      assert.equal(await artifact(both, etaJob.resultId, 'screenshot-1.png'), 404)
      assert.equal(await artifact(both, madeUp, 'trace-1.zip'), 404)
    })

    /** A script check's run in a new location `slug`: polled by a first agent, whose lease ran out, then by a second. */
    async function runTakenOver(slug: string, name: string) {
      const location = await locationWithKey(slug)
      const checkId = await createScriptCheck(name, { locations: [], privateLocations: [slug] })
      nowMs = await dueOf(checkId)
      const first = as(location.rawKey)
      const second = as(location.rawKey)
      const [lost] = await first.poll()
      nowMs += t.ctx.runnerLeaseMs + 1
      const [taken] = await second.poll()
      assert.ok(lost && taken)
      assert.equal(taken.jobId, lost.jobId, 'the same run, taken over: still open')
      return { checkId, first, second, lost, taken }
    }

    test('after a lost lease each agent uploads under its own result id until the run’s outcome is stored', async () => {
      const { checkId, first, second, lost, taken } = await runTakenOver('iota', 'taken over')
      assert.notEqual(taken.resultId, lost.resultId)
      const upload = (agent: typeof first, job: AgentJob) =>
        agent.upload(checkId, job.resultId, 'trace-1.zip', Buffer.from(job.resultId))
      assert.equal((await upload(first, lost)).statusCode, 204)
      assert.equal((await upload(second, taken)).statusCode, 204)
      // The first agent's outcome is stored; the run stays with the second until its post moves it on.
      assert.equal((await first.post(jobResultBody(lost, passingOutcome(nowMs)))).statusCode, 204)
      const stored = await upload(first, lost)
      assert.equal(stored.statusCode, 409, stored.body)
      assert.equal(
        json(stored).message,
        `Result ${lost.resultId} is stored: its artifacts can no longer change`,
      )
      assert.equal((await upload(second, taken)).statusCode, 204)
      assert.equal((await second.post(jobResultBody(taken, passingOutcome(nowMs)))).statusCode, 204)
      assert.equal((await upload(second, taken)).statusCode, 404)
      assert.deepEqual(
        (await resultsOf(checkId)).map((result) => result.id),
        [lost.resultId],
      )
    })

    test('a stored outcome posted again while its run is still open changes nothing: its artifacts stay, it counts once', async () => {
      const { checkId, first, lost } = await runTakenOver('mu', 'reposted')
      const trace = `/v1/check-results/${checkId}/${lost.resultId}/artifacts/trace-1.zip`
      assert.equal(
        (await first.upload(checkId, lost.resultId, 'trace-1.zip', Buffer.from('trace'))).statusCode,
        204,
      )
      const body = jobResultBody(lost, passingOutcome(nowMs))
      // Retried while the first post is in flight, and once its answer got lost: alone, in a batch, twice in one.
      const posts = await Promise.all([first.post(body), first.post(body)])
      assert.deepEqual(
        posts.map((posted) => posted.statusCode),
        [204, 204],
      )
      assert.equal((await first.post(body)).statusCode, 204)
      assert.deepEqual(
        json(await first.postBatch([body, body])).results.map((r: { statusCode: number }) => r.statusCode),
        [204, 204],
      )
      const kept = await t.call({ method: 'GET', url: trace })
      assert.equal(kept.statusCode, 200, kept.body)
      assert.equal(kept.rawPayload.toString(), 'trace')
      assert.deepEqual(
        (await resultsOf(checkId)).map((result) => result.id),
        [lost.resultId],
      )
    })

    test('one outcome twice in a batch is stored and counted once', async () => {
      const nu = await locationWithKey('nu')
      const checkId = await createCheck('twice', ['nu'])
      nowMs = await dueOf(checkId)
      const agent = as(nu.rawKey)
      const [job] = await agent.poll()
      assert.ok(job)
      const body = jobResultBody(job, await outcomeOf(job))
      // A post retried while the first is still in flight (its answer late) comes with it.
      const [batch, single] = await Promise.all([agent.postBatch([body, body]), agent.post(body)])
      assert.deepEqual(
        json(batch).results.map((r: { statusCode: number }) => r.statusCode),
        [204, 204],
      )
      assert.equal(single.statusCode, 204)
      assert.equal((await resultsOf(checkId)).length, 1)
      const rollups = await t.ctx.db
        .selectFrom('analytics_rollups')
        .select(['resolution', 'results'])
        .where('check_id', '=', checkId)
        .orderBy('resolution')
        .execute()
      // Hour and day rows only: a check that isn't a heartbeat gets its minute buckets from its results.
      assert.deepEqual(
        rollups.map((row) => [Number(row.resolution), Number(row.results)]),
        [
          [60, 1],
          [1440, 1],
        ],
      )
    })

    test('an outcome whose check is deleted while it is stored is 404, alone in its batch: the others are stored', async () => {
      const where = await locationWithKey('deleted-meanwhile')
      const deletedId = await createCheck('deleted while posted', ['deleted-meanwhile'])
      const keptId = await createCheck('kept while posted', ['deleted-meanwhile'])
      nowMs = Math.max(await dueOf(deletedId), await dueOf(keptId))
      const agent = as(where.rawKey)
      const jobs = await agent.poll()
      const bodies = await Promise.all(
        [deletedId, keptId].map(async (checkId) => {
          const job = jobs.find((each) => each.checkId === checkId) as AgentJob
          return jobResultBody(job, await outcomeOf(job))
        }),
      )
      // The deletion has locked the check and waits where it deletes what names it; then the post.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [
        () => t.call({ method: 'DELETE', url: `/v1/checks/${deletedId}` }),
        () => agent.postBatch(bodies),
      ])
      const [deleted, posted] = answers as [(typeof answers)[0], (typeof answers)[0]]
      assert.equal(deleted.statusCode, 204, deleted.body)
      assert.equal(posted.statusCode, 200, posted.body)
      const [refused, stored] = json(posted).results as { statusCode: number; message?: string }[]
      assert.equal(refused?.statusCode, 404)
      assert.match(refused?.message ?? '', new RegExp(`^Check ${deletedId} not found`))
      assert.equal(stored?.statusCode, 204)
      assert.equal((await resultsOf(keptId)).length, 1)
    })

    test('a heartbeat or error event while the agent’s location is deleted: 401 as for its key once gone', async () => {
      const where = await locationWithKey('going-agents')
      const agentId = randomUUID()
      const agentCall = (url: string, payload: object) =>
        t.app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${where.rawKey}`, 'x-svc-agent-id': agentId },
          payload,
        })
      // The deletion has locked the location and waits where it deletes what names it; then the agent.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('private_location_keys'), [
        () => t.call({ method: 'DELETE', url: `/v1/private-locations/${where.id}` }),
        () => agentCall('/agent/v1/heartbeat', { version: '1.0.0', hostname: 'box', runningJobs: 0 }),
        () =>
          agentCall('/agent/v1/errors', {
            message: 'boom',
            agentVersion: '1.0.0',
            platform: 'linux',
            runtimeVersion: 'v24',
          }),
      ])
      assert.deepEqual(
        answers.map((res) => [res.statusCode, res.body && json(res).message]),
        [
          [204, ''],
          [401, 'Bad Token'],
          [401, 'Bad Token'],
        ],
      )
      const left = await Promise.all(
        (['agents', 'agent_events'] as const).map((table) =>
          t.store.db.selectFrom(table).select('id').where('private_location_id', '=', where.id).execute(),
        ),
      )
      assert.deepEqual(left, [[], []])
    })

    test('an open run posted under the result id of another run is 409 and stores nothing; the run stays open', async () => {
      const xi = await locationWithKey('xi')
      const checkId = await createCheck('reused id', ['xi'])
      const otherId = await createCheck('other', ['xi'])
      nowMs = Math.max(await dueOf(checkId), await dueOf(otherId))
      const agent = as(xi.rawKey)
      const firstJobs = await agent.poll()
      assert.equal(firstJobs.length, 2)
      for (const job of firstJobs)
        assert.equal((await agent.post(jobResultBody(job, await outcomeOf(job)))).statusCode, 204)
      const earlier = firstJobs.find((job) => job.checkId === checkId) as AgentJob
      nowMs = Math.max(await dueOf(checkId), await dueOf(otherId))
      const jobs = await agent.poll()
      const next = jobs.find((job) => job.checkId === checkId) as AgentJob
      const other = jobs.find((job) => job.checkId === otherId) as AgentJob
      assert.ok(next && other)
      const reusing = { ...jobResultBody(next, await outcomeOf(next)), resultId: earlier.resultId }
      const refusal = {
        statusCode: 409,
        error: 'Conflict',
        message: `Result ${earlier.resultId} is another run's: each run is posted under the result id it was given`,
      }
      const single = await agent.post(reusing)
      assert.deepEqual([single.statusCode, json(single)], [409, refusal])
      // In a batch: under a stored result's id, and under an id another outcome of the batch carries.
      const otherBody = jobResultBody(other, await outcomeOf(other))
      const batch = await agent.postBatch([
        reusing,
        otherBody,
        { ...jobResultBody(next, await outcomeOf(next)), resultId: other.resultId },
      ])
      assert.equal(batch.statusCode, 200, batch.body)
      assert.deepEqual(
        json(batch).results.map((r: { statusCode: number; message?: string }) => [r.statusCode, r.message]),
        [
          [409, refusal.message],
          [204, undefined],
          [
            409,
            `Result ${other.resultId} is another run's: each run is posted under the result id it was given`,
          ],
        ],
      )
      assert.deepEqual(
        (await resultsOf(checkId)).map((result) => result.id),
        [earlier.resultId],
      )
      assert.equal((await resultsOf(otherId)).length, 2)
      assert.ok((await resultsOf(otherId)).some((result) => result.id === other.resultId))
      // Under its own id it still lands.
      assert.equal((await agent.post(jobResultBody(next, await outcomeOf(next)))).statusCode, 204)
      assert.equal((await resultsOf(checkId)).length, 2)
    })

    test('values a store can’t hold are 400 in the error shape, never 500; an error text with U+0000 is kept', async () => {
      const omicron = await locationWithKey('omicron')
      const checkId = await createCheck('bounds', ['omicron'], ONE_RETRY)
      nowMs = await dueOf(checkId)
      const agentId = randomUUID()
      const agent = as(omicron.rawKey, agentId)
      const [job] = await agent.poll()
      assert.ok(job)
      const failing = jobResultBody(job, await outcomeOf(job, '/down'))
      const call = (method: 'POST', url: string, payload: object) =>
        t.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${omicron.rawKey}`, 'x-svc-agent-id': agentId },
          payload,
        })
      const beat = { version: '1.0.0', hostname: 'omicron-1', runningJobs: 0 }
      const event = { message: 'boom', agentVersion: '1.0.0', platform: 'linux', runtimeVersion: 'v24' }
      const refused = {
        'a status code no HTTP answer has': [
          '/agent/v1/results',
          { ...failing, outcome: { ...failing.outcome, statusCode: 2 ** 31 } },
          'body.outcome.statusCode',
        ],
        'a leap second, which no Date holds': [
          '/agent/v1/results',
          {
            ...failing,
            outcome: {
              ...failing.outcome,
              verdict: { ...failing.outcome.verdict, startedAt: '2016-12-31T23:59:60Z' },
            },
          },
          'body.outcome.verdict.startedAt',
        ],
        'a fractional start': [
          '/agent/v1/results',
          { ...failing, firstStartedMs: nowMs + 0.5 },
          'body.firstStartedMs',
        ],
        'a start past any date': [
          '/agent/v1/results',
          { ...failing, firstStartedMs: 1e20 },
          'body.firstStartedMs',
        ],
        'a slot key with U+0000': ['/agent/v1/results', { ...failing, slotKey: 'a\u0000b' }, 'body.slotKey'],
        'in a batch': [
          '/agent/v1/results/batch',
          { results: [{ ...failing, slotKey: 'a\u0000b' }] },
          'body.results.0.slotKey',
        ],
        'more running jobs than a count holds': [
          '/agent/v1/heartbeat',
          { ...beat, runningJobs: 2 ** 31 },
          'body.runningJobs',
        ],
        'a hostname with U+0000': ['/agent/v1/heartbeat', { ...beat, hostname: 'a\u0000b' }, 'body.hostname'],
        'an error event with U+0000': ['/agent/v1/errors', { ...event, message: 'a\u0000b' }, 'body.message'],
      } as const
      for (const [what, [url, payload, path]] of Object.entries(refused)) {
        const answer = await call('POST', url, payload)
        assert.equal(answer.statusCode, 400, `${what}: ${answer.body}`)
        const body = json(answer)
        assert.deepEqual(Object.keys(body).sort(), ['attributes', 'error', 'message', 'statusCode'], what)
        assert.equal(body.attributes.errors[0].path, path, what)
      }
      assert.deepEqual(await resultsOf(checkId), [])
      // What a run found may hold U+0000: its error text keeps the rest.
      const verdict = { ...failing.outcome.verdict, error: { type: 'ASSERTION', message: 'got a\u0000b' } }
      const posted = await agent.post({ ...failing, outcome: { ...failing.outcome, verdict } })
      assert.equal(posted.statusCode, 204, posted.body)
      const [stored] = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
      assert.equal(stored.resultType, 'ATTEMPT', 'its retry planned')
      assert.deepEqual(stored.error, { type: 'ASSERTION', message: 'got a\ufffdb' })
    })

    test('a detail nested deeper than 500 levels is 400, alone or in a batch, never a 500; 500 levels are stored; a body nested far deeper is refused whole before it is parsed', async () => {
      const chi = await locationWithKey('chi')
      const checkId = await createCheck('deep detail', ['chi'])
      nowMs = await dueOf(checkId)
      const agentId = randomUUID()
      const [job] = await as(chi.rawKey, agentId).poll()
      assert.ok(job)
      const body = jobResultBody(job, { ...(await outcomeOf(job)), detail: '<detail>' })
      /** A detail of objects nested `levels` deep, as text: JSON.stringify overflows its stack on deep ones. */
      const nested = (levels: number) => `${'{"inner": '.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`
      const post = (url: string, detail: string, batch: boolean) =>
        t.app.inject({
          method: 'POST',
          url,
          headers: {
            authorization: `Bearer ${chi.rawKey}`,
            'x-svc-agent-id': agentId,
            'content-type': 'application/json',
          },
          payload: JSON.stringify(batch ? { results: [body] } : body).replace('"<detail>"', () => detail),
        })
      for (const levels of [501, RESULT_JSON_DEPTH - 4]) {
        const alone = await post('/agent/v1/results', nested(levels), false)
        assert.equal(alone.statusCode, 400, `${levels}: ${alone.body}`)
        assert.deepEqual(json(alone).attributes.errors, [
          { path: 'body.outcome.detail', message: 'is nested deeper than 500 levels' },
        ])
        const inBatch = await post('/agent/v1/results/batch', nested(levels), true)
        assert.equal(inBatch.statusCode, 200, inBatch.body)
        assert.deepEqual(json(inBatch).results, [
          {
            resultId: job.resultId,
            statusCode: 400,
            message: 'body.results.0.outcome.detail is nested deeper than 500 levels',
          },
        ])
      }
      // The agent posts a refused batch's outcomes one by one, so each still gets its own answer.
      const tooDeep = `must not nest arrays and objects more than ${RESULT_JSON_DEPTH} levels deep`
      for (const [url, batch] of [
        ['/agent/v1/results', false],
        ['/agent/v1/results/batch', true],
      ] as const) {
        const refused = await post(url, nested(10_000), batch)
        assert.equal(refused.statusCode, 400, refused.body)
        assert.deepEqual(json(refused).attributes.errors, [{ path: 'body', message: tooDeep }])
      }
      assert.deepEqual(await resultsOf(checkId), [])
      const stored = await post('/agent/v1/results', nested(500), false)
      assert.equal(stored.statusCode, 204, stored.body)
      const [result] = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
      assert.equal(JSON.stringify(result.urlCheckResult), nested(500).replaceAll(' ', ''))
    })

    test('run times that contradict each other, a first start and a cancel an agent could not have seen are 400; a skewed clock moves the run into its job window', async () => {
      const phi = await locationWithKey('phi')
      const checkId = await createCheck('claims', ['phi'], ONE_RETRY)
      const dueMs = await dueOf(checkId)
      nowMs = dueMs + 10_000
      const agent = as(phi.rawKey)
      const [job] = await agent.poll()
      assert.ok(job)
      assert.equal(job.firstStartedMs, nowMs)
      nowMs += 1000
      const failing = jobResultBody(job, await outcomeOf(job, '/down'))
      const withVerdict = (changes: object) => ({
        ...failing,
        outcome: { ...failing.outcome, verdict: { ...failing.outcome.verdict, ...changes } },
      })
      const at = (ms: number) => new Date(ms).toISOString()
      const DAY = 86_400_000
      const refused = {
        'a stop before the start': [
          withVerdict({ startedAt: at(nowMs), stoppedAt: at(nowMs - 1000) }),
          'body.outcome.verdict.stoppedAt',
        ],
        'a response time longer than the run': [
          withVerdict({ responseTime: 1e12 }),
          'body.outcome.verdict.responseTime',
        ],
        'a cancel nobody asked for (hiding the failure)': [
          withVerdict({ isCancelled: true }),
          'body.outcome.verdict.isCancelled',
        ],
        'a first start before the job fell due (no retries left)': [
          { ...failing, firstStartedMs: dueMs - DAY },
          'body.firstStartedMs',
        ],
        'a first start in the future (retries forever)': [
          { ...failing, firstStartedMs: nowMs + DAY },
          'body.firstStartedMs',
        ],
      } as const
      for (const [what, [payload, path]] of Object.entries(refused)) {
        const answer = await agent.post(payload)
        assert.equal(answer.statusCode, 400, `${what}: ${answer.body}`)
        const body = json(answer)
        assert.equal(body.attributes.errors[0].path, path, what)
        assert.match(body.message, new RegExp(`^${path.replaceAll('.', '\\.')} `), what)
      }
      const batch = await agent.postBatch([withVerdict({ isCancelled: true })])
      assert.equal(batch.statusCode, 200, batch.body)
      assert.deepEqual(
        json(batch).results.map((r: { statusCode: number }) => r.statusCode),
        [400],
      )
      assert.deepEqual(await resultsOf(checkId), [])

      // An agent clock a day fast: taken, the run moved whole into its job's window (never dated in the
      // future, where it would stay the check's latest past retention).
      const fast = withVerdict({ startedAt: at(nowMs + DAY), stoppedAt: at(nowMs + DAY + 1000) })
      const posted = await agent.post(fast)
      assert.equal(posted.statusCode, 204, posted.body)
      const [attempt] = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
      assert.deepEqual(
        [attempt.resultType, attempt.hasFailures, attempt.isCancelled, attempt.startedAt, attempt.stoppedAt],
        ['ATTEMPT', true, false, at(nowMs - 1000), at(nowMs)],
      )

      // The retry carries the first attempt's start, which the agent must echo as given.
      nowMs += 60_000
      const [retry] = await agent.poll()
      assert.deepEqual([retry?.attempt, retry?.firstStartedMs], [2, job.firstStartedMs])
      const retried = jobResultBody(retry as AgentJob, await outcomeOf(retry as AgentJob, '/down'))
      const moved = await agent.post({ ...retried, firstStartedMs: nowMs })
      assert.equal(moved.statusCode, 400, moved.body)
      assert.equal(json(moved).attributes.errors[0].path, 'body.firstStartedMs')
      assert.equal((await agent.post(retried)).statusCode, 204)
      const [final] = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
      assert.deepEqual([final.resultType, final.hasFailures], ['FINAL', true])
    })

    test('a run’s times posted with a UTC offset are stored in UTC: its day on status pages is the UTC day', async () => {
      const pi = await locationWithKey('pi-offset')
      const checkId = await createCheck('offset', ['pi-offset'])
      nowMs = await dueOf(checkId)
      const agent = as(pi.rawKey)
      const [job] = await agent.poll()
      assert.ok(job)
      const body = jobResultBody(job, await outcomeOf(job))
      // 23:30 UTC, sent as 01:30 the next day at +02:00 (a run's times lie between its due time and now).
      nowMs = Math.max(nowMs, Math.floor(nowMs / 86_400_000) * 86_400_000 + 84_600_000)
      const utc = new Date(nowMs)
      const local = new Date(utc.getTime() + 7_200_000).toISOString().replace('Z', '+02:00')
      const verdict = { ...body.outcome.verdict, startedAt: local, stoppedAt: local }
      const posted = await agent.post({ ...body, outcome: { ...body.outcome, verdict } })
      assert.equal(posted.statusCode, 204, posted.body)
      const [stored] = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
      assert.equal(stored.startedAt, utc.toISOString())
      assert.equal(stored.stoppedAt, utc.toISOString())
    })

    test('a script outcome lists its artifacts by paths inside the result, under its type’s key: the results stay readable', async () => {
      const tau = await locationWithKey('tau')
      const checkId = await createScriptCheck('listed', { locations: [], privateLocations: ['tau'] })
      nowMs = await dueOf(checkId)
      const agent = as(tau.rawKey)
      const [job] = await agent.poll()
      assert.ok(job)
      const withDetail = (detail: unknown, detailKey = 'browserCheckResult') =>
        jobResultBody(job, { ...passingOutcome(nowMs), detailKey, detail })
      const refused = {
        'not a list': [{ screenshots: 5 }, 'screenshots'],
        'an entry without a path': [{ traces: ['trace-1.zip'] }, 'traces'],
        'a path leaving the result': [{ videos: [{ path: '../../other/video.webm' }] }, 'videos'],
        'not an object': [[1, 2], ''],
      } as const
      for (const [what, [detail, field]] of Object.entries(refused)) {
        const path = `body.outcome.detail${field ? `.${field}` : ''}`
        const answer = await agent.post(withDetail(detail))
        assert.equal(answer.statusCode, 400, `${what}: ${answer.body}`)
        assert.deepEqual(Object.keys(json(answer)).sort(), ['attributes', 'error', 'message', 'statusCode'])
        assert.equal(json(answer).attributes.errors[0].path, path, what)
        const [item] = json(await agent.postBatch([withDetail(detail)])).results
        assert.equal(item.statusCode, 400, what)
        assert.match(
          item.message,
          new RegExp(`^body\\.results\\.0\\.outcome\\.detail${field ? `\\.${field}` : ''} `),
          what,
        )
      }
      assert.deepEqual(await resultsOf(checkId), [])
      // Posted under another key (`id` here), the detail goes under its type's: the result keeps its own fields.
      const trace = { path: 'trace-1.zip' }
      const posted = await agent.post(withDetail({ traces: [trace], screenshots: [], videos: [] }, 'id'))
      assert.equal(posted.statusCode, 204, posted.body)
      const listed = await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` })
      assert.equal(listed.statusCode, 200, listed.body)
      const [result] = json(listed)
      assert.equal(result.id, job.resultId)
      assert.equal(
        result.browserCheckResult.traceUrl,
        `${t.ctx.publicUrl}/v1/check-results/${checkId}/${job.resultId}/artifacts/trace-1.zip`,
      )
    })

    test('an artifact goes up as application/octet-stream: another body is 415 and stores nothing', async () => {
      const pi = await locationWithKey('pi')
      const checkId = await createScriptCheck('typed', { locations: [], privateLocations: ['pi'] })
      nowMs = await dueOf(checkId)
      const agentId = randomUUID()
      const [job] = await as(pi.rawKey, agentId).poll()
      assert.ok(job)
      const put = (headers: Record<string, string>, payload?: string) =>
        t.app.inject({
          method: 'PUT',
          url: `/agent/v1/checks/${checkId}/results/${job.resultId}/artifacts/trace-1.zip`,
          headers: { authorization: `Bearer ${pi.rawKey}`, 'x-svc-agent-id': agentId, ...headers },
          ...(payload === undefined ? {} : { payload }),
        })
      for (const [what, answer] of [
        ['JSON', await put({ 'content-type': 'application/json' }, '{"a":1}')],
        ['text', await put({ 'content-type': 'text/plain' }, 'hello')],
        ['no body', await put({})],
      ] as const) {
        assert.deepEqual(
          [answer.statusCode, json(answer)],
          [
            415,
            {
              statusCode: 415,
              error: 'Unsupported Media Type',
              message: 'An artifact is uploaded as application/octet-stream',
            },
          ],
          what,
        )
      }
      assert.equal(await t.ctx.scripts.artifacts.size(checkId, job.resultId), 0)
      assert.equal((await put({ 'content-type': 'application/octet-stream' }, 'trace')).statusCode, 204)
    })

    test('a key revoked while its agent long-polls gets no run: the poll answers 401', async () => {
      const rho = await locationWithKey('rho')
      const checkId = await createCheck('revoked', ['rho'])
      const dueMs = await dueOf(checkId)
      nowMs = dueMs - 60_000
      const { poll } = await sleepingPoll(rho.rawKey)
      const [key] = json(await t.call({ method: 'GET', url: `/v1/private-locations/${rho.id}` })).keys
      const revoked = await t.call({
        method: 'DELETE',
        url: `/v1/private-locations/${rho.id}/keys/${key.id}`,
      })
      assert.equal(revoked.statusCode, 204)
      nowMs = dueMs
      await timePassed()
      const answer = await poll
      assert.equal(answer.statusCode, 401, answer.body)
      assert.deepEqual(json(answer), {
        statusCode: 401,
        error: 'Unauthorized',
        message: 'Bad Token',
        attributes: json(answer).attributes,
      })
      const [slot] = await listSchedule(t.ctx, checkId)
      assert.equal(slot?.lease_owner, null, 'the run stays for an agent with a live key')
    })

    test('a proxy URL changed while its agent long-polls goes with the runs that poll then takes', async () => {
      const proxied = await locationWithKey('proxied-poll')
      const put = (proxyUrl: string | null) =>
        t.call({
          method: 'PUT',
          url: `/v1/private-locations/${proxied.id}`,
          payload: { name: 'proxied-poll', slugName: 'proxied-poll', proxyUrl },
        })
      assert.equal((await put('http://old-proxy.internal:3128')).statusCode, 200)
      const checkId = await createCheck('proxied', ['proxied-poll'])
      const dueMs = await dueOf(checkId)
      nowMs = dueMs - 60_000
      const { poll } = await sleepingPoll(proxied.rawKey)
      const changed = await put('http://new-proxy.internal:3128')
      assert.equal(changed.statusCode, 200, changed.body)
      nowMs = dueMs
      await timePassed()
      const answer = await poll
      assert.equal(answer.statusCode, 200, answer.body)
      const jobs: AgentJob[] = json(answer)
      assert.deepEqual(
        jobs.map((job) => [job.checkId, job.proxyUrl]),
        [[checkId, 'http://new-proxy.internal:3128']],
        'the run goes through the proxy the location has now',
      )
      assert.equal((await put(null)).statusCode, 200)
    })

    test('a run of the in-process runner keeps its artifacts: no location’s key writes under them', {
      skip: browserTestsSkipReason(),
    }, async () => {
      const theta = await locationWithKey('theta')
      const checkId = await createScriptCheck('local', { locations: ['local'], privateLocations: ['theta'] })
      nowMs = await dueOf(checkId)
      const [job] = await as(theta.rawKey).poll()
      assert.equal(job?.checkId, checkId, 'theta holds a run of the check')
      const triggered = await t.call({ method: 'POST', url: `/v1/checks/${checkId}/trigger` })
      assert.equal(triggered.statusCode, 200, triggered.body)
      const result = json(triggered)
      assert.equal(result.runLocation, 'local')
      const [trace] = result.browserCheckResult.traces as { path: string }[]
      assert.ok(trace)
      const url = `/v1/check-results/${checkId}/${result.id}/artifacts/${trace.path}`
      const before = (await t.call({ method: 'GET', url })).rawPayload
      const refused = await as(theta.rawKey).upload(checkId, result.id, trace.path, Buffer.from('forged'))
      assert.equal(refused.statusCode, 404, refused.body)
      const after = await t.call({ method: 'GET', url })
      assert.equal(after.statusCode, 200)
      assert.ok(after.rawPayload.equals(before), 'the trace is the run’s own')
    })

    test('an agent is its location and its id: another location’s key sending that id renews and rewrites nothing of it', async () => {
      const kappa = await locationWithKey('kappa')
      const lambda = await locationWithKey('lambda')
      const checkId = await createCheck('kappa only', ['kappa'])
      nowMs = await dueOf(checkId)
      const agentId = randomUUID()
      const agentCall = (rawKey: string, method: 'POST' | 'DELETE', hostname?: string) =>
        t.app.inject({
          method,
          url: '/agent/v1/heartbeat',
          headers: { authorization: `Bearer ${rawKey}`, 'x-svc-agent-id': agentId },
          ...(hostname ? { payload: { version: '9.9.9', hostname, runningJobs: 1 } } : {}),
        })
      assert.equal((await agentCall(kappa.rawKey, 'POST', 'kappa-box')).statusCode, 200)
      const [job] = await as(kappa.rawKey, agentId).poll()
      assert.equal(job?.checkId, checkId)
      const [leased] = await listSchedule(t.ctx, checkId)
      const kappaSeenAt = new Date(nowMs).toISOString()

      nowMs += 20_000
      const theirs = await agentCall(lambda.rawKey, 'POST', 'lambda-box')
      assert.equal(theirs.statusCode, 200, theirs.body)
      assert.deepEqual(await listSchedule(t.ctx, checkId), [leased], 'kappa’s lease is not renewed')
      const agentsOf = async (locationId: string) =>
        json(await t.call({ method: 'GET', url: `/v1/private-locations/${locationId}` })).agents.map(
          (agent: { id: string; hostname: string; lastSeenAt: string }) => [
            agent.id,
            agent.hostname,
            agent.lastSeenAt,
          ],
        )
      assert.deepEqual(await agentsOf(kappa.id), [[agentId, 'kappa-box', kappaSeenAt]])
      assert.deepEqual(await agentsOf(lambda.id), [[agentId, 'lambda-box', new Date(nowMs).toISOString()]])
      assert.equal((await agentCall(lambda.rawKey, 'DELETE')).statusCode, 204)
      assert.deepEqual(await agentsOf(lambda.id), [])
      assert.deepEqual(
        await agentsOf(kappa.id),
        [[agentId, 'kappa-box', kappaSeenAt]],
        'its goodbye is its own',
      )

      // Kappa's agent still renews its lease and completes its run.
      assert.equal((await agentCall(kappa.rawKey, 'POST', 'kappa-box')).statusCode, 200)
      const [renewed] = await listSchedule(t.ctx, checkId)
      assert.equal(Number(renewed?.next_due_ms), nowMs + t.ctx.runnerLeaseMs)
      // The owner form migration 0013 gives the leases of agents running across the upgrade.
      assert.equal(renewed?.lease_owner, `agent:${kappa.id}:${agentId}`)
      const posted = await as(kappa.rawKey, agentId).post(jobResultBody(job, await outcomeOf(job)))
      assert.equal(posted.statusCode, 204, posted.body)
      assert.equal((await listSchedule(t.ctx, checkId))[0]?.lease_owner, null)
      assert.equal((await resultsOf(checkId)).length, 1)
    })
  })
}

for (const engine of testEngines()) {
  describe(`the per-run artifact limit on ${engine.engine}`, () => {
    const limitBytes = 1000
    // Made in `before`: a run whose name pattern skips these tests runs neither hook.
    let dir = ''
    let t: TestApp
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-agent-artifacts-'))
      t = await createTestApp(engine, { artifacts: new LocalArtifactStore(dir, limitBytes) })
    })
    after(async () => {
      await t?.close()
      if (dir) rmSync(dir, { recursive: true, force: true })
    })

    /** A browser check on a new private location, and a run of it that location's agent took. */
    const claimRun = async (slugName: string) => {
      const location = json(
        await t.call({ method: 'POST', url: '/v1/private-locations', payload: { name: slugName, slugName } }),
      )
      const { rawKey } = json(
        await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }),
      )
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/browser',
        payload: {
          name: 'heavy',
          script: SCRIPT,
          doubleCheck: false,
          activated: false,
          privateLocations: [slugName],
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const checkId = json(created).id as string
      const nowMs = t.ctx.clock.now().getTime()
      const slotKey = `trigger:${randomUUID()}`
      await insertTriggerJob(t.ctx, {
        slotKey,
        checkId,
        location: `private:${location.id}`,
        attempt: 1,
        dueMs: nowMs,
        firstStartedMs: nowMs,
      })
      const headers = { authorization: `Bearer ${rawKey}`, 'x-svc-agent-id': randomUUID() }
      const [job] = json(await t.app.inject({ method: 'GET', url: '/agent/v1/jobs?waitSeconds=0', headers }))
      assert.equal(job?.slotKey, slotKey)
      const upload = (node: FastifyInstance, path: string, bytes: Buffer) =>
        node.inject({
          method: 'PUT',
          url: `/agent/v1/checks/${checkId}/results/${job.resultId}/artifacts/${path}`,
          headers: { ...headers, 'content-type': 'application/octet-stream' },
          payload: bytes,
        })
      return { checkId, resultId: job.resultId as string, headers, upload }
    }

    test('uploads sent at once add up to the limit at most: the ones past it are 413', async () => {
      const { checkId, resultId, upload } = await claimRun('sigma')
      const answers = await Promise.all(
        ['trace-1.zip', 'trace-2.zip', 'trace-3.zip'].map((path) => upload(t.app, path, Buffer.alloc(400))),
      )
      assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [204, 204, 413])
      assert.equal(await t.ctx.scripts.artifacts.size(checkId, resultId), 800)
    })

    test('uploads of one run spread over two server nodes add up to the limit at most: past it is 413', async () => {
      const { checkId, resultId, upload } = await claimRun('tau')
      // A second node on the same store and artifact directory; its first write waits until the first
      // node has answered an upload of the same run, so both count the run's bytes before either writes.
      const writing = Promise.withResolvers<void>()
      const answered = Promise.withResolvers<void>()
      class HeldStore extends LocalArtifactStore {
        override async put(checkId: string, resultId: string, path: string, bytes: Buffer) {
          writing.resolve()
          await answered.promise
          await super.put(checkId, resultId, path, bytes)
        }
      }
      const pool = new PlaywrightPool({ concurrency: 1 })
      const otherNode = await buildApp({
        store: t.store,
        secretBox: createSecretBox(randomBytes(32)),
        publicUrl: t.ctx.publicUrl,
        scripts: { pool, artifacts: new HeldStore(dir, limitBytes) },
      })
      try {
        const first = upload(otherNode, 'trace-1.zip', Buffer.alloc(600, 1))
        // (An upload the other node refuses before writing fails below instead of waiting forever.)
        await Promise.race([writing.promise, first])
        const second = await upload(t.app, 'trace-2.zip', Buffer.alloc(600, 2))
        answered.resolve()
        assert.equal((await first).statusCode, 204, (await first).body)
        assert.equal(second.statusCode, 413, second.body)
        assert.deepEqual(json(second), {
          statusCode: 413,
          error: 'Payload Too Large',
          message: `The artifacts of result ${resultId} would exceed 1000 bytes, the per-run limit`,
        })
        assert.equal(await t.ctx.scripts.artifacts.size(checkId, resultId), 600)
      } finally {
        answered.resolve()
        await otherNode.close()
        await pool.close()
      }
    })

    test('a failed write gives its bytes back, and a re-upload of a path replaces it: the run counts it once', async () => {
      const { checkId, resultId, upload } = await claimRun('upsilon')
      let failWrites = 1
      class FlakyStore extends LocalArtifactStore {
        override async put(checkId: string, resultId: string, path: string, bytes: Buffer) {
          if (failWrites-- > 0) throw new Error('disk full')
          await super.put(checkId, resultId, path, bytes)
        }
      }
      const pool = new PlaywrightPool({ concurrency: 1 })
      const otherNode = await buildApp({
        store: t.store,
        secretBox: createSecretBox(randomBytes(32)),
        publicUrl: t.ctx.publicUrl,
        scripts: { pool, artifacts: new FlakyStore(dir, limitBytes) },
      })
      try {
        const failed = await upload(otherNode, 'trace-1.zip', Buffer.alloc(600, 1))
        assert.equal(failed.statusCode, 500, failed.body)
        assert.equal((await upload(otherNode, 'trace-1.zip', Buffer.alloc(600, 1))).statusCode, 204)
        // Replaced by 300 bytes: the run holds 300, so 700 more still fit.
        assert.equal((await upload(t.app, 'trace-1.zip', Buffer.alloc(300, 2))).statusCode, 204)
        assert.equal((await upload(t.app, 'trace-2.zip', Buffer.alloc(700, 3))).statusCode, 204)
        assert.equal((await upload(otherNode, 'screenshot-1.png', Buffer.alloc(1, 4))).statusCode, 413)
        assert.equal(await t.ctx.scripts.artifacts.size(checkId, resultId), 1000)
        assert.deepEqual(await artifactBytesOf(t.ctx, resultId), {
          total: 1000,
          paths: { 'trace-1.zip': 300, 'trace-2.zip': 700 },
        })
        // Runs given out over a day ago are forgotten, with what their artifacts counted.
        await t.store.db
          .updateTable('agent_script_runs')
          .set({ issued_ms: 0 })
          .where('result_id', '=', resultId)
          .execute()
        assert.ok((await forgetOldScriptRuns(t.ctx)) >= 1)
        assert.deepEqual(await artifactBytesOf(t.ctx, resultId), { total: undefined, paths: {} })
      } finally {
        await otherNode.close()
        await pool.close()
      }
    })
  })
}

for (const engine of testEngines()) {
  describe(`a server shutting down on ${engine.engine}`, () => {
    test('answers a waiting long-poll at once with no run, and leases none: Ctrl-C does not wait out the poll', async () => {
      let nowMs = Date.parse('2026-11-24T08:00:00.000Z')
      let onClockRead: (() => void) | undefined
      const t = await createTestApp(engine, {
        clock: {
          now: () => {
            onClockRead?.()
            return new Date(nowMs)
          },
        },
      })
      try {
        const location = json(
          await t.call({
            method: 'POST',
            url: '/v1/private-locations',
            payload: { name: 'Office', slugName: 'office' },
          }),
        )
        const { rawKey } = json(
          await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }),
        )
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: {
            name: 'office',
            locations: [],
            privateLocations: ['office'],
            doubleCheck: false,
            request: { url: 'http://127.0.0.1:9/' },
          },
        })
        assert.equal(created.statusCode, 201, created.body)
        const checkId = json(created).id as string
        const [slot] = await listSchedule(t.ctx, checkId)
        const dueMs = Number(slot?.next_due_ms)
        nowMs = dueMs - 60_000
        // The poll waits: its first claim found nothing due and it asked the clock how long to sleep.
        let reads = 0
        const waiting = Promise.withResolvers<void>()
        onClockRead = () => {
          if (++reads === 2) waiting.resolve()
        }
        const poll = t.app.inject({
          method: 'GET',
          url: '/agent/v1/jobs?waitSeconds=30',
          headers: { authorization: `Bearer ${rawKey}`, 'x-svc-agent-id': randomUUID() },
        })
        await waiting.promise
        onClockRead = undefined
        await t.app.close()
        // The run falls due while the poll is still open: a server that is stopping gives it to no one.
        nowMs = dueMs
        const answer = await poll
        assert.equal(answer.statusCode, 200, answer.body)
        assert.deepEqual(json(answer), [])
        const [after] = await listSchedule(t.ctx, checkId)
        assert.equal(after?.lease_owner, null, 'the run stays for the agents of a server that keeps running')
      } finally {
        await t.close()
      }
    })
  })
}
