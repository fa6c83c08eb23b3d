import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { InsertQueryNode, type KyselyPlugin, type QueryId } from 'kysely'
import { watchQueries } from '../testing/query-watcher.ts'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { listenForWakeups } from '../wakeups.ts'
import { createScheduler } from './scheduler.ts'
import { claimDueSlots, listSchedule } from './schedules.repo.ts'

const MINUTE = 60_000

for (const engine of testEngines()) {
  describe(`scheduled runs end to end on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-22T12:00:00.000Z')
    let hits = 0
    /** Requests to `/together` are answered in threes, all at once. */
    const waiting: (() => void)[] = []
    /** Requests to `/held` wait until the test answers them, one by one. */
    const held: (() => void)[] = []
    const target = createServer((request, response) => {
      hits++
      response.statusCode = request.url === '/down' ? 503 : 200
      if (request.url === '/slow') setTimeout(() => response.end('ok'), 50)
      else if (request.url === '/together') {
        waiting.push(() => response.end('ok'))
        if (waiting.length === 3) for (const answer of waiting.splice(0)) answer()
      } else if (request.url === '/held') held.push(() => response.end('ok'))
      else response.end('ok')
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

    const scheduler = () => createScheduler(t.ctx, { locations: ['local', 'eu-west-1'], concurrency: 4 })
    const dueOf = async (checkId: string) => Number((await listSchedule(t.ctx, checkId))[0]?.next_due_ms)
    /** Creates `count` URL checks named `${name} ${n}` with `payload`; answers their ids. */
    const urlChecks = async (count: number, name: string, payload: Record<string, unknown>) => {
      const ids: string[] = []
      for (let n = 0; n < count; n++) {
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: `${name} ${n}`, ...payload },
        })
        ids.push(json(created).id as string)
      }
      return ids
    }
    const resultCount = async (checkIds: string[]) =>
      (await t.store.db.selectFrom('check_results').select('id').where('check_id', 'in', checkIds).execute())
        .length
    /** Makes the schedule rows of `checkIds` due at `dueMs`. */
    const dueAt = (checkIds: string[], dueMs: number) =>
      t.store.db
        .updateTable('check_schedules')
        .set({ next_due_ms: dueMs })
        .where('check_id', 'in', checkIds)
        .execute()
    /** A liveness wait for a started scheduler, not a timing assertion: gives up after ~10 s. */
    const until = async (done: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < 500 && !(await done()); i++) await new Promise((tick) => setTimeout(tick, 20))
    }

    test('a due check runs once per slot, its result is stored and listed, and the slot moves on', async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'up', frequency: 1, request: { url: `${base}/` } },
        }),
      )
      const down = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'down', frequency: 1, doubleCheck: false, request: { url: `${base}/down` } },
        }),
      )
      const first = await dueOf(check.id)
      const node = scheduler()
      assert.equal(await node.runDue(), 0, 'nothing runs before its slot')

      nowMs = Math.max(first, await dueOf(down.id))
      assert.equal(await node.runDue(), 2)
      assert.equal(await node.runDue(), 0, 'a slot runs once')
      assert.equal(await dueOf(check.id), first + MINUTE)

      const results = await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` })
      assert.equal(results.statusCode, 200)
      const [result] = json(results)
      assert.equal(result.checkId, check.id)
      assert.equal(result.runLocation, 'local')
      assert.equal(result.hasFailures, false)
      assert.equal(result.resultType, 'FINAL')
      assert.equal(result.urlCheckResult.response.status, 200)
      assert.ok(result.urlCheckResult.timingPhases.total > 0)
      const one = await t.call({ method: 'GET', url: `/v1/check-results/${check.id}/${result.id}` })
      assert.equal(json(one).id, result.id)

      const [failed] = json(await t.call({ method: 'GET', url: `/v1/check-results/${down.id}` }))
      assert.equal(failed.hasFailures, true)
      assert.deepEqual(failed.error, { type: 'ASSERTION', message: 'Status code 503 is not below 400' })
      const onlyFailures = await t.call({
        method: 'GET',
        url: `/v1/check-results/${check.id}?hasFailures=true`,
      })
      assert.deepEqual(json(onlyFailures), [])
    })

    test('a deleted check stops at once; an updated one runs with its new configuration', async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'moving', frequency: 1, request: { url: `${base}/` } },
        }),
      )
      await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { request: { url: `${base}/down` } },
      })
      nowMs = (await dueOf(check.id)) + 1
      const node = scheduler()
      await node.runDue()
      const [result] = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` }))
      assert.equal(result.urlCheckResult.response.status, 503)

      await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
      const before = hits
      nowMs += 10 * MINUTE
      await node.runDue()
      const stillRunning = await t.store.db
        .selectFrom('check_results')
        .select('id')
        .where('check_id', '=', check.id)
        .execute()
      assert.equal(stillRunning.length, 0, 'results go with the check')
      assert.ok(hits - before <= 2, 'only the other checks ran')
    })

    test('a node that dies mid-run loses its lease; another node re-runs the slot, stored once', async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'lease', frequency: 10, request: { url: `${base}/` } },
        }),
      )
      nowMs = (await dueOf(check.id)) + 1
      const due = await dueOf(check.id)
      // The first node claims the slot and dies before storing anything.
      await claimDueSlots(t.ctx, {
        owner: 'dead-node',
        nowMs,
        leaseMs: 30_000,
        locations: ['local'],
        limit: 100,
      })
      const survivor = createScheduler(t.ctx, { locations: ['local'], concurrency: 4, leaseMs: 30_000 })
      await survivor.runDue()
      assert.equal(json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` })).length, 0)
      nowMs += 30_001
      await survivor.runDue()
      const results = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` }))
      assert.equal(results.length, 1)
      assert.equal(await dueOf(check.id), due + 10 * MINUTE)
    })

    test('POST /v1/checks/{id}/trigger runs once now, even when deactivated, and stores the result', async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: {
            name: 'manual',
            activated: false,
            locations: ['eu-west-1'],
            request: { url: `${base}/` },
          },
        }),
      )
      const triggered = await t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      assert.equal(triggered.statusCode, 200)
      const result = json(triggered)
      assert.equal(result.checkId, check.id)
      assert.equal(result.runLocation, 'eu-west-1')
      assert.equal(result.urlCheckResult.response.status, 200)
      assert.equal(triggered.headers['x-ratelimit-limit'], '60')
      const stored = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` }))
      assert.deepEqual(
        stored.map((r: { id: string }) => r.id),
        [result.id],
      )
      const heartbeat = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/heartbeat',
          payload: {
            name: 'hb',
            heartbeat: { period: 1, periodUnit: 'hours', grace: 1, graceUnit: 'hours' },
          },
        }),
      )
      const unsupported = await t.call({ method: 'POST', url: `/v1/checks/${heartbeat.id}/trigger` })
      assert.equal(unsupported.statusCode, 400)
      assert.match(json(unsupported).message, /HEARTBEAT checks don't run: they are judged from their pings/)
      assert.equal(
        (await t.call({ method: 'POST', url: '/v1/checks/00000000-0000-4000-8000-000000000000/trigger' }))
          .statusCode,
        404,
      )
    })

    test('a started scheduler works off a backlog larger than its concurrency without waiting for ticks', async () => {
      const ids = await urlChecks(12, 'backlog', {
        frequency: 60,
        doubleCheck: false,
        request: { url: `${base}/together` },
      })
      await dueAt(ids, nowMs)
      // No tick comes during the test: starting claims at once, and each pass of three runs finishing
      // together (answered at once, their results stored in one batch) must claim the next three itself.
      const node = createScheduler(t.ctx, { locations: ['local'], concurrency: 3, fallbackMs: 3_600_000 })
      node.start()
      try {
        // The loop must not stall after its first claims.
        await until(async () => (await resultCount(ids)) === ids.length)
        assert.equal(await resultCount(ids), ids.length, 'every due slot ran, three at a time')
      } finally {
        await node.stop()
      }
    })

    test('behind schedule, a freed place waits a moment for the others, then all are claimed for together', async () => {
      const ids = await urlChecks(9, 'gathered', {
        frequency: 60,
        doubleCheck: false,
        request: { url: `${base}/held` },
      })
      // The clock moves on in this test: no other test's check may fall due meanwhile.
      await t.store.db
        .updateTable('check_schedules')
        .set({ next_due_ms: nowMs + 10 * MINUTE })
        .execute()
      await dueAt(ids, nowMs)
      const answerOne = () => (held.shift() as () => void)()
      // A gather window longer than the test: a freed place is claimed for only once all three are free.
      // A lease as long, so no renewal moves a lease's end: it tells when its claim was made.
      const leaseMs = 3_600_000
      const node = createScheduler(t.ctx, {
        locations: ['local'],
        concurrency: 3,
        fallbackMs: 3_600_000,
        claimGatherMs: 3_600_000,
        leaseMs,
      })
      /** The clock's time at the claims of the runs this node has in flight. */
      const claimedAt = async () =>
        (
          await t.store.db
            .selectFrom('check_schedules')
            .select('next_due_ms')
            .where('lease_owner', '=', node.owner)
            .execute()
        ).map((row) => Number(row.next_due_ms) - leaseMs)
      node.start()
      try {
        await until(() => held.length === 3)
        answerOne()
        // A run's result commits after the run has ended and its place was freed (or claimed for at once).
        await until(async () => (await resultCount(ids)) === 1)
        assert.equal(held.length, 2, 'the freed place waited for the others')
        nowMs += 1_000
        answerOne()
        answerOne()
        // The new runs may start before the last two results commit: a place frees when its run ends.
        await until(async () => held.length === 3 && (await resultCount(ids)) === 3)
        assert.equal(held.length, 3, 'then the three places were claimed for')
        assert.equal(await resultCount(ids), 3)
        assert.deepEqual(await claimedAt(), [nowMs, nowMs, nowMs], 'all three once the last one was free')
      } finally {
        for (const answer of held.splice(0)) answer()
        await node.stop()
      }

      // With the default window, a run that goes on holds the places the others freed only briefly.
      // (Slots due at the clock's new time: new jobs, not the ones run above.)
      await dueAt(ids, nowMs)
      const before = await resultCount(ids)
      const quick = createScheduler(t.ctx, { locations: ['local'], concurrency: 3, fallbackMs: 3_600_000 })
      quick.start()
      try {
        await until(() => held.length === 3)
        answerOne()
        answerOne()
        await until(async () => (await resultCount(ids)) === before + 2 && held.length === 3)
        assert.equal(held.length, 3, 'the two freed places were claimed for while the third run went on')
        assert.equal(await resultCount(ids), before + 2)
      } finally {
        for (const answer of held.splice(0)) answer()
        await quick.stop()
      }
    })

    test('a started scheduler wakes when the next slot falls due, not at its next tick', async () => {
      const ids = await urlChecks(1, 'on time', {
        frequency: 1,
        doubleCheck: false,
        request: { url: `${base}/` },
      })
      await t.store.db
        .updateTable('check_schedules')
        .set({ next_due_ms: nowMs + 10 * 60_000 })
        .execute()
      // Beyond the second a claim takes ahead.
      await dueAt(ids, nowMs + 1_300)
      // No tick comes during the test: only the wake for the slot due 1.3 s on can run it.
      const queries = watchQueries()
      const node = createScheduler(
        { ...t.ctx, db: t.ctx.db.withPlugin(queries.plugin) },
        { locations: ['local'], concurrency: 2, fallbackMs: 3_600_000 },
      )
      // The start claims, then reads when the next slot falls due (retries last) and sets its wake.
      const wakeSet = queries.answered('select', 'check_retries')
      node.start()
      try {
        await wakeSet
        const [slot] = await listSchedule(t.ctx, ids[0] as string)
        assert.deepEqual(
          [slot?.lease_owner, await resultCount(ids)],
          [null, 0],
          'nothing is due at the start',
        )
        nowMs += 1_300
        await until(async () => (await resultCount(ids)) > 0)
        assert.equal(await resultCount(ids), 1)
      } finally {
        await node.stop()
      }
    })

    test('a started scheduler claims the slots due within a second in one pass and starts each at its due time', async () => {
      const ids = await urlChecks(3, 'ahead', {
        frequency: 1,
        doubleCheck: false,
        request: { url: `${base}/held` },
      })
      await t.store.db
        .updateTable('check_schedules')
        .set({ next_due_ms: nowMs + 10 * 60_000 })
        .execute()
      // A clock that moves with real time, so the timers the slots start on can be checked against it.
      const startMs = performance.now()
      const clock = { now: () => new Date(nowMs + Math.floor(performance.now() - startMs)) }
      const dueMs = [200, 400, 600].map((ms) => nowMs + ms)
      for (const [i, id] of ids.entries()) await dueAt([id], dueMs[i] as number)
      // No renewal moves a lease's end during the test: it tells when its claim was made.
      const leaseMs = 3_600_000
      const node = createScheduler(
        { ...t.ctx, clock },
        { locations: ['local'], concurrency: 5, fallbackMs: 3_600_000, leaseMs },
      )
      node.start()
      try {
        await until(() => held.length === 3)
        const leases = await t.store.db
          .selectFrom('check_schedules')
          .select(['lease_owner', 'next_due_ms'])
          .where('check_id', 'in', ids)
          .execute()
        assert.deepEqual(
          leases.map((row) => row.lease_owner),
          [node.owner, node.owner, node.owner],
        )
        assert.equal(
          new Set(leases.map((row) => Number(row.next_due_ms))).size,
          1,
          'one claim took all three',
        )
        for (const answer of held.splice(0)) answer()
        await until(async () => (await resultCount(ids)) === 3)
        const results = await t.store.db
          .selectFrom('check_results')
          .select(['check_id', 'started_at'])
          .where('check_id', 'in', ids)
          .execute()
        for (const [i, id] of ids.entries()) {
          const result = results.find((row) => row.check_id === id)
          assert.ok(result, `check ${i} ran`)
          assert.ok(
            Date.parse(result.started_at) >= (dueMs[i] as number),
            `check ${i} started at its due time`,
          )
        }
      } finally {
        for (const answer of held.splice(0)) answer()
        await node.stop()
      }
    })

    test('a sleeping scheduler is woken by a write that makes work due: a retry queued with no backoff runs at once', async () => {
      const ids = await urlChecks(1, 'woken', {
        frequency: 1,
        doubleCheck: false,
        request: { url: `${base}/down` },
        retryStrategy: { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 1, sameRegion: true },
      })
      await dueAt(ids, nowMs)
      // No fallback look comes during the test, and the clock stands still: after its first claim the
      // scheduler sleeps until its run's lease ends. Only the wake-up the queued retry raises can run it.
      // The store's wake-ups are listened for, as main.ts does: without that, a wake-up raised in a
      // PostgreSQL transaction comes before the commit, and a quick claim finds no retry yet.
      const wakeups = listenForWakeups(t.store.url, { warn: () => {} })
      await wakeups.ready
      const node = createScheduler(t.ctx, { locations: ['local'], concurrency: 2, fallbackMs: 3_600_000 })
      node.start()
      try {
        await until(async () => (await resultCount(ids)) === 2)
        const attempts = await t.store.db
          .selectFrom('check_results')
          .select('attempts')
          .where('check_id', '=', ids[0] as string)
          .orderBy('attempts')
          .execute()
        assert.deepEqual(
          attempts.map((row) => row.attempts),
          [1, 2],
        )
      } finally {
        await node.stop()
        await wakeups.close()
      }
    })

    test('a started scheduler keeps claiming after ticks that find every run slot busy', async () => {
      const checks = await urlChecks(4, 'busy', {
        frequency: 1,
        locations: ['eu-west-1'],
        request: { url: `${base}/slow` },
      })
      await t.store.db.updateTable('check_schedules').set({ next_due_ms: nowMs }).execute()
      // One run at a time and a tick far shorter than a run: most ticks find the only slot busy.
      const node = createScheduler(t.ctx, { locations: ['eu-west-1'], concurrency: 1, fallbackMs: 5 })
      node.start()
      try {
        await until(async () => (await resultCount(checks)) === checks.length)
        assert.equal(await resultCount(checks), checks.length, 'every due slot ran')
      } finally {
        await node.stop()
      }
    })

    // Only PostgreSQL can hold one transaction while others go on: SQLite's single connection would
    // hold the claims behind the held result insert too.
    if (engine.engine === 'postgres') {
      test('a run frees its place when it ends, not when its result commits; a store behind stops claims', async () => {
        const checks = await urlChecks(6, 'held', {
          frequency: 1,
          locations: ['eu-west-1'],
          request: { url: `${base}/` },
        })
        await dueAt(checks, nowMs)
        const held = holdResultInserts()
        const queries = watchQueries()
        // Leases renewed every 100 ms, five ticks apart: each renewal comes after ticks that could claim.
        const node = createScheduler(
          { ...t.ctx, db: t.ctx.db.withPlugin(held.plugin).withPlugin(queries.plugin) },
          { locations: ['eu-west-1'], concurrency: 2, maxUnstored: 3, fallbackMs: 20, leaseMs: 300 },
        )
        const before = hits
        node.start()
        try {
          await until(() => hits - before >= 4)
          // Two places, yet four runs while no result could commit: two took the places the first two
          // left. Then three results wait for the store, and no tick claims more: not in the ticks
          // between two renewals of the leases.
          await queries.answered('update', 'check_retries')
          await queries.answered('update', 'check_retries')
          assert.equal(hits - before, 4)
          assert.equal(await resultCount(checks), 0)
          held.release()
          await until(async () => (await resultCount(checks)) === checks.length)
          assert.equal(await resultCount(checks), checks.length)
          assert.equal(hits - before, checks.length)
        } finally {
          held.release()
          await node.stop()
        }
      })
    }
  })
}

/** A store that has fallen behind: every insert into `results` waits (in its transaction) for `release()`. */
function holdResultInserts(): { plugin: KyselyPlugin; release(): void } {
  const released = Promise.withResolvers<void>()
  const inserts = new WeakSet<QueryId>()
  return {
    plugin: {
      transformQuery({ node, queryId }) {
        if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'results') inserts.add(queryId)
        return node
      },
      async transformResult({ queryId, result }) {
        if (inserts.has(queryId)) await released.promise
        return result
      },
    },
    release: () => released.resolve(),
  }
}
