import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { createAccount } from '../features/accounts/accounts.service.ts'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { createScheduler } from './scheduler.ts'
import { listSchedule } from './schedules.repo.ts'
import { nextSlotAfter, planSlots } from './slots.ts'

for (const engine of testEngines()) {
  describe(`how checks run (retries, groups, variables) on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-22T12:00:00.000Z')
    let flakyFailuresLeft = 0
    const seen: { url: string; authorization?: string }[] = []
    const target = createServer((request, response) => {
      seen.push({ url: request.url ?? '', authorization: request.headers.authorization })
      if (request.url?.startsWith('/flaky')) {
        response.statusCode = flakyFailuresLeft-- > 0 ? 503 : 200
        return response.end('flaky')
      }
      response.statusCode = request.url?.startsWith('/down') ? 503 : 200
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ url: request.url, authorization: request.headers.authorization }))
    })
    let base = ''
    before(async () => {
      base = (await listenOnLoopback(target)).url
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      target.close()
      await t.close()
    })
    // Room for every row due at once: a pass that left some due would run them in the next test's pass.
    const node = () => createScheduler(t.ctx, { locations: ['local', 'eu-west-1'], concurrency: 100 })
    const createUrlCheck = async (payload: object) => {
      const response = await t.call({ method: 'POST', url: '/v1/checks/url', payload })
      assert.equal(response.statusCode, 201, response.body)
      return json(response)
    }
    // Oldest first; attempts order results the fake clock gave one start time.
    const resultsOf = async (checkId: string) =>
      json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}?limit=100` }))
        .reverse()
        .sort((a: any, b: any) => a.startedAt.localeCompare(b.startedAt) || a.attempts - b.attempts)
    const runAt = async (checkId: string) => {
      nowMs = Math.min(...(await listSchedule(t.ctx, checkId)).map((row) => Number(row.next_due_ms)))
      return node().runDue()
    }

    test('a FIXED retry strategy stores ATTEMPT results after its backoff, then one FINAL', async () => {
      const check = await createUrlCheck({
        name: 'retrying',
        request: { url: `${base}/down` },
        retryStrategy: { type: 'FIXED', baseBackoffSeconds: 30, maxRetries: 2, sameRegion: true },
      })
      await runAt(check.id)
      assert.equal(await node().runDue(), 0, 'the retry waits for its backoff')
      nowMs += 30_000
      assert.equal(await node().runDue(), 1)
      nowMs += 30_000
      assert.equal(await node().runDue(), 1)
      nowMs += 30_000
      assert.equal(await node().runDue(), 0, 'no more than maxRetries')
      const results = await resultsOf(check.id)
      assert.deepEqual(
        results.map((r: any) => [r.resultType, r.attempts, r.hasFailures, r.runLocation]),
        [
          ['ATTEMPT', 1, true, 'local'],
          ['ATTEMPT', 2, true, 'local'],
          ['FINAL', 3, true, 'local'],
        ],
      )
      const status = json(await t.call({ method: 'GET', url: `/v1/check-statuses/${check.id}` }))
      assert.equal(status.status, 'failing')
    })

    test('a retry that passes is the final result; doubleCheck retries at once in another location', async () => {
      flakyFailuresLeft = 1
      const check = await createUrlCheck({
        name: 'double-checked',
        locations: ['local', 'eu-west-1'],
        runParallel: true,
        request: { url: `${base}/flaky` },
      })
      await runAt(check.id)
      flakyFailuresLeft = 0
      assert.equal(await node().runDue(), 1, 'the immediate retry is due at once')
      const results = await resultsOf(check.id)
      const finals = results.filter((r: any) => r.resultType === 'FINAL')
      assert.equal(finals.length, 2, 'one final per location run')
      const retried = results.find((r: any) => r.attempts === 2)
      assert.equal(retried.resultType, 'FINAL')
      assert.equal(retried.hasFailures, false)
      const failedFirst = results.find((r: any) => r.resultType === 'ATTEMPT')
      assert.notEqual(retried.runLocation, failedFirst.runLocation, 'retried in the other location')
    })

    test('onlyOn NETWORK_ERROR retries a refused connection but not a wrong status', async () => {
      const strategy = { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 1, onlyOn: ['NETWORK_ERROR'] }
      const wrongStatus = await createUrlCheck({
        name: 'wrong status',
        request: { url: `${base}/down` },
        retryStrategy: strategy,
      })
      await runAt(wrongStatus.id)
      assert.deepEqual(
        (await resultsOf(wrongStatus.id)).map((r: any) => r.resultType),
        ['FINAL'],
      )
      const refused = await createUrlCheck({
        name: 'refused',
        request: { url: 'http://127.0.0.1:1/' },
        retryStrategy: strategy,
      })
      await runAt(refused.id)
      await node().runDue()
      const results = await resultsOf(refused.id)
      assert.deepEqual(
        results.map((r: any) => [r.resultType, r.error?.type]),
        [
          ['ATTEMPT', 'NETWORK_ERROR'],
          ['FINAL', 'NETWORK_ERROR'],
        ],
      )
    })

    test('a check in a group runs with the group locations, frequency, variables and retries it leaves out', async () => {
      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: {
            name: 'inherited',
            locations: ['eu-west-1'],
            frequency: 5,
            environmentVariables: [{ key: 'PATH_PART', value: 'from-group' }],
            retryStrategy: { type: 'NO_RETRIES' },
          },
        }),
      )
      const inheriting = await createUrlCheck({
        name: 'inherits',
        groupId: group.id,
        request: { url: `${base}/down/{{PATH_PART}}` },
      })
      assert.deepEqual(inheriting.locations, ['eu-west-1'])
      assert.equal(inheriting.frequency, 5)
      assert.deepEqual(
        (await listSchedule(t.ctx, inheriting.id)).map((row) => row.location),
        ['eu-west-1'],
      )
      const own = await createUrlCheck({
        name: 'own settings',
        groupId: group.id,
        frequency: 1,
        locations: ['local'],
        environmentVariables: [{ key: 'PATH_PART', value: 'from-check' }],
        request: { url: `${base}/{{PATH_PART}}` },
      })
      assert.deepEqual([own.locations, own.frequency], [['local'], 1])

      await runAt(inheriting.id)
      assert.equal(await node().runDue(), 0, 'NO_RETRIES from the group: nothing to retry')
      const [result] = await resultsOf(inheriting.id)
      assert.equal(result.runLocation, 'eu-west-1')
      assert.equal(result.urlCheckResult.request.url, `${base}/down/from-group`)
      await runAt(own.id)
      assert.equal((await resultsOf(own.id))[0].urlCheckResult.request.url, `${base}/from-check`)

      // A group change re-plans its checks at once: the new frequency from the next run.
      await t.call({
        method: 'PUT',
        url: `/v1/check-groups/${group.id}`,
        payload: { name: 'inherited', locations: ['eu-west-1'], frequency: 60 },
      })
      const after = Number((await listSchedule(t.ctx, inheriting.id))[0]?.next_due_ms)
      const [hourly] = planSlots(inheriting.id, 60 * 60_000, ['eu-west-1'], false)
      assert.equal(after, nextSlotAfter(nowMs, hourly!), 'the next slot of the hourly plan')
      const reread = json(await t.call({ method: 'GET', url: `/v1/checks/${inheriting.id}` }))
      assert.equal(reread.frequency, 60)
      const merged = json(
        await t.call({ method: 'PUT', url: `/v1/checks/${inheriting.id}`, payload: { name: 'renamed' } }),
      )
      assert.equal(merged.frequency, 60, 'a merge update keeps inheriting what the check never set')
    })

    test('account, group and check variables reach the request; hidden values never reach a result', async () => {
      const secret = 'tok-3f9a-very-secret'
      for (const variable of [
        { key: 'API_TOKEN', value: secret, secret: true },
        { key: 'ECHO_PATH', value: 'echo' },
      ]) {
        const created = await t.call({ method: 'POST', url: '/v1/variables', payload: variable })
        assert.equal(created.statusCode, 201, created.body)
      }
      const check = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name: 'with variables',
          doubleCheck: false,
          request: {
            url: `${base}/{{ECHO_PATH}}?token={{API_TOKEN}}`,
            headers: [{ key: 'Authorization', value: 'Basic {{BASIC}}' }],
          },
          environmentVariables: [
            { key: 'BASIC', value: Buffer.from(`user:${secret}`).toString('base64'), locked: true },
          ],
        },
      })
      assert.equal(check.statusCode, 201, check.body)
      const id = json(check).id
      seen.length = 0
      await runAt(id)
      const request = seen.find((r) => r.url.startsWith('/echo'))
      assert.equal(request?.url, `/echo?token=${secret}`, 'the target got the real values')
      assert.equal(request?.authorization, `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`)
      const raw = await t.call({ method: 'GET', url: `/v1/check-results/${id}` })
      const [result] = json(raw)
      assert.equal(result.hasFailures, false)
      assert.ok(!raw.body.includes(secret), 'no plain secret in the stored result')
      assert.ok(!raw.body.includes(Buffer.from(`user:${secret}`).toString('base64')), 'nor its base64')
      assert.match(result.apiCheckResult.request.url, /token=\[REDACTED\]/)
    })

    test("the checks of one claim run with their own account's variables; an edit reaches the next claim", async () => {
      const theirs = await t.addUser('OWNER', (await createAccount(t.ctx, { name: 'another' })).id)
      const ids: string[] = []
      for (const [as, value] of [
        [t.owner, 'mine'],
        [theirs, 'theirs'],
      ] as const) {
        const variable = await t.call({
          as,
          method: 'POST',
          url: '/v1/variables',
          payload: { key: 'WHO', value },
        })
        assert.equal(variable.statusCode, 201, variable.body)
        const check = await t.call({
          as,
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'who', doubleCheck: false, request: { url: `${base}/who/{{WHO}}` } },
        })
        assert.equal(check.statusCode, 201, check.body)
        ids.push(json(check).id)
      }
      const runBoth = async () => {
        const dues = await Promise.all(
          ids.map(async (id) => Number((await listSchedule(t.ctx, id))[0]?.next_due_ms)),
        )
        nowMs = Math.max(nowMs, ...dues)
        seen.length = 0
        // Earlier tests' checks are due too: room for all of them, so one claim takes both.
        await createScheduler(t.ctx, { locations: ['local', 'eu-west-1'], concurrency: 100 }).runDue()
        return seen
          .map((r) => r.url)
          .filter((url) => url.startsWith('/who/'))
          .sort()
      }
      assert.deepEqual(await runBoth(), ['/who/mine', '/who/theirs'])
      const edited = await t.call({ method: 'PUT', url: '/v1/variables/WHO', payload: { value: 'edited' } })
      assert.equal(edited.statusCode, 200, edited.body)
      assert.deepEqual(await runBoth(), ['/who/edited', '/who/theirs'])
    })

    test('a group trigger runs its checks once now in groupOrder and answers every result', async () => {
      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: { name: 'pipeline', concurrency: 1 },
        }),
      )
      const inGroup = (name: string, extra: object) =>
        createUrlCheck({ name, groupId: group.id, request: { url: `${base}/${name}` }, ...extra })
      const last = await inGroup('last', {})
      const second = await inGroup('second', { groupOrder: 2, activated: false })
      const first = await inGroup('first', { groupOrder: 0 })
      await t.call({
        method: 'POST',
        url: '/v1/checks/heartbeat',
        payload: {
          name: 'judged from pings',
          groupId: group.id,
          heartbeat: { period: 1, periodUnit: 'hours', grace: 1, graceUnit: 'hours' },
        },
      })
      seen.length = 0
      const triggered = await t.call({ method: 'POST', url: `/v1/check-groups/${group.id}/trigger` })
      assert.equal(triggered.statusCode, 200, triggered.body)
      assert.equal(triggered.headers['x-ratelimit-limit'], '60')
      const results = json(triggered)
      assert.deepEqual(
        results.map((r: any) => r.checkId),
        [first.id, second.id, last.id],
      )
      assert.deepEqual(
        seen.map((r) => r.url),
        ['/first', '/second', '/last'],
        'one at a time, in order',
      )
      assert.ok(results.every((r: any) => r.resultType === 'FINAL' && !r.hasFailures))
      const stored = json(await t.call({ method: 'GET', url: `/v1/check-results/${second.id}` }))
      assert.equal(stored[0].id, results[1].id)
      const missing = await t.call({ method: 'POST', url: '/v1/check-groups/999999/trigger' })
      assert.equal(missing.statusCode, 404)
    })

    test('a retry falling due after its check or its group was deactivated does not run', async () => {
      const group = json(
        await t.call({ method: 'POST', url: '/v1/check-groups', payload: { name: 'pausing' } }),
      )
      const retryStrategy = { type: 'FIXED', baseBackoffSeconds: 30, maxRetries: 2, sameRegion: true }
      const paused = await createUrlCheck({
        name: 'paused',
        request: { url: `${base}/down?paused` },
        retryStrategy,
      })
      const inGroup = await createUrlCheck({
        name: 'in paused group',
        groupId: group.id,
        request: { url: `${base}/down?group` },
        frequency: 60,
        retryStrategy,
      })
      const firstDue = async (checkId: string) =>
        Math.min(...(await listSchedule(t.ctx, checkId)).map((row) => Number(row.next_due_ms)))
      nowMs = Math.max(await firstDue(paused.id), await firstDue(inGroup.id))
      // Earlier tests' checks fall due as well: work off everything due now.
      while ((await node().runDue()) > 0) {}
      const pending = () =>
        t.store.db
          .selectFrom('check_retries')
          .select('check_id')
          .where('check_id', 'in', [paused.id, inGroup.id])
          .execute()
      assert.equal((await pending()).length, 2)
      const pause = await t.call({
        method: 'PUT',
        url: `/v1/checks/${paused.id}`,
        payload: { activated: false },
      })
      assert.equal(pause.statusCode, 200)
      const pauseGroup = await t.call({
        method: 'PUT',
        url: `/v1/check-groups/${group.id}`,
        payload: { name: 'pausing', activated: false },
      })
      assert.equal(pauseGroup.statusCode, 200)
      const ranOf = () => seen.filter((s) => s.url.startsWith('/down?')).length
      assert.equal(ranOf(), 2)
      nowMs += 30_000
      while ((await node().runDue()) > 0) {}
      assert.equal(ranOf(), 2, 'nothing ran')
      for (const check of [paused, inGroup]) {
        const results = await resultsOf(check.id)
        assert.deepEqual(
          results.map((r: any) => [r.resultType, r.attempts]),
          [['ATTEMPT', 1]],
        )
      }
      assert.deepEqual(await pending(), [], 'the retries are dropped, not left to run on reactivation')
    })
  })
}
