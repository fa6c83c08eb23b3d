import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { browserTestsSkipReason } from '@svc/runner/testing'
import { cancelCheckRuns } from '../features/checks/check-triggers.service.ts'
import { holdingServer } from '../testing/holding-page.ts'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { unreachableWebhookChannel } from '../testing/webhook-channel.ts'
import { jobIdOf } from './jobs.ts'
import { claimDueRetries } from './retries.repo.ts'
import { createScheduler } from './scheduler.ts'
import { listSchedule } from './schedules.repo.ts'
import { deleteSuiteRuns, saveSuiteRuns } from './suite-runs.repo.ts'

const skip = browserTestsSkipReason()

/**
 * A suite whose second test opens HOLD_URL (a holding page) in a step, then waits a minute: in flight
 * for as long as a test needs. Released with `<h1>done</h1>` it passes, with anything else it fails.
 */
const SUITE = [
  {
    path: 'playwright.config.ts',
    content: `export default { testDir: './tests', timeout: 120_000, expect: { timeout: 500 } }\n`,
  },
  {
    path: 'tests/shop.spec.ts',
    content: `import { test, expect } from '@playwright/test'
test('quick', async () => { console.log('quick test ran') })
test.describe('checkout', () => {
  test('waits', async ({ page }) => {
    await test.step('open the held page', async () => {
      await page.goto(process.env.HOLD_URL, { timeout: 0 })
    })
    await expect(page.locator('h1')).toHaveText('done')
    await page.waitForTimeout(process.env.WAIT === 'yes' ? 60_000 : 0)
  })
})
`,
  },
]

for (const engine of testEngines()) {
  describe(`cancelling Playwright check suite runs on ${engine.engine}`, { skip }, () => {
    let t: TestApp
    let channelId = 0
    before(async () => {
      t = await createTestApp(engine)
      channelId = await unreachableWebhookChannel(t)
    })
    after(async () => {
      await t.close()
    })

    const createSuite = async (name: string, extra: Record<string, unknown> = {}) => {
      const response = await t.call({
        method: 'POST',
        url: '/v1/checks/automation',
        payload: {
          name,
          dependencies: SUITE,
          locations: ['local'],
          alertChannelSubscriptions: [{ alertChannelId: channelId, activated: true }],
          ...extra,
        },
      })
      assert.equal(response.statusCode, 201, response.body)
      return json(response)
    }
    /** Points the suite's held page at `url` (and makes its last test wait a minute or not). */
    const holdAt = async (checkId: string, url: string, wait = 'yes') => {
      const response = await t.call({
        method: 'PUT',
        url: `/v1/checks/${checkId}`,
        payload: {
          environmentVariables: [
            { key: 'HOLD_URL', value: url },
            { key: 'WAIT', value: wait },
          ],
        },
      })
      assert.equal(response.statusCode, 200, response.body)
    }
    const cancel = (checkId: string) => t.call({ method: 'POST', url: `/v1/checks/${checkId}/cancel` })
    /** The analytics window read: the same two hours for a whole test. */
    const fromS = Math.floor(Date.now() / 1000) - 3600
    /** What a cancelled run must leave alone: alerts, the check's status, its analytics. */
    const observed = async (checkId: string) => {
      const analytics = (metrics: string) =>
        t.call({
          method: 'GET',
          url: `/v1/analytics/playwright-checks/${checkId}?from=${fromS}&to=${fromS + 7200}&metrics=${metrics}`,
        })
      const status = json(await t.call({ method: 'GET', url: `/v1/check-statuses/${checkId}` }))
      return {
        notifications: json(
          await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${checkId}` }),
        ).map((n: { alertType: string }) => n.alertType),
        status: [status.status, status.since, status.lastCheckRunId],
        availability: json(await analytics('availability,responseTime_avg')).series,
        points: json(await analytics('responseTime')).series,
      }
    }
    /** One failing run first: a cancelled run, were it counted, would show as a recovery. */
    /** Only `checkId` is due: the other tests' suites fall due at their own offsets, none may run in this pass. */
    const dueAloneNow = async (checkId: string) => {
      await t.store.db
        .updateTable('check_schedules')
        .set({ next_due_ms: 0 })
        .where('check_id', '=', checkId)
        .execute()
      await t.store.db
        .updateTable('check_schedules')
        .set({ next_due_ms: Number.MAX_SAFE_INTEGER })
        .where('check_id', '!=', checkId)
        .execute()
    }
    const failOnce = async (checkId: string) => {
      const page = await holdingServer()
      try {
        await holdAt(checkId, page.url, 'no')
        const triggering = t.call({ method: 'POST', url: `/v1/checks/${checkId}/trigger` })
        await page.inFlight
        page.release('<h1>not yet</h1>')
        const failed = json(await triggering)
        assert.equal(failed.hasFailures, true, JSON.stringify(failed.playwrightCheckResult?.errors))
        assert.equal(failed.isCancelled, false)
        return failed
      } finally {
        page.close()
      }
    }

    test('a triggered run stops on cancel: the trigger answers the cancelled result, which changes nothing else', async () => {
      const check = await createSuite('triggered suite')
      const failed = await failOnce(check.id)
      const before = await observed(check.id)
      assert.deepEqual(before.notifications, ['ALERT_FAILURE'])
      assert.deepEqual(before.status, ['failing', failed.startedAt, failed.id])
      assert.equal(before.availability[0].data.find((row: any) => row.availability !== null)?.availability, 0)

      const page = await holdingServer()
      try {
        await holdAt(check.id, page.url)
        const triggering = t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
        await page.inFlight
        const cancelled = await cancel(check.id)
        assert.equal(cancelled.statusCode, 204, cancelled.body)
        const triggered = await triggering
        assert.equal(triggered.statusCode, 200, triggered.body)
        const result = json(triggered)
        assert.equal(result.isCancelled, true)
        assert.equal(result.hasFailures, false)
        assert.equal(result.hasErrors, false)
        assert.equal(result.resultType, 'FINAL')
        assert.deepEqual(result.error, {
          type: 'CANCELLED',
          message: 'The run was cancelled (still running: checkout › waits)',
        })
        const detail = result.playwrightCheckResult
        assert.deepEqual(
          detail.tests.map((test: any) => [test.titlePath.join(' › '), test.status]),
          [
            ['quick', 'passed'],
            ['checkout › waits', 'interrupted'],
          ],
        )
        assert.ok(detail.logs.some((entry: { text: string }) => entry.text === 'quick test ran'))
        assert.ok(detail.traces.length >= 1, 'the traces of the run so far are kept')

        const stored = json(
          await t.call({ method: 'GET', url: `/v1/check-results/${check.id}/${result.id}` }),
        )
        assert.equal(stored.isCancelled, true)
        assert.deepEqual(await observed(check.id), before)
        assert.equal((await cancel(check.id)).statusCode, 409, 'nothing is in progress any more')
      } finally {
        page.close()
      }
    })

    test('deleting a suite check stops its run in flight: the trigger waiting on it answers 404', async () => {
      const check = await createSuite('deleted suite')
      const page = await holdingServer()
      try {
        await holdAt(check.id, page.url)
        const triggering = t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
        await page.inFlight
        const deleted = await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
        assert.equal(deleted.statusCode, 204, deleted.body)
        // Asked to stop at once (it takes the runner a moment to stop it and drop its row).
        const asked = await t.store.db
          .selectFrom('suite_runs')
          .select('cancel_requested_ms')
          .where('check_id', '=', check.id)
          .execute()
        assert.equal(asked.length, 1)
        assert.notEqual(asked[0]?.cancel_requested_ms, null)
        const triggered = await triggering
        assert.equal(triggered.statusCode, 404, triggered.body)
        const runs = await t.store.db
          .selectFrom('suite_runs')
          .select('job_id')
          .where('check_id', '=', check.id)
          .execute()
        assert.deepEqual(runs, [])
      } finally {
        page.close()
      }
    })

    test('a scheduled run stops on cancel: its slot moves on, it is not retried and counts for nothing', async () => {
      const check = await createSuite('scheduled suite', {
        retryStrategy: { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 2, sameRegion: true },
      })
      await failOnce(check.id)
      const before = await observed(check.id)
      const page = await holdingServer()
      try {
        await holdAt(check.id, page.url)
        await dueAloneNow(check.id)
        const scheduler = createScheduler(t.ctx, { locations: ['local'], concurrency: 2 })
        const claimedFromMs = Date.now()
        const running = scheduler.runDue()
        await page.inFlight
        assert.equal((await cancel(check.id)).statusCode, 204)
        assert.equal(await running, 1)

        const [result] = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` }))
        assert.equal(result.isCancelled, true)
        assert.equal(result.hasFailures, false)
        assert.equal(result.resultType, 'FINAL')
        assert.equal(result.attempts, 1)
        assert.equal(result.error.type, 'CANCELLED')
        const retries = await t.store.db
          .selectFrom('check_retries')
          .selectAll()
          .where('check_id', '=', check.id)
          .execute()
        assert.deepEqual(retries, [], 'a cancelled run is not retried')
        const [slot] = await listSchedule(t.ctx, check.id)
        assert.equal(slot?.lease_owner, null)
        // Its next slot comes after the run: after the claim, not necessarily after this line.
        assert.ok(Number(slot?.next_due_ms) > claimedFromMs, 'the slot moved on to its next run')
        assert.deepEqual(await observed(check.id), before)
        const left = await t.store.db.selectFrom('suite_runs').selectAll().execute()
        assert.deepEqual(left, [], 'a finished run leaves nothing in flight')
      } finally {
        page.close()
      }
    })

    test('a group trigger answers the cancelled result of its suite', async () => {
      const group = json(
        await t.call({ method: 'POST', url: '/v1/check-groups', payload: { name: 'suites' } }),
      )
      const check = await createSuite('grouped suite', { groupId: group.id })
      const page = await holdingServer()
      try {
        await holdAt(check.id, page.url)
        const triggering = t.call({ method: 'POST', url: `/v1/check-groups/${group.id}/trigger` })
        await page.inFlight
        assert.equal((await cancel(check.id)).statusCode, 204)
        const triggered = await triggering
        assert.equal(triggered.statusCode, 200, triggered.body)
        assert.deepEqual(
          json(triggered).map((r: any) => [r.checkId, r.isCancelled, r.hasFailures, r.error?.type]),
          [[check.id, true, false, 'CANCELLED']],
        )
        const status = json(await t.call({ method: 'GET', url: `/v1/check-statuses/${check.id}` }))
        assert.equal(status.status, null, 'a cancelled run gives the check no status')
      } finally {
        page.close()
      }
    })

    /** A liveness wait, not a timing assertion: gives up after about a minute. */
    const until = async (what: string, done: () => Promise<boolean>) => {
      for (let i = 0; i < 3000 && !(await done()); i++) await new Promise((tick) => setTimeout(tick, 20))
      assert.ok(await done(), what)
    }
    const retriesOf = (checkId: string) =>
      t.store.db.selectFrom('check_retries').selectAll().where('check_id', '=', checkId).execute()
    /** What a run cancelled before it started answers: no test ran, nothing failed. */
    const assertCancelledBeforeStart = (result: any) => {
      assert.equal(result.isCancelled, true)
      assert.equal(result.hasFailures, false)
      assert.equal(result.hasErrors, false)
      assert.equal(result.resultType, 'FINAL')
      assert.deepEqual(result.error, { type: 'CANCELLED', message: 'The run was cancelled' })
      assert.deepEqual(result.playwrightCheckResult.tests, [])
    }

    /** A private location `slugName` with a live agent that takes nothing yet, and a suite check there. */
    const suiteOnIdleAgent = async (slugName: string, checkName: string) => {
      const location = json(
        await t.call({
          method: 'POST',
          url: '/v1/private-locations',
          payload: { name: slugName, slugName },
        }),
      )
      const { rawKey } = json(
        await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }),
      )
      const agentId = randomUUID()
      const agent = (method: 'GET' | 'POST', url: string, payload?: object) =>
        t.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${rawKey}`, 'x-svc-agent-id': agentId },
          payload,
        })
      const check = await createSuite(checkName, { locations: [], privateLocations: [slugName] })
      // A live agent that takes nothing yet: a trigger waits in the location's queue.
      const beat = await agent('POST', '/agent/v1/heartbeat', {
        version: '1',
        hostname: `${slugName}-1`,
        runningJobs: 0,
      })
      assert.equal(beat.statusCode, 200, beat.body)
      return { check, agent }
    }

    test('a trigger queued for a private location’s agent is cancelled before an agent takes it', async () => {
      const { check, agent } = await suiteOnIdleAgent('lab', 'queued on an agent')
      // With no run before, a cancelled result counted would give the check a status.
      const before = await observed(check.id)
      const triggering = t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      await until('the trigger is queued', async () => (await retriesOf(check.id)).length === 1)

      const cancelled = await cancel(check.id)
      assert.equal(cancelled.statusCode, 204, cancelled.body)
      const triggered = await triggering
      assert.equal(triggered.statusCode, 200, triggered.body)
      const result = json(triggered)
      assertCancelledBeforeStart(result)
      assert.equal(result.runLocation, 'lab')
      assert.equal(result.attempts, 1)
      assert.deepEqual(await retriesOf(check.id), [], 'nothing is left to run')
      const polled = await agent('GET', '/agent/v1/jobs?waitSeconds=0&max=10')
      assert.deepEqual(json(polled), [], 'no agent gets the cancelled run')
      assert.deepEqual(await observed(check.id), before)
      assert.deepEqual(before.status, [null, null, null])
      assert.equal((await cancel(check.id)).statusCode, 409, 'nothing is in progress any more')
    })

    test('a suite check deleted while its trigger waits for an agent: the trigger answers 404, not 409 minutes later', async () => {
      const { check, agent } = await suiteOnIdleAgent('lab-deleted', 'deleted while queued')
      const triggering = t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      await until('the trigger is queued', async () => (await retriesOf(check.id)).length === 1)
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })).statusCode, 204)
      const triggered = await triggering
      assert.equal(triggered.statusCode, 404, triggered.body)
      assert.equal(
        json(triggered).message,
        `Check ${check.id} not found: it was deleted while it waited for an agent`,
      )
      const polled = await agent('GET', '/agent/v1/jobs?waitSeconds=0&max=10')
      assert.deepEqual(json(polled), [], 'no agent gets the deleted check’s run')
    })

    test('a suite check deleted while cancel ends its queued run: cancel answers 404, not a 500', async () => {
      const { check, agent } = await suiteOnIdleAgent('lab-cancel-deleted', 'deleted while cancelled')
      const triggering = t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      await until('the trigger is queued', async () => (await retriesOf(check.id)).length === 1)
      // The delete lands after cancel took the queued run and before it stored the cancelled result.
      const cancelling = cancelCheckRuns(t.ctx, t.owner.accountId, check.id, {
        beforeStore: async () => {
          const deleted = await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
          assert.equal(deleted.statusCode, 204, deleted.body)
        },
      })
      await assert.rejects(cancelling, (error: { statusCode?: number; message: string }) => {
        assert.deepEqual(
          [error.statusCode, error.message],
          [404, `Check ${check.id} not found: it was deleted while its runs were cancelled`],
        )
        return true
      })
      const triggered = await triggering
      assert.equal(triggered.statusCode, 404, triggered.body)
      assert.deepEqual(await retriesOf(check.id), [])
      const polled = await agent('GET', '/agent/v1/jobs?waitSeconds=0&max=10')
      assert.deepEqual(json(polled), [], 'no agent gets the deleted check’s run')
      const gone = await cancel(check.id)
      assert.deepEqual([gone.statusCode, json(gone).message], [404, `Check ${check.id} not found`])
    })

    test('a cancel landing after a runner claimed a run, before it recorded it: 204, and the run never starts', async () => {
      const { check } = await suiteOnIdleAgent('lab-claimed', 'claimed, not recorded yet')
      const triggering = t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      await until('the trigger is queued', async () => (await retriesOf(check.id)).length === 1)
      const [queued] = await retriesOf(check.id)
      // A runner's claim, then the cancel, then the runner recording the run as it starts it.
      const owner = `agent-under-test-${randomUUID()}`
      const nowMs = Date.now()
      const [claimed] = await claimDueRetries(t.ctx, {
        owner,
        nowMs,
        leaseMs: 60_000,
        locations: [queued?.location as string],
        limit: 10,
      })
      assert.equal(claimed?.checkId, check.id)
      const cancelled = await cancel(check.id)
      assert.equal(cancelled.statusCode, 204, cancelled.body)
      const jobId = jobIdOf({ slotKey: claimed?.slotKey as string, attempt: 1 })
      const askedToStop = await saveSuiteRuns(
        t.ctx,
        [{ jobId, checkId: check.id, runner: owner }],
        Date.now() + 60_000,
      )
      assert.deepEqual(askedToStop, [jobId], 'the runner learns the run was cancelled before it starts it')
      await deleteSuiteRuns(t.ctx, [jobId], owner)
      // The trigger waiting on the claimed run ends with the check.
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })).statusCode, 204)
      assert.equal((await triggering).statusCode, 404)
    })

    test('a suite waiting for its turn in a group trigger ends at once on cancel and never runs', async () => {
      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: { name: 'one at a time', concurrency: 1 },
        }),
      )
      const first = await createSuite('runs first', { groupId: group.id, groupOrder: 1 })
      const second = await createSuite('waits its turn', { groupId: group.id, groupOrder: 2 })
      await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'Hall', slugName: 'hall' },
      })
      // Its turn would hand it to the location's agents, of which there are none.
      const third = await createSuite('waits for an agent', {
        groupId: group.id,
        groupOrder: 3,
        locations: [],
        privateLocations: ['hall'],
      })
      const failed = await failOnce(second.id)
      const before = await observed(second.id)
      const [held, neverOpened] = [await holdingServer(), await holdingServer()]
      let secondRan = false
      void neverOpened.inFlight.then(() => {
        secondRan = true
      })
      try {
        await holdAt(first.id, held.url, 'no')
        await holdAt(second.id, neverOpened.url, 'no')
        const triggering = t.call({ method: 'POST', url: `/v1/check-groups/${group.id}/trigger` })
        await held.inFlight
        const cancelled = await cancel(second.id)
        assert.equal(cancelled.statusCode, 204, cancelled.body)
        const resultsOf = async (checkId: string) =>
          json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
        // Its result is in while the suite before it still runs.
        await until('the waiting suite ended', async () => (await resultsOf(second.id)).length === 2)
        const [stored] = await resultsOf(second.id)
        assert.equal(stored.isCancelled, true)
        assert.equal((await cancel(second.id)).statusCode, 409, 'nothing of it is in progress any more')
        assert.equal((await cancel(third.id)).statusCode, 204)

        held.release('<h1>done</h1>')
        const triggered = await triggering
        assert.equal(triggered.statusCode, 200, triggered.body)
        const [ran, waited, waitedForAgent] = json(triggered)
        assert.deepEqual(
          [ran.checkId, ran.isCancelled, ran.hasFailures],
          [first.id, false, false],
          JSON.stringify(ran.playwrightCheckResult?.errors),
        )
        assert.equal(waited.checkId, second.id)
        assert.equal(waited.id, stored.id)
        assertCancelledBeforeStart(waited)
        assert.equal(waited.runLocation, 'local')
        assert.equal(waitedForAgent.checkId, third.id)
        assertCancelledBeforeStart(waitedForAgent)
        assert.equal(waitedForAgent.runLocation, 'hall')
        assert.equal(secondRan, false, 'the cancelled suite never opened its page')
        assert.deepEqual(await observed(second.id), before)
        assert.deepEqual(before.status, ['failing', failed.startedAt, failed.id])
        const left = await t.store.db.selectFrom('suite_runs').selectAll().execute()
        assert.deepEqual(left, [], 'the group leaves nothing in flight')
      } finally {
        held.close()
        neverOpened.close()
      }
    })

    test('a retry waiting out its backoff is cancelled: it never runs, and its failed attempt alerts no one', async () => {
      const check = await createSuite('retried suite', {
        retryStrategy: {
          type: 'FIXED',
          baseBackoffSeconds: 300,
          maxRetries: 2,
          maxDurationSeconds: 600,
          sameRegion: true,
        },
      })
      const failed = await failOnce(check.id)
      const page = await holdingServer()
      try {
        await holdAt(check.id, page.url, 'no')
        await dueAloneNow(check.id)
        const scheduler = createScheduler(t.ctx, { locations: ['local'], concurrency: 2 })
        const running = scheduler.runDue()
        await page.inFlight
        page.release('<h1>not yet</h1>')
        assert.equal(await running, 1)
      } finally {
        page.close()
      }
      const [retry] = await retriesOf(check.id)
      assert.equal(retry?.attempt, 2, 'the failed attempt waits for its retry')
      assert.equal(retry?.lease_owner, null)
      const before = await observed(check.id)

      const cancelled = await cancel(check.id)
      assert.equal(cancelled.statusCode, 204, cancelled.body)
      assert.deepEqual(await retriesOf(check.id), [], 'the retry will not run')
      const [last, attempt] = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` }))
      assert.deepEqual([attempt.resultType, attempt.attempts, attempt.hasFailures], ['ATTEMPT', 1, true])
      assertCancelledBeforeStart(last)
      assert.equal(last.attempts, 2)
      assert.equal(last.runLocation, 'local')
      assert.deepEqual(await observed(check.id), before)
      assert.deepEqual(before.status, ['failing', failed.startedAt, failed.id])
      const [slot] = await listSchedule(t.ctx, check.id)
      assert.equal(slot?.lease_owner, null)
      assert.ok(Number(slot?.next_due_ms) > 0, 'the slot moved on to its next run')
      assert.equal((await cancel(check.id)).statusCode, 409, 'nothing is in progress any more')
    })

    test('a run asked to stop before its runner took it over never starts', async () => {
      const check = await createSuite('taken over')
      const page = await holdingServer()
      let opened = false
      void page.inFlight.then(() => {
        opened = true
      })
      try {
        await holdAt(check.id, page.url, 'no')
        await dueAloneNow(check.id)
        // Its node died after the cancel was asked of its run: the slot's next claim runs the same job.
        const nowMs = Date.now()
        await t.store.db
          .insertInto('suite_runs')
          .values({
            job_id: `0:${check.id}:local`,
            check_id: check.id,
            runner: 'node-gone',
            alive_until_ms: nowMs + 60_000,
            cancel_requested_ms: nowMs,
          })
          .execute()
        // What the run asks of the browser pool: nothing, if it never starts.
        const asked: string[] = []
        const { pool } = t.ctx.scripts
        const watchedPool = new Proxy(pool, {
          get(target, key) {
            asked.push(String(key))
            const value = Reflect.get(target, key, target)
            return typeof value === 'function' ? value.bind(target) : value
          },
        })
        const ctx = { ...t.ctx, scripts: { ...t.ctx.scripts, pool: watchedPool } }
        const scheduler = createScheduler(ctx, { locations: ['local'], concurrency: 2 })
        assert.equal(await scheduler.runDue(), 1)
        const results = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` }))
        assert.equal(results.length, 1)
        assertCancelledBeforeStart(results[0])
        assert.deepEqual(asked, [], 'the run never reached the browser pool')
        assert.equal(opened, false, 'the suite never opened its page')
        assert.deepEqual(await t.store.db.selectFrom('suite_runs').selectAll().execute(), [])
        const [slot] = await listSchedule(t.ctx, check.id)
        assert.equal(slot?.lease_owner, null)
        assert.ok(Number(slot?.next_due_ms) > 0, 'the slot moved on to its next run')
      } finally {
        page.close()
      }
    })

    test('cancel answers 404 for an unknown check, 400 for other types, 409 with no run in progress', async () => {
      const malformed = await cancel('not-a-uuid')
      assert.equal(malformed.statusCode, 400)
      assert.deepEqual(json(malformed), {
        statusCode: 400,
        error: 'Bad Request',
        message: 'params.id must match format "uuid"',
        attributes: { errors: [{ path: 'params.id', message: 'must match format "uuid"' }] },
      })
      const doc = json(await t.call({ method: 'GET', url: '/openapi.json', as: null }))
      const { responses } = doc.paths['/v1/checks/{id}/cancel'].post
      assert.deepEqual(Object.keys(responses).sort(), ['204', '400', '401', '403', '404', '409', '429'])
      assert.equal(
        responses['400'].description,
        'Bad Request: the id is not a UUID, or the check is not a Playwright check suite (AUTOMATION), ' +
          'the only checks that can be cancelled',
      )
      const unknown = randomUUID()
      const missing = await cancel(unknown)
      assert.equal(missing.statusCode, 404)
      assert.deepEqual(json(missing), {
        statusCode: 404,
        error: 'Not Found',
        message: `Check ${unknown} not found`,
      })
      const url = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'site', request: { url: 'http://127.0.0.1:9/' } },
        }),
      )
      const wrongType = await cancel(url.id)
      assert.equal(wrongType.statusCode, 400)
      assert.deepEqual(json(wrongType), {
        statusCode: 400,
        error: 'Bad Request',
        message: 'Only AUTOMATION checks (Playwright check suites) can be cancelled; this is a URL check',
      })
      const idle = await createSuite('idle suite')
      const nothing = await cancel(idle.id)
      assert.equal(nothing.statusCode, 409)
      assert.deepEqual(json(nothing), {
        statusCode: 409,
        error: 'Conflict',
        message: `Check ${idle.id} has no run in progress`,
      })
      const readOnly = await t.addUser('READ_ONLY')
      const refused = await t.call({ method: 'POST', url: `/v1/checks/${idle.id}/cancel`, as: readOnly })
      assert.equal(refused.statusCode, 403)
    })
  })
}
